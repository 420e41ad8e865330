package batch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// TestAppliedThresholdsInTurns: turns.parquet records, per compared value,
// the threshold applied, its entry and the decider, and per turn the
// threshold of the deciding comparison: 0.75 for parameter values from
// the sub-metric entry, not the global 0.5.
func TestAppliedThresholdsInTurns(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(40, 5))
	out := filepath.Join(dir, "out")
	o := baseOptions(in, out)
	o.Metric = testMetric(t, func(c *metrics.Config) {
		c.Thresholds.SubMetrics = map[string]float64{metrics.SubTruthValues: 0.75}
	})
	s := mustRun(t, o)
	if s.Thresholds.Threshold != 0.5 || s.Thresholds.SubMetrics[metrics.SubTruthValues] != 0.75 {
		t.Errorf("summary thresholds %+v", s.Thresholds)
	}
	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	wantTurn := map[string]float64{"action": 0.75, "response": 0.5}
	seen := map[string]int{}
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		semantic := 0
		for _, fs := range tr.FieldScores {
			if fs.Method != metrics.MethodSemantic {
				continue
			}
			semantic++
			want := "sub_metrics.truthfulness.values"
			if tr.Kind == "response" {
				want = "threshold"
			}
			if fs.By == nil || *fs.By != metrics.ByLexical || fs.ThresholdFrom != want || fs.Threshold != wantTurn[tr.Kind] {
				t.Fatalf("%s turn %d field %+v, want %s at %v decided by lexical", tr.DialogID, tr.TurnNo, fs, want, wantTurn[tr.Kind])
			}
		}
		switch {
		case semantic == 0 && tr.Threshold != nil && tr.Kind == "action":
			t.Errorf("%s turn %d: threshold %v with no semantic comparison", tr.DialogID, tr.TurnNo, *tr.Threshold)
		case semantic > 0 && (tr.Threshold == nil || *tr.Threshold != wantTurn[tr.Kind]):
			t.Errorf("%s turn %d (%s): threshold %v, want %v", tr.DialogID, tr.TurnNo, tr.Kind, tr.Threshold, wantTurn[tr.Kind])
		case semantic > 0:
			seen[tr.Kind]++
		}
	}
	if seen["action"] == 0 || seen["response"] == 0 {
		t.Errorf("turns held to a threshold: %v; want both kinds", seen)
	}
}
