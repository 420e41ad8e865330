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

// benchJSONL writes the generated dataset as JSON Lines (renderJSONL: one
// dialog object per line, args as text).
func benchJSONL(b *testing.B) (string, int64) {
	b.Helper()
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs = benchDialogs()
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var n int64
	for d := range datasets.Generate(cfg) {
		var rows []anyRow
		for _, t := range d.Turns {
			r, err := RowOf(t)
			if err != nil {
				b.Fatal(err)
			}
			no := r.TurnNo
			rows = append(rows, anyRow{DialogID: &r.DialogID, TurnNo: &no, Turn: &r.Turn, GoldResponse: r.GoldResponse, PredictResponse: r.PredictResponse,
				GoldToolID: r.GoldToolID, GoldAction: r.GoldAction, GoldArgs: r.GoldArgs, PredictToolID: r.PredictToolID, PredictAction: r.PredictAction,
				PredictArgs: r.PredictArgs, Tags: r.Tags, DependsOn: r.DependsOn, HumanLabel: r.HumanLabel, HumanScore: r.HumanScore, Weight: r.Weight,
				LatencyMS: r.LatencyMS, GoldNoCall: r.GoldNoCall})
			n++
		}
		if _, err := f.Write(renderJSONL(rows)); err != nil {
			b.Fatal(err)
		}
	}
	return path, n
}

// BenchmarkReadJSONL measures what the field limit's filter (jsonFilter)
// costs on ordinary JSON Lines, where it leaves nothing out: "filtered"
// is the reader's default, "unfiltered" the reader without it; compare
// the two within one run.
func BenchmarkReadJSONL(b *testing.B) {
	path, turns := benchJSONL(b)
	for _, unfiltered := range []bool{false, true} {
		name := "filtered"
		if unfiltered {
			name = "unfiltered"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				got, err := readJSONFile(path, unfiltered)
				if err != nil {
					b.Fatal(err)
				}
				if got != turns {
					b.Fatalf("read %d turns, want %d", got, turns)
				}
			}
			b.ReportMetric(float64(turns)*float64(b.N)/b.Elapsed().Seconds(), "turns/s")
		})
	}
}

// readJSONFile reads a JSON Lines file with the default field limit,
// through the filter or not, and counts its turns.
func readJSONFile(path string, unfiltered bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := &Reader{path: path, format: FormatJSONL, maxField: DefaultMaxFieldBytes, unfiltered: unfiltered}
	if err := r.openJSON(f, FormatJSONL, newToolSource(nil)); err != nil {
		return 0, err
	}
	var n int64
	for {
		d, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(d.Turns))
	}
}
