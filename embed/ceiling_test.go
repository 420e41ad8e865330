//go:build unix

package embed

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// TestCeilingTool measures the raw ONNX Runtime ceiling for a golden
// dataset, driven by scripts/bench-embed ceiling through the environment:
//
//	AEM_BENCH_DATASET=FILE   the golden dataset (Parquet or JSON)
//	AEM_CEILING_SESSIONS=N   sessions (default GOMAXPROCS), one thread each
//	AEM_CEILING_BATCH=N      rows per batch (default 32)
//
// It embeds the distinct strings the default metric asks for (those aem run
// sends to the model) the fastest way measured: tokenized beforehand and
// sorted by token count, in batches of AEM_CEILING_BATCH padded to the
// batch's longest string, N single-thread sessions pulling batches from one
// counter. Only the model calls are timed: no tokenizer, cache, memo,
// queue, pooling or output. It prints one JSON line.
func TestCeilingTool(t *testing.T) {
	path := os.Getenv("AEM_BENCH_DATASET")
	if path == "" {
		t.Skip("driven by scripts/bench-embed ceiling (set AEM_BENCH_DATASET)")
	}
	sessions, batch := envInt(t, "AEM_CEILING_SESSIONS", runtime.GOMAXPROCS(0)), envInt(t, "AEM_CEILING_BATCH", 32)
	texts := datasetStrings(t, path)
	e := openTest(t, useLiteDir(t), BackendORT, func(o *Options) { o.Sessions, o.IntraOpThreads = sessions, 1 })
	toks := make([]tokenized, len(texts))
	for i, s := range texts {
		tk, err := e.tok.encode(sanitize(s, e.info.MaxTokens))
		if err != nil {
			t.Fatal(err)
		}
		toks[i] = tk
	}
	slices.SortStableFunc(toks, func(a, b tokenized) int { return cmp.Compare(len(a.ids), len(b.ids)) })
	var batches []*batchInput
	var tokens, padded int
	for lo := 0; lo < len(toks); lo += batch {
		chunk := toks[lo:min(lo+batch, len(toks))]
		in := padToLongest(chunk)
		batches = append(batches, in)
		padded += in.batch * in.seq
		for _, tk := range chunk {
			tokens += len(tk.ids)
		}
	}
	cpu0 := cpuTime(t)
	d, err := runOnSessions(e.sessions, batches)
	if err != nil {
		t.Fatal(err)
	}
	secs, cpu := d.Seconds(), (cpuTime(t) - cpu0).Seconds()
	out, err := json.Marshal(map[string]any{"layout": fmt.Sprintf("%dx1", sessions), "batch_rows": batch,
		"strings": len(texts), "tokens": tokens, "padded_tokens": padded, "seconds": secs, "cpu_seconds": cpu, "strings_per_s": float64(len(texts)) / secs})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(string(out))
}

// padToLongest pads a chunk into one batch at its longest string's length
// (at least one token, at least two rows): the raw layout of the ceiling,
// which does not keep a string's vector independent of its batch.
func padToLongest(chunk []tokenized) *batchInput {
	seq := 1
	for _, tk := range chunk {
		seq = max(seq, len(tk.ids))
	}
	b := max(len(chunk), 2)
	in := &batchInput{batch: b, seq: seq, ids: make([]int64, b*seq), mask: make([]int64, b*seq), types: make([]int64, b*seq)}
	for r, tk := range chunk {
		copy(in.ids[r*seq:], tk.ids)
		for c := range tk.ids {
			in.mask[r*seq+c] = 1
		}
	}
	return in
}

// datasetStrings are the distinct strings of every comparison the default
// metric requests for the dataset at path, in first-seen order: with the
// vocabulary of the dataset's gold replies, as aem run weighs clauses, so
// these are the strings aem run sends to the model.
func datasetStrings(t testing.TB, path string) []string {
	ctx := context.Background()
	r, err := golden.Open(ctx, path, golden.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var dialogs []metrics.Dialog
	vocab := features.NewVocabulary()
	for d, err := range r.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		dialogs = append(dialogs, d.Dialog)
		metrics.AddReplies(vocab, d.Dialog)
	}
	m := metrics.Default().WithVocabulary(vocab)
	seen := map[string]bool{}
	var out []string
	for _, d := range dialogs {
		for _, c := range m.Requests(d) {
			for _, s := range []string{c.Gold, c.Predicted} {
				if !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// cpuTime is the process's CPU time so far (user + system, all threads).
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envInt(t testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
