package golden

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aem-dev/aem/datasets"
	"github.com/parquet-go/parquet-go"
)

// benchDialogs is the dataset size of the benchmarks; set AEM_BENCH_DIALOGS
// (about 7.4 turns per dialog: 135000 gives 1M turns) for the scale runs in
// BENCHMARKS.md.
func benchDialogs() int {
	if n, err := strconv.Atoi(os.Getenv("AEM_BENCH_DIALOGS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

func benchFile(b *testing.B, shuffled bool) (string, int64) {
	b.Helper()
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs = benchDialogs()
	path := filepath.Join(b.TempDir(), "bench.parquet")
	if !shuffled {
		n, err := Write(context.Background(), path, Seq(datasets.Generate(cfg)), WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return path, n
	}
	// Unsorted: each dialog's rows spread over a window of 64 dialogs, the
	// shape of logs written by concurrent sessions.
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := parquet.NewGenericWriter[Row](f, parquet.Compression(&parquet.Zstd))
	rng := rand.New(rand.NewPCG(1, 1))
	var window []Row
	var n int64
	flush := func(keep int) {
		rng.Shuffle(len(window), func(i, j int) { window[i], window[j] = window[j], window[i] })
		cut := len(window) - keep
		if cut <= 0 {
			return
		}
		if _, err := w.Write(window[:cut]); err != nil {
			b.Fatal(err)
		}
		window = append(window[:0], window[cut:]...)
	}
	for d := range datasets.Generate(cfg) {
		for _, t := range d.Turns {
			r, err := RowOf(t)
			if err != nil {
				b.Fatal(err)
			}
			window = append(window, r)
			n++
		}
		if len(window) > 64*8 {
			flush(32 * 8)
		}
	}
	flush(0)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path, n
}

func benchRead(b *testing.B, shuffled bool) {
	path, turns := benchFile(b, shuffled)
	b.ResetTimer()
	for b.Loop() {
		r, err := Open(context.Background(), path, ReadOptions{SpillDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		var got int64
		for {
			d, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			got += int64(len(d.Turns))
		}
		r.Close()
		if got != turns {
			b.Fatalf("read %d turns, want %d", got, turns)
		}
	}
	b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}

// BenchmarkReadSorted measures the streaming fast path.
func BenchmarkReadSorted(b *testing.B) { benchRead(b, false) }

// BenchmarkReadUnsorted measures detection plus the on-disk fallback.
func BenchmarkReadUnsorted(b *testing.B) { benchRead(b, true) }

// BenchmarkWriteGenerated measures generating and writing a golden file.
func BenchmarkWriteGenerated(b *testing.B) {
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs = benchDialogs()
	var turns int64
	for b.Loop() {
		n, err := Write(context.Background(), filepath.Join(b.TempDir(), "g.parquet"), Seq(datasets.Generate(cfg)), WriteOptions{})
		if err != nil {
			b.Fatal(err)
		}
		turns = n
	}
	b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
}
