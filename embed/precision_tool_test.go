//go:build unix

package embed

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"
)

// TestPrecisionTool compares the two forms of the default model, driven by
// scripts/bench-embed precision through the environment:
//
//	AEM_BENCH_PRECISION=FILE   the golden dataset (Parquet or JSON)
//	AEM_BENCH_COUNT=N          rounds (default 3)
//
// Each round embeds the distinct strings the default metric asks for in
// the dataset once with each form, through the Embedder as aem run uses it
// (default session layout, no cache, no memo), fp32 and int8 alternating
// (ABBA); then both score the STS-B dev pairs (when ../shared holds them),
// and the int8 vectors of the dataset's strings are compared with fp32's.
// It prints one JSON line per measurement.
func TestPrecisionTool(t *testing.T) {
	path := os.Getenv("AEM_BENCH_PRECISION")
	if path == "" {
		t.Skip("driven by scripts/bench-embed precision (set AEM_BENCH_PRECISION)")
	}
	texts := datasetStrings(t, path)
	ctx := context.Background()
	open := func(p string) *Embedder {
		return openTest(t, useLiteDirFor(t, p), BackendORT, func(o *Options) { o.BatchSize, o.MemoEntries = 0, -1 })
	}
	emit := func(v map[string]any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(string(b))
	}
	vecs := map[string][][]float32{}
	order := []string{PrecisionFP32, PrecisionInt8}
	for round := range envInt(t, "AEM_BENCH_COUNT", 3) {
		for _, p := range order {
			e := open(p)
			sessions, threads := e.opts.Sessions, e.opts.IntraOpThreads
			cpu0, t0 := cpuTime(t), time.Now()
			v, err := e.Embed(ctx, texts)
			if err != nil {
				t.Fatal(err)
			}
			secs, cpu := time.Since(t0).Seconds(), (cpuTime(t) - cpu0).Seconds()
			vecs[p] = v
			emit(map[string]any{"round": round + 1, "precision": p, "model": e.ModelID(), "layout": fmt.Sprintf("%dx%d", sessions, threads),
				"strings": len(texts), "seconds": secs, "cpu_seconds": cpu, "strings_per_s": float64(len(texts)) / secs,
				"strings_per_cpu_s": float64(len(texts)) / cpu, "load": loadAvg()})
		}
		slices.Reverse(order)
	}
	cos := make([]float64, len(texts))
	for i := range texts {
		cos[i] = cosine(vecs[PrecisionInt8][i], vecs[PrecisionFP32][i])
	}
	slices.Sort(cos)
	emit(map[string]any{"agreement": "cosine int8 vs fp32 over the dataset's strings", "strings": len(texts),
		"min": cos[0], "p001": cos[len(cos)/1000], "p01": cos[len(cos)/100], "median": cos[len(cos)/2]})

	if _, err := os.Stat(stsbFile()); err != nil {
		t.Logf("STS-B dev not found at %s: correlations left out", stsbFile())
		return
	}
	rows := readSTSB(t)
	gold, pred, human := make([]string, len(rows)), make([]string, len(rows)), make([]float64, len(rows))
	for i, r := range rows {
		gold[i], pred[i], human[i] = r.s1, r.s2, r.score
	}
	for _, p := range []string{PrecisionFP32, PrecisionInt8} {
		sims, err := NewScorer(open(p)).Score(ctx, gold, pred)
		if err != nil {
			t.Fatal(err)
		}
		emit(map[string]any{"stsb_dev": p, "pairs": len(rows), "spearman": round2(100 * pearson(ranks(sims), ranks(human))),
			"pearson": round2(100 * pearson(sims, human))})
	}
}

func round2(x float64) float64 { return math.Round(100*x) / 100 }

// loadAvg is the 1-minute load average, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "?"
	}
	f := string(b)
	for i, c := range f {
		if c == ' ' {
			return f[:i]
		}
	}
	return f
}
