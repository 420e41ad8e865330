package batch

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"github.com/parquet-go/parquet-go"
)

// genDialogs makes n varied dialogs: context, response and action turns,
// chains of one to three calls, wrong and paraphrased values, missing and
// extra parameters, cascades, order-invariant blocks, latencies and human
// labels. Deterministic for a seed.
func genDialogs(n int, seed uint64) []metrics.Dialog {
	r := rand.New(rand.NewPCG(seed, 7))
	cities := []string{"Paris", "New York City", "Berlin", "Tokyo", "Lima"}
	metricsNames := []string{"revenue", "profit", "units sold", "churn"}
	replies := []string{"The report for Q3 is ready and revenue grew.", "Your flight is booked for Monday.", "I could not find that order.", "The weather in Paris is sunny. It will rain tomorrow."}
	ds := make([]metrics.Dialog, 0, n)
	for i := range n {
		id := fmt.Sprintf("d%05d", i)
		d := metrics.Dialog{ID: id}
		no := 0
		add := func(t metrics.Turn) {
			no++
			t.DialogID, t.TurnNo = id, no
			if r.IntN(3) == 0 {
				l := float64(50 + r.IntN(900))
				t.LatencyMS = &l
			}
			d.Turns = append(d.Turns, t)
		}
		add(metrics.Turn{Role: metrics.RoleUser, HasGold: true, GoldResponse: "please help"})
		steps := 1 + r.IntN(4)
		for s := 0; s < steps; s++ {
			if r.IntN(2) == 0 {
				g := replies[r.IntN(len(replies))]
				p := g
				switch r.IntN(4) {
				case 0:
					p = replies[r.IntN(len(replies))]
				case 1:
					p = strings.ToLower(g)
				}
				t := metrics.Turn{Role: metrics.RoleAgent, HasGold: true, HasPredict: true, GoldResponse: g, PredictResponse: p}
				if r.IntN(4) == 0 {
					b := r.IntN(2) == 0
					t.HumanLabel = &b
				}
				add(t)
				continue
			}
			chain := 1 + r.IntN(3)
			block := ""
			if chain > 1 && r.IntN(4) == 0 {
				block = fmt.Sprintf("OrderInvariant_b%d", s)
			}
			for c := 0; c < chain; c++ {
				city := cities[r.IntN(len(cities))]
				metric := metricsNames[r.IntN(len(metricsNames))]
				gold := metrics.Call{ToolID: "sales", Action: "report", Args: map[string]any{"city": city, "metric": metric, "year": "2024"}}
				pred := metrics.Call{ToolID: "sales", Action: "report", Args: map[string]any{"city": city, "metric": metric, "year": "2024"}}
				switch r.IntN(6) {
				case 0:
					pred.Args["metric"] = metricsNames[r.IntN(len(metricsNames))]
				case 1:
					delete(pred.Args, "year")
				case 2:
					pred.Args["extra"] = "x"
				case 3:
					pred.Action = "summary"
				}
				t := metrics.Turn{Role: metrics.RoleTool, HasGold: true, HasPredict: r.IntN(15) != 0, Gold: gold, Predict: pred}
				if block != "" {
					t.Tags = []string{block}
				}
				if r.IntN(5) == 0 {
					w := float64(1 + r.IntN(3))
					t.Weight = &w
				}
				t.Critical = r.IntN(7) == 0
				add(t)
			}
		}
		ds = append(ds, d)
	}
	return ds
}

// writeGolden writes dialogs as a golden Parquet file.
func writeGolden(t testing.TB, dir string, ds []metrics.Dialog) string {
	t.Helper()
	path := filepath.Join(dir, "golden.parquet")
	if _, err := golden.Write(context.Background(), path, golden.Slice(ds), golden.WriteOptions{RowGroupRows: 500}); err != nil {
		t.Fatal(err)
	}
	return path
}

// extraRow is a golden row plus extra columns that must be carried through.
type extraRow struct {
	golden.Row
	Source  string   `parquet:"source"`
	Quality *float64 `parquet:"quality,optional"`
	Labels  []string `parquet:"labels,list"`
	Pass    *int32   `parquet:"pass,optional"` // collides with a rundir.TurnRow column
}

func writeGoldenExtras(t testing.TB, dir string, ds []metrics.Dialog) string {
	t.Helper()
	path := filepath.Join(dir, "golden-extras.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[extraRow](f, parquet.MaxRowsPerRowGroup(300))
	for i, d := range ds {
		for j, turn := range d.Turns {
			row, err := golden.RowOf(turn)
			if err != nil {
				t.Fatal(err)
			}
			er := extraRow{Row: row, Source: fmt.Sprintf("src-%d-%d", i, j), Labels: []string{"a", fmt.Sprint(j)}}
			if j%2 == 0 {
				q := float64(i) / 10
				er.Quality = &q
			}
			p := int32(i)
			er.Pass = &p
			if _, err := w.Write([]extraRow{er}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeScorer wraps Lexical, counting calls and optionally failing or
// calling a hook before each call.
type fakeScorer struct {
	calls  atomic.Int64
	pairs  atomic.Int64
	failAt int64 // fail on this call (1-based); 0 never
	before func(call int64)
}

func (s *fakeScorer) ID() string { return "lexical" }

func (s *fakeScorer) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	n := s.calls.Add(1)
	s.pairs.Add(int64(len(cs)))
	if s.before != nil {
		s.before(n)
	}
	if s.failAt > 0 && n == s.failAt {
		return nil, fmt.Errorf("model exploded on call %d", n)
	}
	return metrics.Lexical{}.Compare(ctx, cs)
}

// testMetric is the default metric with mod applied; the test fails if
// the result is not valid.
func testMetric(t testing.TB, mod func(*metrics.Config)) *metrics.Metric {
	t.Helper()
	cfg := metrics.DefaultConfig()
	mod(&cfg)
	m, err := metrics.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func baseOptions(input, out string) Options {
	return Options{
		Input:           input,
		OutDir:          out,
		Scorer:          metrics.Lexical{},
		Workers:         2,
		ChunkTurns:      40,
		CheckpointTurns: 150,
		RowGroupSize:    200,
	}
}

func mustRun(t testing.TB, o Options) *rundir.Summary {
	t.Helper()
	s, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return s
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameOutputs checks that two run directories hold byte-identical Parquet
// files and the same summary but for timings.
func sameOutputs(t testing.TB, a, b string) {
	t.Helper()
	for _, n := range []string{rundir.TurnsFile, rundir.DialogsFile} {
		if !bytes.Equal(readFile(t, filepath.Join(a, n)), readFile(t, filepath.Join(b, n))) {
			t.Errorf("%s differs between %s and %s", n, a, b)
		}
	}
	sa, err := rundir.ReadSummary(a)
	if err != nil {
		t.Fatal(err)
	}
	sb, err := rundir.ReadSummary(b)
	if err != nil {
		t.Fatal(err)
	}
	sa.Timings, sb.Timings = nil, nil
	ja, jb := mustJSON(t, sa), mustJSON(t, sb)
	if ja != jb {
		t.Errorf("summaries differ:\n%s\n%s", ja, jb)
	}
}

// listDir lists a directory recursively (relative names, sorted).
func listDir(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out
}
