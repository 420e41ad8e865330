package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks run on the installed USE-lite model (skipped without it):
//
//	go test ./embed -run '^$' -bench . -benchtime 3x -count 3
//
// Each reports strings/s; BenchmarkEndToEndVsRawORT interleaves the raw and
// the end-to-end passes in the same iterations and reports their ratio, so a
// busy shared machine slows both alike. scripts/bench-embed runs them and the
// Node.js peer.

// shortValues are gold/predicted values as they appear in tool arguments and
// short replies: names, numbers, dates, a few words.
func shortValues(n int) []string {
	stems := []string{"New York", "revenue", "John Smith", "2024-01-15", "order #%d", "$%d.50", "%d items",
		"Paris, France", "net income", "yes", "customer %d", "the meeting is at %d pm", "ticket %d closed", "N/A"}
	out := make([]string, n)
	for i := range out {
		s := stems[i%len(stems)]
		if strings.Contains(s, "%d") {
			s = fmt.Sprintf(s, i)
		} else {
			s = fmt.Sprintf("%s %d", s, i)
		}
		out[i] = s
	}
	return out
}

// longReplies are agent replies of about 60-128 tokens, made from STS-B
// sentences (or fixed text when the data set is absent).
func longReplies(b testing.TB, n int) []string {
	var sents []string
	if rows := readSTSBOptional(); len(rows) > 0 {
		for _, r := range rows {
			sents = append(sents, r.s1, r.s2)
		}
	} else {
		sents = strings.Split("Thanks for reaching out about your order. I checked the status and it shipped on Monday. "+
			"The tracking number is in the confirmation email we sent you. Delivery usually takes three to five business days. "+
			"If it has not arrived by Friday, reply here and I will open a claim with the carrier.", ". ")
	}
	out := make([]string, n)
	for i := range out {
		var parts []string
		for j := 0; len(strings.Join(parts, " ")) < 400; j++ {
			parts = append(parts, sents[(i*7+j*13)%len(sents)])
		}
		out[i] = strings.Join(parts, " ")
	}
	return out
}

func readSTSBOptional() []stsPair {
	var rows []stsPair
	b, err := os.ReadFile("../../shared/data/stsb-dev/sts-dev.csv")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 7 {
			rows = append(rows, stsPair{0, f[5], f[6]})
		}
	}
	return rows
}

func benchEmbedder(b *testing.B, mod func(*Options)) *Embedder {
	b.Helper()
	dir := useLiteDir(b)
	o := Options{ModelDir: dir, ORTLib: ortLib(b), MemoEntries: -1}
	if n, err := strconv.Atoi(os.Getenv("AEM_BENCH_THREADS")); err == nil {
		o.IntraOpThreads = n // ORT intra-op threads for the Go side (default 0: ORT's choice)
	}
	if mod != nil {
		mod(&o)
	}
	e, err := Open(context.Background(), o)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	return e
}

// BenchmarkEmbed: end-to-end strings/s (memo off, so every iteration reaches the model).
func BenchmarkEmbed(b *testing.B) {
	for _, c := range []struct {
		name  string
		texts func() []string
	}{
		{"short", func() []string { return shortValues(1024) }},
		{"long", func() []string { return longReplies(b, 128) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := benchEmbedder(b, nil)
			texts := c.texts()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "strings/s")
			st := e.Stats()
			b.ReportMetric(float64(st.Tokens)/float64(st.StringsEmbedded), "tokens/string")
			b.ReportMetric(100*float64(st.ModelTime)/float64(b.Elapsed()), "%model")
		})
	}
}

// BenchmarkEndToEndVsRawORT: the same strings as pre-tokenized, pre-padded
// batches straight into the ORT sessions (raw, all at once) versus through Embed (sanitize,
// tokenize, dedupe, queue, sort, pad, run, normalise, copy). overhead-% is
// (end-to-end time / raw time - 1) x 100, the two passes alternating within
// each iteration; outside-model-% is the end-to-end passes' own time outside
// the backend's run calls, relative to the time inside them (immune to load
// swings between passes).
func BenchmarkEndToEndVsRawORT(b *testing.B) {
	for _, c := range []struct {
		name  string
		texts func() []string
	}{
		{"short", func() []string { return shortValues(1024) }},
		{"long", func() []string { return longReplies(b, 128) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := benchEmbedder(b, nil)
			texts := c.texts()
			batches := benchBatches(b, e, texts)
			rawPass := func() time.Duration { return runBatches(b, e, batches) }
			e2ePass := func() time.Duration {
				start := time.Now()
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
				return time.Since(start)
			}
			var raw, e2e time.Duration
			before := e.Stats().ModelTime
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%2 == 0 { // alternate which pass goes first
					raw += rawPass()
					e2e += e2ePass()
				} else {
					e2e += e2ePass()
					raw += rawPass()
				}
			}
			// Model time is summed over the sessions, which run side by side.
			model := (e.Stats().ModelTime - before) / time.Duration(len(e.sessions))
			b.ReportMetric(100*(e2e.Seconds()/model.Seconds()-1), "outside-model-%")
			n := float64(len(texts) * b.N)
			b.ReportMetric(n/raw.Seconds(), "raw-strings/s")
			b.ReportMetric(n/e2e.Seconds(), "e2e-strings/s")
			b.ReportMetric(100*(e2e.Seconds()/raw.Seconds()-1), "overhead-%")
		})
	}
}

// BenchmarkCache: a cold run (model + cache writes) versus a warm rerun of the
// same strings served from the persistent cache (no model calls).
func BenchmarkCache(b *testing.B) {
	texts := append(shortValues(512), longReplies(b, 128)...)
	b.Run("cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dir := b.TempDir()
			e := benchEmbedder(b, func(o *Options) { o.CacheDir = dir })
			b.StartTimer()
			if _, err := e.Embed(context.Background(), texts); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			e.Close()
			b.StartTimer()
		}
		b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "strings/s")
	})
	b.Run("warm", func(b *testing.B) {
		dir := b.TempDir()
		e := benchEmbedder(b, func(o *Options) { o.CacheDir = dir })
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
		e.Close()
		calls := int64(0)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			e := benchEmbedder(b, func(o *Options) { o.CacheDir = dir })
			b.StartTimer()
			if _, err := e.Embed(context.Background(), texts); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			calls += e.Stats().ModelCalls
			e.Close()
			b.StartTimer()
		}
		if calls != 0 {
			b.Fatalf("warm runs made %d model calls", calls)
		}
		b.ReportMetric(float64(len(texts)*b.N)/b.Elapsed().Seconds(), "strings/s")
	})
}

// benchBatches pre-tokenizes texts into the batches Embed builds for them
// when they are all queued at once: grouped by padded length, each group
// cut into batches of batchRows.
func benchBatches(b *testing.B, e *Embedder, texts []string) []*batchInput {
	groups := map[int][]tokenized{}
	for _, s := range texts {
		tk, err := e.tok.encode(sanitize(s, e.info.MaxTokens))
		if err != nil {
			b.Fatal(err)
		}
		p := e.padLen(len(tk.ids))
		groups[p] = append(groups[p], tk)
	}
	var batches []*batchInput
	for _, p := range slices.Sorted(maps.Keys(groups)) {
		g, rows := groups[p], e.batchRows(p)
		for lo := 0; lo < len(g); lo += rows {
			in, _ := e.buildBatch(g[lo:min(lo+rows, len(g))])
			batches = append(batches, in)
		}
	}
	return batches
}

// runBatches runs batches on all of e's sessions at once, as Embed does.
func runBatches(b testing.TB, e *Embedder, batches []*batchInput) time.Duration {
	d, err := runOnSessions(e.sessions, batches)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// runOnSessions runs batches straight into the sessions, each session on
// its own goroutine taking the next batch not yet taken; it returns the
// wall time.
func runOnSessions(sessions []backend, batches []*batchInput) (time.Duration, error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions))
	start := time.Now()
	for _, be := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(batches)); i = next.Add(1) - 1 {
				if _, _, err := be.run(batches[i]); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	d := time.Since(start)
	close(errs)
	return d, <-errs
}

// BenchmarkVsNodePeer interleaves, in each iteration, one end-to-end Go pass
// over a set and one pass of the Node.js peer (onnxruntime-node@1.30.0,
// scripts/bench-embed-node.mjs) over the same strings and model file, so both
// see the same machine load. It needs node, the peer installed by
// scripts/bench-embed under .aem/bench-node, and AEM_BENCH_CORPUS (written
// by TestWriteBenchCorpus). node/go < 1 means Go is faster. go-raw is the
// same pre-tokenized batches straight into the Go ORT sessions, the fair
// match for the peer, which is given token ids.
func BenchmarkVsNodePeer(b *testing.B) {
	corpus := os.Getenv("AEM_BENCH_CORPUS")
	nodeDir, _ := filepath.Abs(filepath.Join("..", ".aem", "bench-node"))
	if corpus == "" {
		b.Skip("set AEM_BENCH_CORPUS (see scripts/bench-embed)")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "onnxruntime-node")); err != nil {
		b.Skipf("onnxruntime-node not installed under %s: run scripts/bench-embed", nodeDir)
	}
	for _, c := range []struct {
		name  string
		texts func() []string
	}{
		{"short", func() []string { return shortValues(1024) }},
		{"long", func() []string { return longReplies(b, 128) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := benchEmbedder(b, nil)
			texts := c.texts()
			if _, err := e.Embed(context.Background(), texts[:64]); err != nil { // warm-up, like the peer's
				b.Fatal(err)
			}
			batches := benchBatches(b, e, texts)
			var goTime, rawTime time.Duration
			var nodeRate []float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				if _, err := e.Embed(context.Background(), texts); err != nil {
					b.Fatal(err)
				}
				goTime += time.Since(start)
				rawTime += runBatches(b, e, batches)
				cmd := exec.Command("node", filepath.Join("..", "scripts", "bench-embed-node.mjs"), corpus, "1", "0", c.name)
				cmd.Env = append(os.Environ(), "AEM_BENCH_NODE_DIR="+nodeDir)
				out, err := cmd.Output()
				if err != nil {
					b.Fatalf("node peer: %v", err)
				}
				var res struct {
					Rate float64 `json:"median_strings_per_s"`
				}
				if err := json.Unmarshal(out, &res); err != nil {
					b.Fatalf("node peer output %q: %v", out, err)
				}
				nodeRate = append(nodeRate, res.Rate)
			}
			goRate := float64(len(texts)*b.N) / goTime.Seconds()
			var nodeMean float64
			for _, r := range nodeRate {
				nodeMean += r / float64(len(nodeRate))
			}
			b.ReportMetric(goRate, "go-strings/s")
			b.ReportMetric(float64(len(texts)*b.N)/rawTime.Seconds(), "go-raw-strings/s")
			b.ReportMetric(nodeMean, "node-strings/s")
			b.ReportMetric(nodeMean/goRate, "node/go")
		})
	}
}

// TestWriteBenchCorpus writes the benchmark strings with their token ids for
// the Node.js peer (scripts/bench-embed-node.mjs); it runs only when
// AEM_BENCH_CORPUS names the output file.
func TestWriteBenchCorpus(t *testing.T) {
	path := os.Getenv("AEM_BENCH_CORPUS")
	if path == "" {
		t.Skip("set AEM_BENCH_CORPUS=FILE to write the Node.js benchmark corpus")
	}
	e := openTest(t, useLiteDir(t), BackendORT, nil)
	type item struct {
		Text string  `json:"text"`
		IDs  []int64 `json:"ids"`
	}
	model, err := filepath.Abs(e.Info().WeightsPath)
	if err != nil {
		t.Fatal(err)
	}
	corpus := map[string]any{"model": model, "batch_size": DefaultBatchSize}
	for name, texts := range map[string][]string{"short": shortValues(1024), "long": longReplies(t, 128)} {
		items := make([]item, len(texts))
		for i, s := range texts {
			tk, err := e.tok.encode(sanitize(s, e.info.MaxTokens))
			if err != nil {
				t.Fatal(err)
			}
			items[i] = item{s, tk.ids}
		}
		corpus[name] = items
	}
	b, err := json.Marshal(corpus)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
