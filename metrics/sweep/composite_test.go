package sweep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/stats"
)

// numbered makes nd dialogs of labelled reply comparisons in which the
// cosine barely separates the classes (a changed number keeps it high) but
// the number mismatch does: the situation the composite exists for.
func numbered(seed uint64, nd int) []Sample {
	r := rand.New(rand.NewPCG(seed, 2))
	var s []Sample
	for d := range nd {
		for k := range 2 + r.IntN(3) {
			gold := fmt.Sprintf("Revenue in EMEA came to $%d.%dM in Q%d.", 1+r.IntN(90), r.IntN(10), 1+r.IntN(4))
			pred := strings.Replace(gold, "Revenue in EMEA came to", "EMEA revenue was", 1)
			pass := r.Float64() < 0.6
			if !pass {
				pred = strings.Replace(pred, "$", "$1", 1) // another amount
			}
			cosine := 0.8 + 0.1*r.Float64()
			if !pass {
				cosine -= 0.03
			}
			sub := metrics.SubTruthResponse
			if k%2 == 1 {
				sub = metrics.SubTruthValues
			}
			s = append(s, Sample{Group: fmt.Sprintf("d%d", d), SubMetric: sub, Score: cosine, HasLabel: true, Label: pass,
				Features: features.Extract(gold, pred, cosine), HasFeatures: true, Ref: fmt.Sprintf("dialog d%d turn %d", d, k)})
		}
	}
	return s
}

func TestCompositeBeatsCosineOnTheSameFolds(t *testing.T) {
	o := quick()
	o.Fit = true
	o.Bootstrap = 50
	em := composite.EmbeddingModel{ID: "embed:test@sha256:ab", SHA256: "ab"}
	res, err := Calibrate(context.Background(), Input{Samples: numbered(1, 120), EmbeddingModel: em}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.ScoredBy != ScoredByComposite || res.Composite == nil || res.CosineOnly == nil {
		t.Fatalf("scored by %q, composite %v, cosine_only %v", res.ScoredBy, res.Composite, res.CosineOnly)
	}
	if res.Accuracy.Value < res.CosineOnly.Accuracy.Value+0.1 || res.ROCAUC.Value < 0.95 {
		t.Errorf("held-out accuracy: composite %.3f vs cosine %.3f; composite ROC-AUC %.3f",
			res.Accuracy.Value, res.CosineOnly.Accuracy.Value, res.ROCAUC.Value)
	}
	m := res.Composite
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Threshold != res.Threshold.Value || m.EmbeddingModel != em || m.HeldOut == nil || m.HeldOut.Folds != 5 || m.HeldOut.Samples != res.Labels.Binary {
		t.Errorf("model: threshold %v (result %v), embedding %+v, held out %+v", m.Threshold, res.Threshold.Value, m.EmbeddingModel, m.HeldOut)
	}
	if m.HeldOut.Accuracy != res.Accuracy.Value || m.HeldOut.CosineOnly.Accuracy != res.CosineOnly.Accuracy.Value {
		t.Errorf("held-out figures in the model %+v differ from the result's", m.HeldOut)
	}
	// The number mismatch is what separates, so it carries the weight.
	for i, f := range m.Features {
		if f == features.NumberMismatch && m.Coefficients[i] > -1 {
			t.Errorf("number_mismatch coefficient %.3f, want clearly negative", m.Coefficients[i])
		}
	}
	if res.Threshold.Low != nil {
		t.Error("the composite's threshold is not refitted per bootstrap replicate, so it has no interval")
	}
	if res.Accuracy.Low == nil || res.ROCAUC.Low == nil {
		t.Error("held-out figures of the composite lack intervals")
	}
	// Per sub-metric composites, each with its held-out figures.
	for _, k := range []string{metrics.SubTruthResponse, metrics.SubTruthValues} {
		g := res.SubMetrics[k]
		if g == nil || g.Composite == nil || g.Composite.HeldOut == nil || g.Composite.HeldOut.Samples != g.Labels.Binary {
			t.Errorf("sub-metric %s: %+v", k, g)
		}
	}
	if res.Warning != "" {
		t.Errorf("a good fit warns: %s", res.Warning)
	}
	// Without Fit, the same samples give the cosine at the top and in cosine_only alike.
	o.Fit = false
	plain, err := Calibrate(context.Background(), Input{Samples: numbered(1, 120)}, o)
	if err != nil {
		t.Fatal(err)
	}
	if plain.ScoredBy != ScoredByCosine || plain.Composite != nil || plain.Accuracy.Value != res.CosineOnly.Accuracy.Value ||
		plain.CosineOnly.MCC.Value != plain.MCC.Value || plain.CosineOnly.ROCAUC.Value != plain.ROCAUC.Value {
		t.Errorf("without --fit: scored by %q, accuracy %v vs cosine_only %v", plain.ScoredBy, plain.Accuracy.Value, res.CosineOnly.Accuracy.Value)
	}
}

func TestFitNeedsFeatures(t *testing.T) {
	o := quick()
	o.Fit = true
	_, err := Calibrate(context.Background(), Input{Samples: synth(1, 40)}, o)
	var e *Error
	if !errors.Is(err, ErrNoFeatures) || !errors.As(err, &e) || e.Fix == "" {
		t.Errorf("fit without features: %v", err)
	}
}

// TestTooFewLabelsNamesTheCause is the bundled example's situation: ten
// labels in five dialogs, one of them a pass.
func TestTooFewLabelsNamesTheCause(t *testing.T) {
	var s []Sample
	for d := range 5 {
		for k := range 2 {
			s = append(s, Sample{Group: fmt.Sprintf("dlg%d", d), Score: 0.1 * float64(d+k), HasLabel: true, Label: d == 3 && k == 0, Ref: "x"})
		}
	}
	for _, folds := range []int{5, 2} {
		o := quick()
		o.Folds = folds
		_, err := Calibrate(context.Background(), Input{Samples: s}, o)
		var e *Error
		if !errors.Is(err, ErrTooFewLabels) || !errors.As(err, &e) {
			t.Fatalf("folds %d: %v", folds, err)
		}
		for _, want := range []string{"1 pass label(s) from 1 dialog(s) (dlg3)", "9 fail label(s) from 5 dialog(s)", "each class in at least 2 dialogs", "holding out fold"} {
			if !strings.Contains(e.Detail, want) {
				t.Errorf("folds %d: detail %q lacks %q", folds, e.Detail, want)
			}
		}
		if !strings.Contains(e.Fix, "--no-cv") || !strings.Contains(e.Fix, "fewer --folds cannot help") {
			t.Errorf("fix %q", e.Fix)
		}
	}
}

func TestWeakFitWarns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var noise []Sample
	for d := range 60 {
		for range 3 {
			noise = append(noise, Sample{Group: fmt.Sprintf("d%d", d), Score: r.Float64(), HasLabel: true, Label: r.Float64() < 0.75, Ref: "x"})
		}
	}
	res, err := Calibrate(context.Background(), Input{Samples: noise}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Warning == "" || !strings.Contains(res.Warning, "no better than a trivial rule") || !strings.Contains(res.Warning, "ROC-AUC") {
		t.Errorf("labels independent of the scores: warning %q", res.Warning)
	}
	if err := res.Weak(); !errors.Is(err, ErrWeak) {
		t.Errorf("Weak() = %v", err)
	}
	// A good fit is not weak.
	good, err := Calibrate(context.Background(), Input{Samples: synth(1, 120)}, quick())
	if err != nil || good.Warning != "" || good.Weak() != nil {
		t.Errorf("good fit: warning %q, %v", good.Warning, err)
	}
}

func TestWeakAtTheEdge(t *testing.T) {
	// Every failing sample scores above every passing one but the passes
	// dominate: F1 is best when everything passes, a threshold at the
	// lowest score.
	var s []Sample
	for d := range 20 {
		g := fmt.Sprintf("d%d", d)
		s = append(s, Sample{Group: g, Score: 0.1 + 0.01*float64(d), HasLabel: true, Label: true, Ref: g},
			Sample{Group: g, Score: 0.2 + 0.01*float64(d), HasLabel: true, Label: true, Ref: g},
			Sample{Group: g, Score: 0.9, HasLabel: true, Label: d%5 != 0, Ref: g})
	}
	o := quick()
	o.Folds = 0
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Warning, "sits at the lowest score, so every labelled comparison passes") {
		t.Errorf("warning %q (threshold %v)", res.Warning, res.Threshold.Value)
	}
}

func TestAgreementByKind(t *testing.T) {
	v := []LabelledVerdict{
		{Group: "a", Kind: "action", Auto: true, Human: true},
		{Group: "a", Kind: "action", Auto: false, Human: true},
		{Group: "b", Kind: "response", Auto: false, Human: false},
		{Group: "b", Kind: "response", Auto: true, Human: true},
		{Group: "b", Kind: "response", Auto: true, Human: true},
	}
	a, err := agreement(context.Background(), v, quick())
	if err != nil {
		t.Fatal(err)
	}
	if act, resp := a.ByKind["action"], a.ByKind["response"]; act == nil || resp == nil || act.Turns != 2 || act.Accuracy != 0.5 ||
		resp.Turns != 3 || resp.Accuracy != 1 || resp.Kappa != 1 {
		t.Errorf("by kind: %+v %+v", a.ByKind["action"], a.ByKind["response"])
	}
}

// TestCompositeScoresATurnByItsWorstComparison: a turn label covers every
// value of the turn; the changed number sits in a value whose cosine is
// high, while the lowest-cosine value is a harmless paraphrase. Fitted on
// the least likely comparison of each turn, the composite finds it.
func TestCompositeScoresATurnByItsWorstComparison(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var s []Sample
	for d := range 150 {
		pass := r.Float64() < 0.6
		para := features.Extract("New York City", "NYC", 0.55+0.1*r.Float64())
		date := "2024-06-14"
		if !pass {
			date = "2024-06-15"
		}
		num := features.Extract("2024-06-14", date, 0.9+0.05*r.Float64())
		s = append(s, Sample{Group: fmt.Sprintf("d%d", d), SubMetric: metrics.SubTruthValues, Score: para[0], HasLabel: true, Label: pass,
			Features: para, HasFeatures: true, Others: []features.Vector{num}, Ref: fmt.Sprintf("dialog d%d", d)})
	}
	o := quick()
	o.Fit, o.Bootstrap = true, 0
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Accuracy.Value < 0.95 || res.CosineOnly.Accuracy.Value > 0.75 {
		t.Errorf("held-out accuracy: composite %.3f, cosine %.3f", res.Accuracy.Value, res.CosineOnly.Accuracy.Value)
	}
}

// TestRefusalsSayWhereTheLabelsWent: when the comparisons a threshold is
// fitted on have one class, or too few dialogs of one, the refusal counts
// the labels that went elsewhere: turns left out of fitting, with the
// reasons, and replies' coverage samples.
func TestRefusalsSayWhereTheLabelsWent(t *testing.T) {
	sim := func(g string, label bool) Sample {
		return Sample{Group: g, SubMetric: metrics.SubTruthValues, Score: 0.7, HasLabel: true, Label: label, Ref: g + " turn 1"}
	}
	cov := func(g string, label bool) Sample {
		return Sample{Group: g, SubMetric: metrics.SubCompleteResponse, Score: 0.5, HasLabel: true, Label: label, Ref: g + " turn 2"}
	}
	verdicts := func(s []Sample, extra ...LabelledVerdict) []LabelledVerdict {
		var v []LabelledVerdict
		for _, x := range s {
			v = append(v, LabelledVerdict{Group: x.Group, Ref: x.Ref, Human: x.Label})
		}
		return append(v, extra...)
	}
	left := []LabelledVerdict{{Group: "x", Ref: "x turn 5", Human: false}, {Group: "y", Ref: "y turn 5", Human: false}, {Group: "y", Ref: "y turn 6", Human: true}}
	excluded := map[string]int{"no semantic comparison (exact or typed matches only)": 3}

	oneClass := []Sample{sim("a", true), sim("b", true), sim("c", true), cov("a", false), cov("b", false)}
	_, err := Calibrate(context.Background(), Input{Samples: oneClass, Verdicts: verdicts(oneClass, left...), Excluded: excluded}, quick())
	var e *Error
	if !errors.Is(err, ErrOneClass) || !errors.As(err, &e) {
		t.Fatalf("one class: %v", err)
	}
	for _, want := range []string{"all 3 binary labels of the comparisons the similarity threshold is fitted on are pass",
		"3 other labelled turns (1 pass, 2 fail) were left out of fitting: 3 no semantic comparison",
		"2 labels (0 pass, 2 fail) calibrate the coverage of replies (completeness.response)"} {
		if !strings.Contains(e.Detail, want) {
			t.Errorf("one class: detail %q lacks %q", e.Detail, want)
		}
	}

	oneDialog := []Sample{sim("a", true), sim("a", false), sim("b", false), cov("c", true), cov("d", false)}
	_, err = Calibrate(context.Background(), Input{Samples: oneDialog, Verdicts: verdicts(oneDialog)}, quick())
	if !errors.Is(err, ErrTooFewLabels) || !errors.As(err, &e) || !strings.Contains(e.Detail, "1 pass label(s) from 1 dialog(s) (a)") ||
		!strings.Contains(e.Detail, "2 labels (1 pass, 1 fail) calibrate the coverage of replies") {
		t.Errorf("too few: %v", err)
	}
}

// TestCoverageIsFittedOnItsOwn: a reply's coverage is a share, not a
// similarity: it gets its own threshold and never moves the global one,
// and no composite is fitted on it.
func TestCoverageIsFittedOnItsOwn(t *testing.T) {
	var s []Sample
	for d := range 40 {
		g := fmt.Sprintf("d%02d", d)
		// Similarities: pass at 0.6 and above.
		for k, score := range []float64{0.3, 0.55, 0.65, 0.9} {
			s = append(s, Sample{Group: g, SubMetric: metrics.SubTruthValues, Score: score, HasLabel: true, Label: score >= 0.6,
				Ref: fmt.Sprintf("%s v%d", g, k)})
		}
		// Coverage: pass at 0.9 and above, with scores a similarity threshold would misplace.
		for k, score := range []float64{0.5, 0.8, 0.95, 1} {
			s = append(s, Sample{Group: g, SubMetric: metrics.SubCompleteResponse, Score: score, HasLabel: true, Label: score >= 0.9,
				Ref: fmt.Sprintf("%s c%d", g, k)})
		}
	}
	res, err := Calibrate(context.Background(), Input{Samples: s}, quick())
	if err != nil {
		t.Fatal(err)
	}
	if res.Labels.Binary != 160 || res.Threshold.Value < 0.55 || res.Threshold.Value > 0.65 {
		t.Errorf("global: %d labels, threshold %v; want the 160 similarities' threshold in (0.55, 0.65)", res.Labels.Binary, res.Threshold.Value)
	}
	g := res.SubMetrics[metrics.SubCompleteResponse]
	if g == nil || g.Threshold == nil || *g.Threshold < 0.8 || *g.Threshold > 0.95 {
		t.Fatalf("coverage group %+v", g)
	}
	th, err := res.Thresholds("test")
	if err != nil || th.SubMetrics[metrics.SubCompleteResponse] != *g.Threshold {
		t.Errorf("thresholds %+v, %v", th, err)
	}
}

// TestWeaknessAtTheEdge: a threshold at either end of the scores, and fits
// whose held-out verdicts are all one class though the final fit's is
// not, are weak whatever else the figures say.
func TestWeaknessAtTheEdge(t *testing.T) {
	pts := []stats.Point{{Threshold: 0.1}, {Threshold: 0.5}, {Threshold: 0.9}}
	labels := []bool{true, true, false}
	for _, tc := range []struct {
		name    string
		e       evaluation
		contain string
	}{
		{"lowest", evaluation{points: pts, chosen: 0, auc: 0.9, figures: stats.Confusion{TP: 2, FP: 1}}, "sits at the lowest score"},
		{"above the highest", evaluation{points: pts, chosen: 2, auc: 0.9, figures: stats.Confusion{TN: 1, FN: 2}}, "sits above the highest score"},
		{"held out, all pass", evaluation{points: pts, chosen: 1, auc: 0.9, folds: &FoldInfo{}, figures: stats.Confusion{TP: 2, FP: 1}}, "call every labelled comparison a pass"},
		{"held out, none pass", evaluation{points: pts, chosen: 1, auc: 0.9, folds: &FoldInfo{}, figures: stats.Confusion{TN: 1, FN: 2}}, "call no labelled comparison a pass"},
	} {
		w := weakness(&tc.e, labels)
		if !strings.Contains(w, tc.contain) || !strings.HasPrefix(w, weakPrefix) {
			t.Errorf("%s: warning %q lacks %q", tc.name, w, tc.contain)
		}
	}
	good := evaluation{points: pts, chosen: 1, auc: 0.9, folds: &FoldInfo{}, figures: stats.Confusion{TP: 2, TN: 1}}
	if w := weakness(&good, labels); w != "" {
		t.Errorf("a good fit is weak: %q", w)
	}
}

// TestFieldCompositeThresholds: with --fit, a field with labels enough
// for a threshold of its own gets its own threshold on the composite's
// probability too, chosen by the objective on the field's samples scored
// by the composite that applies to them; a field without enough labels
// gets none, and the result lists them for thresholds.json.
func TestFieldCompositeThresholds(t *testing.T) {
	s := numbered(5, 80)
	for i := range s {
		if s[i].SubMetric == metrics.SubTruthValues {
			s[i].Field = "sales.report.amount"
		}
	}
	s = append(s, Sample{Group: "d0", SubMetric: metrics.SubTruthValues, Field: "sales.report.rare", Score: 0.9, HasLabel: true, Label: true,
		Features: features.Extract("a", "a", 0.9), HasFeatures: true, Ref: "dialog d0 turn 9"})
	o := quick()
	o.Fit = true
	res, err := Calibrate(context.Background(), Input{Samples: s}, o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Fields["sales.report.amount"]
	if g == nil || g.Threshold == nil || g.CompositeThreshold == nil {
		t.Fatalf("field group %+v", g)
	}
	m := res.compositeFor(s[1:2])
	if m == nil || m != res.SubMetrics[metrics.SubTruthValues].Composite && m != res.Composite {
		t.Fatalf("composite for the field: %v", m)
	}
	var scores []float64
	var labels []bool
	for _, x := range s {
		if x.Field == "sales.report.amount" {
			scores, labels = append(scores, m.Probability(x.Features)), append(labels, x.Label)
		}
	}
	pts, _ := stats.Sweep(scores, labels)
	k, _ := o.Objective.Choose(pts)
	if *g.CompositeThreshold != pts[k].Threshold {
		t.Errorf("field composite threshold %v, want the objective's choice %v", *g.CompositeThreshold, pts[k].Threshold)
	}
	if r := res.Fields["sales.report.rare"]; r == nil || r.CompositeThreshold != nil {
		t.Errorf("a field with one label: %+v", r)
	}
	if cf := res.CompositeFields(); len(cf) != 1 || cf["sales.report.amount"] != *g.CompositeThreshold {
		t.Errorf("CompositeFields() = %v", cf)
	}
	// Without --fit there is none.
	res, err = Calibrate(context.Background(), Input{Samples: s}, quick())
	if err != nil || res.CompositeFields() != nil {
		t.Errorf("without --fit: %v, %v", res.CompositeFields(), err)
	}
}
