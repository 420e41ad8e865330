package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/stats"
)

func TestParseObjective(t *testing.T) {
	cases := []struct {
		in   string
		want Objective
		err  error
	}{
		{"f1", Objective{Name: "f1"}, nil},
		{" MCC ", Objective{Name: "mcc"}, nil},
		{"accuracy", Objective{Name: "accuracy"}, nil},
		{"youden", Objective{Name: "youden"}, nil},
		{"precision@0.9", Objective{Name: "precision", Target: 0.9}, nil},
		{"recall@1", Objective{Name: "recall", Target: 1}, nil},
		{"precision", Objective{}, ErrObjective},
		{"f1@0.5", Objective{}, ErrObjective},
		{"recall@1.5", Objective{}, ErrObjective},
		{"recall@x", Objective{}, ErrObjective},
		{"auc", Objective{}, ErrObjective},
	}
	for _, tc := range cases {
		got, err := ParseObjective(tc.in)
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("ParseObjective(%q) = %+v, %v; want %+v, %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil {
			if back, _ := ParseObjective(got.String()); back != got {
				t.Errorf("String round trip of %q: %q", tc.in, got.String())
			}
		}
	}
}

func TestChooseHandComputed(t *testing.T) {
	// Thresholds 0.1, 0.2, 0.55, 0.85, >0.9 (see stats.TestSweepHandComputed).
	pts, err := stats.Sweep([]float64{0.8, 0.1, 0.9, 0.3, 0.8}, []bool{true, false, true, false, false})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		obj  string
		want float64
		err  error
	}{
		{"f1", 0.55, nil},       // F1 .571 .667 .8 .667 0
		{"accuracy", 0.85, nil}, // .4 .6 .8 .8 .6: tie at .55 and .85, median of the tie is .85
		{"youden", 0.55, nil},   // 0 .333 .667 .5 0
		{"mcc", 0.55, nil},      // MCC at .55: (2*2-1*0)/sqrt(3*2*2*3) = .667; at .85: sqrt(1/2*... ) smaller
		{"precision@1", 0.55, nil},
		{"recall@1", 0.85, nil},
	}
	for _, tc := range cases {
		o, _ := ParseObjective(tc.obj)
		k, err := o.Choose(pts)
		if !errors.Is(err, tc.err) || (err == nil && math.Abs(pts[k].Threshold-tc.want) > 1e-12) {
			t.Errorf("%s: chose %v (%v), want %v", tc.obj, pts[k].Threshold, err, tc.want)
		}
	}
	// The best-scored sample is a negative: no threshold reaches precision 1.
	pts, _ = stats.Sweep([]float64{0.9, 0.5}, []bool{false, true})
	if _, err := (Objective{Name: "recall", Target: 1}).Choose(pts); !errors.Is(err, ErrUnreachable) {
		t.Errorf("unreachable recall@1: err = %v", err)
	}
}

// synth makes nd dialogs of 1-5 labelled samples; passing samples score
// around 0.7 and failing ones around 0.4.
func synth(seed uint64, nd int) []Sample {
	r := rand.New(rand.NewPCG(seed, 1))
	var s []Sample
	for d := range nd {
		for k := range 1 + r.IntN(5) {
			pass := r.Float64() < 0.5
			mu := 0.4
			if pass {
				mu = 0.7
			}
			score := math.Max(-1, math.Min(1, mu+0.1*r.NormFloat64()))
			human := score*4 + r.NormFloat64()*0.3
			sub := metrics.SubTruthValues
			if k%2 == 1 {
				sub = metrics.SubTruthResponse
			}
			field := ""
			if sub == metrics.SubTruthValues {
				field = fmt.Sprintf("sales.report.f%d", d%2)
			}
			s = append(s, Sample{Group: fmt.Sprintf("d%d", d), SubMetric: sub, Field: field, Score: score,
				HasLabel: true, Label: pass, HasHuman: true, Human: human, Ref: fmt.Sprintf("dialog d%d turn %d", d, k)})
		}
	}
	return s
}

func quick() Options {
	o := DefaultOptions()
	o.Bootstrap = 200
	return o
}

func TestCalibrateSynthetic(t *testing.T) {
	in := Input{Samples: synth(1, 120)}
	res, err := Calibrate(context.Background(), in, quick())
	if err != nil {
		t.Fatal(err)
	}
	if th := res.Threshold.Value; th < 0.45 || th > 0.65 {
		t.Errorf("threshold %v, want near 0.55", th)
	}
	if res.Folds == nil || res.Folds.Used != 5 || len(res.Folds.Thresholds) != 5 {
		t.Fatalf("folds: %+v", res.Folds)
	}
	if res.Folds.SD <= 0 || res.Folds.SD > 0.1 || res.Folds.Min > res.Folds.Max {
		t.Errorf("fold spread: %+v", res.Folds)
	}
	total := 0
	for _, n := range res.Folds.Sizes {
		total += n
	}
	if total != res.Labels.Binary {
		t.Errorf("fold sizes add to %d, want %d", total, res.Labels.Binary)
	}
	for name, e := range map[string]*Estimate{"threshold": res.Threshold, "f1": res.F1, "accuracy": res.Accuracy, "mcc": res.MCC,
		"roc_auc": res.ROCAUC, "pearson": res.Pearson, "spearman": res.Spearman, "kendall": res.Kendall, "point_biserial": res.PointBiserial} {
		if e == nil || e.Low == nil || e.High == nil || *e.Low > *e.High {
			t.Errorf("%s: missing or inverted CI: %+v", name, e)
			continue
		}
		if *e.Low > e.Value+1e-9 || *e.High < e.Value-1e-9 {
			t.Logf("%s: value %v outside its CI [%v, %v] (possible, but suspicious)", name, e.Value, *e.Low, *e.High)
		}
	}
	if res.F1.Value < 0.8 || res.ROCAUC.Value < 0.9 || res.Spearman.Value < 0.8 {
		t.Errorf("separable data scored poorly: f1 %v auc %v spearman %v", res.F1.Value, res.ROCAUC.Value, res.Spearman.Value)
	}
	if res.InSample == nil || res.InSample.F1.Value < res.F1.Value-0.1 {
		t.Errorf("in-sample figures: %+v", res.InSample)
	}
	if res.Evaluation[:15] != "cross-validated" {
		t.Errorf("evaluation = %q", res.Evaluation)
	}
	// Per sub-metric and per field thresholds, all with enough labels here.
	for _, k := range []string{metrics.SubTruthValues, metrics.SubTruthResponse} {
		g := res.SubMetrics[k]
		if g == nil || g.Threshold == nil || g.Correlations == nil || g.Spearman == nil {
			t.Errorf("sub-metric %s: %+v", k, g)
		}
	}
	if len(res.Fields) != 2 {
		t.Errorf("fields: %v", res.Fields)
	}
	// Same input and seed: identical result; another seed: other intervals.
	again, _ := Calibrate(context.Background(), in, quick())
	if !reflect.DeepEqual(res, again) {
		t.Error("same input and seed gave a different result")
	}
	o := quick()
	o.Seed = 99
	other, _ := Calibrate(context.Background(), in, o)
	if *other.F1.Low == *res.F1.Low && *other.Threshold.Low == *res.Threshold.Low && *other.Spearman.Low == *res.Spearman.Low {
		t.Error("a different seed gave identical intervals")
	}
}

func TestCalibrateNoCV(t *testing.T) {
	o := quick()
	o.Folds = 0
	res, err := Calibrate(context.Background(), Input{Samples: synth(2, 30)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Folds != nil || res.InSample != nil || res.Evaluation[:9] != "in-sample" {
		t.Errorf("no-cv result: folds %+v in-sample %+v evaluation %q", res.Folds, res.InSample, res.Evaluation)
	}
	if res.F1.Value != res.Points[res.Chosen].F1() {
		t.Errorf("in-sample F1 %v, sweep point %v", res.F1.Value, res.Points[res.Chosen].F1())
	}
}

func TestSplitFoldsNoLeak(t *testing.T) {
	s := synth(3, 40)
	_, labels, groups := columns(s)
	o := DefaultOptions()
	for _, k := range []int{2, 3, 5, 10} {
		o.Folds = k
		folds, used, err := splitFolds(s, groups, labels, o)
		if err != nil || used != k {
			t.Fatalf("k=%d: used %d, %v", k, used, err)
		}
		side := map[int]int{}
		for i, g := range groups {
			if f, ok := side[g]; ok && f != folds[i] {
				t.Fatalf("k=%d: dialog %s in folds %d and %d", k, s[i].Group, f, folds[i])
			}
			side[g] = folds[i]
		}
	}
}

func TestHeldOutUsesOtherFoldsOnly(t *testing.T) {
	// Two dialogs whose scores are on opposite sides: dialog A passes at
	// 0.9 and fails at 0.8; dialog B passes at 0.3 and fails at 0.2. Fitted
	// on A alone, the threshold sits at 0.85, which fails all of B; fitted
	// on B alone, 0.25, which passes all of A. A leaky fit would be perfect.
	var s []Sample
	add := func(g string, score float64, label bool) {
		for range 3 {
			s = append(s, Sample{Group: g, Score: score, HasLabel: true, Label: label, Ref: g})
		}
	}
	add("A", 0.9, true)
	add("A", 0.8, false)
	add("B", 0.3, true)
	add("B", 0.2, false)
	o := quick()
	o.Folds = 2
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	// held out: A at 0.25 -> 3 TP, 3 FP; B at 0.85 -> 3 FN, 3 TN.
	if want := (Counts{TP: 3, FP: 3, TN: 3, FN: 3}); res.Confusion != want {
		t.Errorf("held-out confusion %+v, want %+v", res.Confusion, want)
	}
	if res.InSample.Accuracy.Value <= res.Accuracy.Value {
		t.Errorf("in-sample accuracy %v should beat held-out %v here", res.InSample.Accuracy.Value, res.Accuracy.Value)
	}
}

func TestCalibrateBadInput(t *testing.T) {
	lab := func(g string, score float64, label bool) Sample {
		return Sample{Group: g, Score: score, HasLabel: true, Label: label, Ref: "dialog " + g}
	}
	oneDialog := []Sample{lab("a", 0.9, true), lab("a", 0.2, false), lab("a", 0.8, true), lab("a", 0.1, false)}
	cases := []struct {
		name  string
		in    Input
		folds int
		want  error
	}{
		{"no samples", Input{}, 5, ErrNoLabels},
		{"unlabelled samples", Input{Samples: []Sample{{Group: "a", Score: 0.5}}}, 5, ErrNoLabels},
		{"labelled turns but none semantic", Input{Verdicts: []LabelledVerdict{{Group: "a", Auto: true, Human: true}}}, 5, ErrNoLabels},
		{"one class", Input{Samples: []Sample{lab("a", 0.9, true), lab("b", 0.2, true)}}, 5, ErrOneClass},
		{"one dialog", Input{Samples: oneDialog}, 5, ErrTooFewLabels},
		{"NaN score", Input{Samples: []Sample{lab("a", math.NaN(), true), lab("b", 0.2, false)}}, 5, ErrNaNScore},
		{"NaN human score", Input{Samples: []Sample{{Group: "a", Score: 0.3, HasHuman: true, Human: math.Inf(1)}}}, 5, ErrNaNScore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := quick()
			o.Folds = tc.folds
			res, err := Calibrate(context.Background(), tc.in, o)
			var e *Error
			if !errors.Is(err, tc.want) || !errors.As(err, &e) || e.Fix == "" {
				t.Fatalf("got %v, %v; want a *Error wrapping %v with a fix", res, err, tc.want)
			}
			t.Log(err)
		})
	}
	// One dialog works without cross-validation, labelled in-sample.
	o := quick()
	o.Folds = 0
	if res, err := Calibrate(context.Background(), Input{Samples: oneDialog}, o); err != nil || res.Threshold.Value != 0.5 {
		t.Errorf("one dialog, no CV: %v, %v", res, err)
	}
	// Three dialogs and 5 folds asked: 3 folds, with a warning.
	three := []Sample{lab("a", 0.9, true), lab("a", 0.2, false), lab("b", 0.8, true), lab("b", 0.3, false), lab("c", 0.7, true), lab("c", 0.1, false)}
	res, err := Calibrate(context.Background(), Input{Samples: three}, quick())
	if err != nil || res.Folds.Used != 3 || len(res.Warnings) == 0 {
		t.Errorf("3 dialogs: %+v, %v", res, err)
	}
	bad := quick()
	bad.Objective = Objective{Name: "auc"}
	if _, err := Calibrate(context.Background(), Input{Samples: three}, bad); !errors.Is(err, ErrObjective) {
		t.Errorf("bad objective: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Calibrate(ctx, Input{Samples: synth(1, 50)}, quick()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestGradedOnlyAndBinarize(t *testing.T) {
	var s []Sample
	for i := range 20 {
		s = append(s, Sample{Group: fmt.Sprint(i), Score: float64(i) / 20, HasHuman: true, Human: float64(i % 10)})
	}
	res, err := Calibrate(context.Background(), Input{Samples: s}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Threshold != nil || res.Figures != nil || res.Spearman == nil || res.Kendall == nil {
		t.Errorf("graded only: threshold %v figures %v spearman %v", res.Threshold, res.Figures, res.Spearman)
	}
	if _, err := res.Thresholds("s"); !errors.Is(err, ErrNoThreshold) {
		t.Errorf("Thresholds of a graded-only result: %v", err)
	}
	o := quick()
	o.BinarizeAt = 5
	res, err = Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil || res.Threshold == nil || res.Labels.Positive != 10 {
		t.Errorf("binarized: %+v, %v", res, err)
	}
}

func TestCorrelationHandComputed(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5}
	y := []float64{2, 4, 5, 4, 5}
	var s []Sample
	for i := range x {
		s = append(s, Sample{Group: fmt.Sprint(i), Score: x[i], HasHuman: true, Human: y[i]})
	}
	o := quick()
	o.Bootstrap = 0
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Pearson.Value-6/math.Sqrt(60)) > 1e-12 || math.Abs(res.Spearman.Value-7/math.Sqrt(90)) > 1e-12 ||
		math.Abs(res.Kendall.Value-6/math.Sqrt(80)) > 1e-12 {
		t.Errorf("pearson %v spearman %v kendall %v", res.Pearson.Value, res.Spearman.Value, res.Kendall.Value)
	}
	if res.Pearson.CI != "fisher-z" || res.Pearson.Low == nil {
		t.Errorf("without bootstrap, Pearson should get a Fisher-z interval: %+v", res.Pearson)
	}
}

func TestAgreement(t *testing.T) {
	auto := []bool{true, true, false, false, true}
	human := []bool{true, false, false, false, true}
	var v []LabelledVerdict
	for i := range auto {
		v = append(v, LabelledVerdict{Group: fmt.Sprint(i), Ref: fmt.Sprintf("turn %d", i), Auto: auto[i], Human: human[i]})
	}
	a, err := agreement(context.Background(), v, quick())
	if err != nil {
		t.Fatal(err)
	}
	// TP 2, FP 1, TN 2: po = .8, pe = (3*2 + 2*3)/25 = .48.
	if math.Abs(a.Kappa.Value-0.32/0.52) > 1e-12 || a.Accuracy != 0.8 || a.DisagreementCount != 1 ||
		a.Disagreements[0] != "turn 1: aem pass, human fail" || a.Kappa.Low == nil {
		t.Errorf("agreement %+v kappa %+v", a, a.Kappa)
	}
}

func TestFieldThresholdsAndFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	var s []Sample
	add := func(field string, n int, cut float64) {
		for i := range n {
			score := r.Float64()
			s = append(s, Sample{Group: fmt.Sprintf("%s-%d", field, i), SubMetric: metrics.SubTruthValues, Field: field,
				Score: score, HasLabel: true, Label: score >= cut})
		}
	}
	add("crm.find.city", 60, 0.8) // enough labels, its own cut at 0.8
	add("crm.find.name", 60, 0.3) // enough labels, cut at 0.3
	add("crm.find.note", 8, 0.5)  // too few: falls back
	res, err := Calibrate(context.Background(), Input{Samples: s}, quick())
	if err != nil {
		t.Fatal(err)
	}
	city, name, note := res.Fields["crm.find.city"], res.Fields["crm.find.name"], res.Fields["crm.find.note"]
	if city.Threshold == nil || math.Abs(*city.Threshold-0.8) > 0.05 || name.Threshold == nil || math.Abs(*name.Threshold-0.3) > 0.05 {
		t.Errorf("field thresholds: city %v name %v", city.Threshold, name.Threshold)
	}
	if note.Threshold != nil || note.Fallback == "" {
		t.Errorf("note should fall back: %+v", note)
	}
	th, err := res.Thresholds("aem sweep")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := th.Fields["crm.find.note"]; ok || len(th.Fields) != 2 || th.SubMetrics[metrics.SubTruthValues] != *res.SubMetrics[metrics.SubTruthValues].Threshold {
		t.Errorf("thresholds file: %+v", th)
	}
	// Round trip through JSON into the type `aem run --thresholds` reads.
	b, err := json.Marshal(th)
	if err != nil {
		t.Fatal(err)
	}
	var back metrics.Thresholds
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, th) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	cfg := metrics.DefaultConfig()
	cfg.Thresholds = back
	if err := cfg.Validate(); err != nil {
		t.Errorf("aem run would reject the thresholds: %v", err)
	}
	value := func(param string) float64 {
		return back.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Field: param, Param: param}).Value
	}
	if got := value("crm.find.city"); got != *city.Threshold {
		t.Errorf("For(city) = %v, want %v", got, *city.Threshold)
	}
	if got := value("crm.find.note"); got != th.SubMetrics[metrics.SubTruthValues] {
		t.Errorf("For(note) = %v, want the sub-metric threshold", got)
	}
}

func TestThresholdClamped(t *testing.T) {
	// Mostly negatives at the top score 1: accuracy prefers "nothing
	// passes", a threshold just above 1 that the file cannot hold.
	var s []Sample
	for i := range 10 {
		s = append(s, Sample{Group: fmt.Sprint(i), Score: 1, HasLabel: true, Label: i == 0})
	}
	o := quick()
	o.Folds = 0
	o.Objective = Objective{Name: "accuracy"}
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	th, _ := res.Thresholds("")
	if th.Threshold != 1 || res.Threshold.Value <= 1 {
		t.Errorf("threshold %v (fitted %v), want clamped to 1", th.Threshold, res.Threshold.Value)
	}
}

// BenchmarkCalibrate10k calibrates 10,000 labelled samples (binary and
// graded, two sub-metrics, about 3,300 dialogs) with the default options
// (5 folds, 1000 bootstrap replicates).
func BenchmarkCalibrate10k(b *testing.B) {
	in := Input{Samples: synth(1, 3_400)[:10_000]}
	for b.Loop() {
		if _, err := Calibrate(context.Background(), in, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}
