package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/aem-dev/aem/datasets"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// genTurns writes a generated golden dataset of at least n turns to path
// (datasets.Generate, default settings, seed 1).
func genTurns(ctx context.Context, path string, n int) (int64, error) {
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs = n // more than enough: every dialog has >= 3 turns
	seq := func(yield func(metrics.Dialog, error) bool) {
		turns := 0
		for d := range datasets.Generate(cfg) {
			if turns >= n || !yield(d, nil) {
				return
			}
			turns += len(d.Turns)
		}
	}
	return golden.Write(ctx, path, iter.Seq2[metrics.Dialog, error](seq), golden.WriteOptions{})
}

// benchInput returns a cached generated dataset of about n turns.
func benchInput(b testing.TB, n int) string {
	dir := os.Getenv("AEM_BENCH_DIR")
	if dir == "" {
		dir = os.TempDir()
	}
	path := filepath.Join(dir, fmt.Sprintf("aem-bench-%d.parquet", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if _, err := genTurns(context.Background(), path, n); err != nil {
		b.Fatal(err)
	}
	return path
}

func benchRun(b *testing.B, turns int) {
	in := benchInput(b, turns)
	b.ResetTimer()
	var sum *rundir.Summary
	var stats Stats
	for b.Loop() {
		o := Options{Input: in, OutDir: b.TempDir(), Scorer: metrics.Lexical{}, Progress: &lastStats{s: &stats}}
		s, err := Run(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		sum = s
	}
	b.StopTimer()
	perRun := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(sum.Turns)/perRun, "turns/s")
	b.ReportMetric(stats.ScorerTime.Seconds()/(perRun*float64(runtime.GOMAXPROCS(0)))*100, "%scorer")
}

// lastStats keeps the final Stats of a run.
type lastStats struct{ s *Stats }

func (l *lastStats) Start(int64)           {}
func (l *lastStats) Update(Stats)          {}
func (l *lastStats) Done(s Stats, _ error) { *l.s = s }

// BenchmarkRun100k runs the pipeline end to end over ~100k generated turns
// with the Lexical scorer.
func BenchmarkRun100k(b *testing.B) { benchRun(b, 100_000) }

// BenchmarkVocabularyPass100k is the first pass a run makes over the same
// ~100k turns to read its gold side (ReadGold): run it
// beside BenchmarkRun100k, which includes it, for its share of a run.
func BenchmarkVocabularyPass100k(b *testing.B) {
	in := benchInput(b, 100_000)
	b.ResetTimer()
	for b.Loop() {
		g, err := ReadGold(context.Background(), in, golden.ReadOptions{})
		if err != nil || g.Vocabulary.Replies() == 0 {
			b.Fatal(g, err)
		}
	}
}

// BenchmarkRun1M is the same over ~1M turns (skipped with -short).
func BenchmarkRun1M(b *testing.B) {
	if testing.Short() {
		b.Skip("1M turns: run without -short")
	}
	benchRun(b, 1_000_000)
}

// benchScorer, set by bench_embed_test.go (build tag aembench), opens the
// embedding scorer when AEM_BENCH_SCORER=embed; nil scorer means Lexical.
var benchScorer = func(ctx context.Context) (metrics.Scorer, func() map[string]any, func(), error) {
	return nil, nil, nil, nil
}

// TestBenchTool is driven by scripts/bench through environment variables,
// so that /usr/bin/time measures one process per step:
//
//	AEM_BENCH_GEN_TURNS=N AEM_BENCH_GEN_OUT=FILE  write a generated dataset
//	AEM_BENCH_INPUT=FILE AEM_BENCH_OUT=DIR        run it (Lexical scorer) and
//	                                              print a JSON line of figures
func TestBenchTool(t *testing.T) {
	ctx := context.Background()
	if n := os.Getenv("AEM_BENCH_GEN_TURNS"); n != "" {
		turns, err := strconv.Atoi(n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := genTurns(ctx, os.Getenv("AEM_BENCH_GEN_OUT"), turns)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("{\"generated_turns\": %d}\n", got)
		return
	}
	in := os.Getenv("AEM_BENCH_INPUT")
	if in == "" {
		t.Skip("driven by scripts/bench")
	}
	var stats Stats
	workers, _ := strconv.Atoi(os.Getenv("AEM_BENCH_WORKERS"))
	var scorer metrics.Scorer = metrics.Lexical{}
	extra := func() map[string]any { return nil }
	if s, st, closeFn, err := benchScorer(ctx); err != nil {
		t.Fatal(err)
	} else if s != nil {
		scorer, extra = s, st
		defer closeFn()
	}
	start := time.Now()
	sum, err := Run(ctx, Options{Input: in, OutDir: os.Getenv("AEM_BENCH_OUT"), Workers: workers, Scorer: scorer, Progress: &lastStats{s: &stats}})
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start).Seconds()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	out, _ := json.Marshal(map[string]any{
		"turns": sum.Turns, "dialogs": sum.Dialogs, "wall_s": wall, "turns_per_s": float64(sum.Turns) / wall,
		"scorer_s": stats.ScorerTime.Seconds(), "scorer_pairs": stats.ScorerPairs,
		"scorer_share_of_cpu_wall": stats.ScorerTime.Seconds() / (wall * float64(runtime.GOMAXPROCS(0))),
		"timings":                  sum.Timings, "go_heap_sys_mb": float64(ms.HeapSys) / (1 << 20),
		"scorer_id": sum.Scorer, "scorer_stats": extra(),
	})
	fmt.Println(string(out))
}
