package review

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/datasets"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/tooldef"
)

// lexicalRun scores a generated dataset of n dialogs with the lexical
// scorer and opens the run.
func lexicalRun(t testing.TB, n int) *rundir.Run {
	t.Helper()
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs, cfg.Seed = n, 9
	dir := t.TempDir()
	input := filepath.Join(dir, "gen.parquet")
	ctx := context.Background()
	if _, err := golden.Write(ctx, input, golden.Seq(datasets.Generate(cfg)), golden.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	if _, err := batch.Run(ctx, batch.Options{Input: input, OutDir: out, Scorer: metrics.Lexical{}, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	rd, err := rundir.Open(ctx, out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	return rd
}

// candidates lists, from the rows, the scorer-decided comparisons in the
// band: what Select must choose from.
func candidates(t *testing.T, rd *rundir.Run, in func(score, thr float64) bool) map[Key]rundir.FieldScoreRow {
	out := map[Key]rundir.FieldScoreRow{}
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.AllScores() {
			if fs.ScorerDecided() && in(fs.FirstScore(), fs.Threshold) {
				k := Key{DialogID: tr.DialogID, Trial: -1, TurnNo: tr.TurnNo, Field: fs.Field}
				out[k] = fs
			}
		}
	}
	return out
}

func TestSelectBand(t *testing.T) {
	rd := lexicalRun(t, 300)
	want := candidates(t, rd, func(s, _ float64) bool { return s >= 0.4 && s <= 0.8 })
	for _, limit := range []int{1, 25, 100000} {
		items, st, err := Select(context.Background(), rd, Options{Band: DefaultBand, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if st.Candidates != len(want) {
			t.Errorf("limit %d: %d candidates, the rows have %d in the band", limit, st.Candidates, len(want))
		}
		if len(items) > limit || len(items) == 0 {
			t.Fatalf("limit %d: %d items", limit, len(items))
		}
		pairs := map[[2]string]bool{}
		groups := map[string]bool{}
		for i, it := range items {
			fs, ok := want[it.Key()]
			if !ok {
				t.Errorf("item %s (%s) is not a candidate", it.ID, it.Key())
				continue
			}
			if it.Score != fs.FirstScore() || it.Threshold != fs.Threshold || it.ThresholdFrom != fs.ThresholdFrom || (it.Verdict == "pass") != fs.Pass {
				t.Errorf("item %s = %+v, row %+v", it.ID, it, fs)
			}
			if it.HumanLabel != nil || it.Review != Version || it.ID == "" || it.Gold == "" || it.SamePair < 1 {
				t.Errorf("item %d: %+v", i, it)
			}
			p := [2]string{it.Gold, it.Predicted}
			if pairs[p] {
				t.Errorf("pair %q exported twice", p)
			}
			pairs[p] = true
			groups[it.SubMetric+" "+strataField(it.Field)] = true
		}
		if limit >= st.Strata && st.Represented != st.Strata {
			t.Errorf("limit %d >= %d groups, but %d represented", limit, st.Strata, st.Represented)
		}
		if limit == 100000 && len(items) != st.Pairs {
			t.Errorf("no limit: %d items, %d distinct pairs", len(items), st.Pairs)
		}
		if limit == 25 && len(groups) < min(25, st.Strata)/2 {
			t.Errorf("25 items come from only %d groups of %d: not stratified", len(groups), st.Strata)
		}
	}
}

func TestSelectNear(t *testing.T) {
	rd := lexicalRun(t, 100)
	want := candidates(t, rd, func(s, thr float64) bool { return math.Abs(s-thr) <= 0.05 })
	items, st, err := Select(context.Background(), rd, Options{Near: 0.05, Limit: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if st.Candidates != len(want) || len(items) == 0 {
		t.Fatalf("%d candidates (%d items), the rows have %d near", st.Candidates, len(items), len(want))
	}
	for _, it := range items {
		if math.Abs(it.Score-it.Threshold) > 0.05 {
			t.Errorf("item %s: score %v, threshold %v", it.ID, it.Score, it.Threshold)
		}
	}
	// The nearest come first within a group: the first item of the file is
	// among the nearest of all.
	best := math.Inf(1)
	for _, fs := range want {
		best = math.Min(best, math.Abs(fs.FirstScore()-fs.Threshold))
	}
	if d := math.Abs(items[0].Score - items[0].Threshold); d > 0.05 || d < best {
		t.Errorf("first item at %v from its threshold; nearest %v", d, best)
	}
}

func TestSelectDescribesTools(t *testing.T) {
	rd := lexicalRun(t, 60)
	items, _, err := Select(context.Background(), rd, Options{Band: [2]float64{0, 1}, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var defs []byte
	seen := map[string]bool{}
	defs = append(defs, '[')
	for _, it := range items {
		if it.Kind != "action" || seen[it.Tool] {
			continue
		}
		seen[it.Tool] = true
		if len(defs) > 1 {
			defs = append(defs, ',')
		}
		name := it.Tool
		defs = append(defs, []byte(`{"name":"`+name+`","description":"Does `+name+`.","parameters":{"type":"object","properties":{}}}`)...)
	}
	defs = append(defs, ']')
	tools, err := tooldef.Parse("tools.json", defs)
	if err != nil {
		t.Fatal(err)
	}
	items, _, err = Select(context.Background(), rd, Options{Band: [2]float64{0, 1}, Limit: 1000, Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	described := 0
	for _, it := range items {
		if it.Kind == "action" {
			if it.ToolDescription != "Does "+it.Tool+"." {
				t.Errorf("item %s of %s: description %q", it.ID, it.Tool, it.ToolDescription)
			}
			described++
		}
	}
	if described == 0 {
		t.Error("no action items")
	}
}

func TestOptions(t *testing.T) {
	for _, s := range []string{"0.8:0.4", "x:1", "0.4", "0.5:0.5"} {
		if _, err := ParseBand(s); err == nil {
			t.Errorf("ParseBand(%q): no error", s)
		}
	}
	if b, err := ParseBand(" 0.3 : 0.9 "); err != nil || b != [2]float64{0.3, 0.9} {
		t.Errorf("ParseBand = %v, %v", b, err)
	}
	for _, o := range []Options{{Near: -1}, {}, {Band: DefaultBand, Limit: -1}} {
		if o.Validate() == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
