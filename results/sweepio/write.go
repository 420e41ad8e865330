package sweepio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/stats"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/thresholds"
)

// Output file names inside the sweep output directory.
const (
	SweepFile      = "sweep.parquet"
	ThresholdsFile = thresholds.FileName
	SummaryFile    = "summary.json"
	PlotPNG        = "sweep.png"
	PlotSVG        = "sweep.svg"
)

// Summary is summary.json: the run's metadata and the calibration result.
// The result's fields sit at the top level (threshold, f1, accuracy, mcc,
// roc_auc, pearson, spearman, kendall, ... each {"value", "ci_low",
// "ci_high", "ci_method"}).
type Summary struct {
	Version  int               `json:"version"`
	Mode     string            `json:"mode"` // "run" or "pairs"
	Input    string            `json:"input"`
	Scorer   string            `json:"scorer"`
	Settings map[string]string `json:"settings"`
	Run      *RunInfo          `json:"run,omitempty"`
	*sweep.Result
}

// SweepRow is one row of sweep.parquet: every figure at one candidate
// threshold, for one scope ("global", "sub_metric:truthfulness.values",
// "field:crm.find.city").
type SweepRow struct {
	Scope            string  `parquet:"scope" json:"scope"`
	Threshold        float64 `parquet:"threshold" json:"threshold"`
	TP               int64   `parquet:"tp" json:"tp"`
	FP               int64   `parquet:"fp" json:"fp"`
	TN               int64   `parquet:"tn" json:"tn"`
	FN               int64   `parquet:"fn" json:"fn"`
	Precision        float64 `parquet:"precision" json:"precision"`
	Recall           float64 `parquet:"recall" json:"recall"`
	F1               float64 `parquet:"f1" json:"f1"`
	Accuracy         float64 `parquet:"accuracy" json:"accuracy"`
	BalancedAccuracy float64 `parquet:"balanced_accuracy" json:"balanced_accuracy"`
	MCC              float64 `parquet:"mcc" json:"mcc"`
	Kappa            float64 `parquet:"kappa" json:"kappa"`
	TPR              float64 `parquet:"tpr" json:"tpr"`
	FPR              float64 `parquet:"fpr" json:"fpr"`
	Youden           float64 `parquet:"youden" json:"youden"`
	// Chosen marks the threshold chosen for the scope.
	Chosen bool `parquet:"chosen" json:"chosen"`
}

// Rows flattens a result's sweeps into sweep.parquet rows: the global
// sweep first, then each sub-metric and field in name order.
func Rows(res *sweep.Result) []SweepRow {
	var out []SweepRow
	add := func(scope string, pts []stats.Point, chosen int) {
		for i, p := range pts {
			r := func(x float64) int64 { return int64(math.Round(x)) }
			out = append(out, SweepRow{Scope: scope, Threshold: p.Threshold, TP: r(p.TP), FP: r(p.FP), TN: r(p.TN), FN: r(p.FN),
				Precision: p.Precision(), Recall: p.Recall(), F1: p.F1(), Accuracy: p.Accuracy(), BalancedAccuracy: p.BalancedAccuracy(),
				MCC: p.MCC(), Kappa: p.Kappa(), TPR: p.TPR(), FPR: p.FPR(), Youden: p.Youden(), Chosen: i == chosen})
		}
	}
	add("global", res.Points, res.Chosen)
	group := func(prefix string, m map[string]*sweep.GroupResult) {
		for _, k := range sortedKeys(m) {
			g := m[k]
			chosen := -1
			for i, p := range g.Points {
				if g.Threshold != nil && p.Threshold == *g.Threshold {
					chosen = i
				}
			}
			add(prefix+k, g.Points, chosen)
		}
	}
	group("sub_metric:", res.SubMetrics)
	group("kind:", res.Kinds)
	group("field:", res.Fields)
	return out
}

// Write writes the outputs of a calibration into dir: sweep.parquet,
// thresholds.json (when a threshold was fitted), sweep.png and sweep.svg
// (when there are binary labels) and summary.json, each atomically (temp
// file, fsync, rename). summary.json is removed first and written last, so
// a directory with a summary.json holds one complete, consistent set.
// Outputs of an earlier sweep that this one does not produce are removed.
func Write(ctx context.Context, dir string, s *Summary) (written []string, err error) {
	if s == nil || s.Result == nil {
		return nil, errors.New("writing sweep outputs: no result")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating %s: %w", dir, err)
	}
	for _, name := range []string{SummaryFile, ThresholdsFile, PlotPNG, PlotSVG, SweepFile} {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("removing the earlier %s: %w", name, err)
		}
	}
	putWith := func(name string, write func(path string) error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(dir, name)
		if err := write(p); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	put := func(name string, data []byte) error {
		return putWith(name, func(p string) error { return safefile.WriteFile(p, data) })
	}

	var pq bytes.Buffer
	w := parquet.NewGenericWriter[SweepRow](&pq)
	if _, err := w.Write(Rows(s.Result)); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", SweepFile, err)
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", SweepFile, err)
	}
	if err := put(SweepFile, pq.Bytes()); err != nil {
		return nil, err
	}

	if s.Threshold != nil {
		th, err := s.Result.Thresholds("aem sweep " + s.Input + " (objective " + s.Objective + ")")
		if err != nil {
			return nil, err
		}
		if c := s.Run.clauseThreshold(); c != nil {
			if _, own := th.SubMetrics[metrics.SubCompleteClause]; !own {
				if th.SubMetrics == nil {
					th.SubMetrics = map[string]float64{}
				}
				th.SubMetrics[metrics.SubCompleteClause] = *c
			}
		}
		f := thresholds.New(th, s.Scorer)
		f.JudgeBand = fileBand(s.JudgeBand)
		f.Composite = s.Result.Composites()
		if f.Composite != nil {
			f.CompositeFields = s.Result.CompositeFields()
		}
		if err := putWith(ThresholdsFile, func(p string) error { return thresholds.Write(p, f) }); err != nil {
			return nil, err
		}
	}
	if len(s.Points) > 0 {
		png, svg, err := Plot(s.Result)
		if err != nil {
			return nil, err
		}
		if err := put(PlotPNG, png); err != nil {
			return nil, err
		}
		if err := put(PlotSVG, svg); err != nil {
			return nil, err
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", SummaryFile, err)
	}
	if err := put(SummaryFile, append(b, '\n')); err != nil {
		return nil, err
	}
	return written, nil
}

// fileBand is the band a calibration found, as thresholds.json holds it.
func fileBand(b *sweep.JudgeBand) *thresholds.JudgeBand {
	if b == nil {
		return nil
	}
	f := &thresholds.JudgeBand{Low: b.Similarity.Low, High: b.Similarity.High}
	if c := b.Composite; c != nil {
		f.Composite = &thresholds.Band{Low: c.Low, High: c.High}
	}
	return f
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}
