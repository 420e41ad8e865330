package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/stats"
)

// Validate reports options that cannot work.
func (o Options) Validate() error {
	if _, ok := o.Objective.Value(stats.Confusion{}); !ok && o.Objective.Name != "precision" && o.Objective.Name != "recall" {
		return &Error{Err: ErrObjective, Detail: fmt.Sprintf("%q", o.Objective.Name), Fix: "use f1, accuracy, mcc, youden, precision@R or recall@P"}
	}
	if (o.Objective.Name == "precision" || o.Objective.Name == "recall") && !(o.Objective.Target > 0 && o.Objective.Target <= 1) {
		return &Error{Err: ErrObjective, Detail: fmt.Sprintf("%s target %v", o.Objective.Name, o.Objective.Target), Fix: "the target after @ must be in (0, 1]"}
	}
	switch {
	case o.Bootstrap < 0:
		return fmt.Errorf("bootstrap replicates %d: must be >= 0", o.Bootstrap)
	case o.Bootstrap > 0 && !(o.Level > 0 && o.Level < 1):
		return fmt.Errorf("confidence level %v: must be in (0, 1)", o.Level)
	case o.MinLabels < 2 || o.MinPerClass < 1:
		return fmt.Errorf("minimum labels %d (per class %d): need at least 2 (1)", o.MinLabels, o.MinPerClass)
	}
	return nil
}

// Calibrate fits and evaluates thresholds on in. See the package doc.
func Calibrate(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	samples, err := prepare(in.Samples, opts)
	if err != nil {
		return nil, err
	}
	sims := similarities(samples)
	res := &Result{Objective: opts.Objective.String(), Labels: countLabels(sims)}
	lc := res.Labels
	if lc.Binary == 0 && lc.Graded == 0 {
		detail := fmt.Sprintf("%d scored samples, none with a human label or score", len(in.Samples))
		if len(in.Verdicts) > 0 {
			detail = fmt.Sprintf("%d turns carry a human label, but none of their verdicts depended on the similarity scorer (exact matches, structure or key failures)", len(in.Verdicts))
		}
		return nil, &Error{Err: ErrNoLabels, Detail: detail,
			Fix: "add human_label (pass/fail) and/or human_score to turns whose values or replies are compared semantically and rerun aem run, give a labels file (--labels), or calibrate on labelled text pairs (--pairs)"}
	}
	if lc.Binary > 0 && (lc.Positive == 0 || lc.Negative == 0) {
		return nil, oneClass(lc, samples, in)
	}

	var binary []Sample
	for _, s := range sims {
		if s.HasLabel {
			binary = append(binary, s)
		}
	}
	if len(binary) > 0 {
		if err := fitGlobal(ctx, res, binary, in, opts); err != nil {
			var e *Error
			if errors.As(err, &e) && errors.Is(e.Err, ErrTooFewLabels) {
				e.Detail += labelsElsewhere(samples, in)
			}
			return nil, err
		}
		res.Evaluation = "in-sample (fitted and scored on the same rows: optimistic)"
		if res.Folds != nil {
			res.Evaluation = fmt.Sprintf("cross-validated (%d folds by dialog, or by group for pairs; threshold fitted on the other folds, scored on the held-out one)", res.Folds.Used)
		}
	} else {
		res.Evaluation = "correlation only (no binary labels, so no threshold is fitted)"
		res.Warnings = append(res.Warnings, "no binary labels: no threshold fitted; give human_label (or --binarize-at) to fit one")
	}
	res.Correlations, err = correlate(ctx, sims, opts, &res.Warnings, "all")
	if err != nil {
		return nil, err
	}
	if err := fitGroups(ctx, res, samples, in, opts); err != nil {
		return nil, err
	}
	res.Agreement, err = agreement(ctx, in.Verdicts, opts)
	if err != nil {
		return nil, err
	}
	if res.JudgeAgreement, err = judgeAgreement(ctx, in.Verdicts, opts); err != nil {
		return nil, err
	}
	return res, nil
}

// similarities are the samples whose score is a similarity (a cosine, a
// judge's score): every sub-metric but a reply's coverage, which is a
// share calibrated on its own (metrics.SubCompleteResponse). The global
// threshold and the composite are fitted on them.
func similarities(s []Sample) []Sample {
	out := make([]Sample, 0, len(s))
	for _, x := range s {
		if x.SubMetric != metrics.SubCompleteResponse {
			out = append(out, x)
		}
	}
	return out
}

// oneClass is the refusal when the binary labels of the comparisons a
// threshold is fitted on are all of one class: it says where the labels
// of the other class went (turns left out of fitting, coverage samples).
func oneClass(lc LabelCounts, samples []Sample, in Input) error {
	have, need := "pass", "failing"
	if lc.Positive == 0 {
		have, need = "fail", "passing"
	}
	detail := fmt.Sprintf("all %d binary labels of the comparisons the similarity threshold is fitted on are %s", lc.Binary, have) +
		labelsElsewhere(samples, in)
	return &Error{Err: ErrOneClass, Detail: detail,
		Fix: fmt.Sprintf("a threshold separates two classes: label some %s cases among the values and replies the scorer compares (a few dozen of each class is a useful start)", need)}
}

// labelsElsewhere says where the labels that the similarity threshold is
// not fitted on went: turns left out of fitting (with the reasons), and
// replies' coverage samples; "" when none went elsewhere.
func labelsElsewhere(samples []Sample, in Input) string {
	fitted := map[string]bool{}
	var cover [2]int
	for _, s := range samples {
		fitted[s.Ref] = true
		if s.SubMetric == metrics.SubCompleteResponse && s.HasLabel {
			cover[b2i(s.Label)]++
		}
	}
	var left [2]int
	for _, v := range in.Verdicts {
		if !fitted[v.Ref] {
			left[b2i(v.Human)]++
		}
	}
	var out string
	if n := left[0] + left[1]; n > 0 {
		out += fmt.Sprintf("; %d other labelled turns (%d pass, %d fail) were left out of fitting", n, left[1], left[0])
		if len(in.Excluded) > 0 {
			var why []string
			for _, k := range sortedKeys(in.Excluded) {
				why = append(why, fmt.Sprintf("%d %s", in.Excluded[k], k))
			}
			out += ": " + strings.Join(why, "; ")
		}
	}
	if cover[0]+cover[1] > 0 {
		out += fmt.Sprintf("; %d labels (%d pass, %d fail) calibrate the coverage of replies (%s) on its own, not being similarities",
			cover[0]+cover[1], cover[1], cover[0], metrics.SubCompleteResponse)
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func prepare(in []Sample, opts Options) ([]Sample, error) {
	out := make([]Sample, 0, len(in))
	for _, s := range in {
		if s.HasLabel || s.HasHuman || !math.IsNaN(opts.BinarizeAt) {
			if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
				return nil, &Error{Err: ErrNaNScore, Detail: fmt.Sprintf("similarity of %s is %v", s.Ref, s.Score),
					Fix: "the scorer produced no usable similarity (an empty text?): fix or remove that row, or rerun aem run"}
			}
			if s.HasHuman && (math.IsNaN(s.Human) || math.IsInf(s.Human, 0)) {
				return nil, &Error{Err: ErrNaNScore, Detail: fmt.Sprintf("human score of %s is %v", s.Ref, s.Human),
					Fix: "give a number or leave human_score empty"}
			}
		}
		if !s.HasLabel && s.HasHuman && !math.IsNaN(opts.BinarizeAt) {
			s.HasLabel, s.Label = true, s.Human >= opts.BinarizeAt
		}
		if s.HasLabel || s.HasHuman {
			out = append(out, s)
		}
	}
	return out, nil
}

func countLabels(s []Sample) LabelCounts {
	c := LabelCounts{Samples: len(s)}
	groups := map[string]bool{}
	for _, x := range s {
		groups[x.Group] = true
		if x.HasLabel {
			c.Binary++
			if x.Label {
				c.Positive++
			} else {
				c.Negative++
			}
		}
		if x.HasHuman {
			c.Graded++
		}
	}
	c.Groups = len(groups)
	return c
}

func columns(s []Sample) (scores []float64, labels []bool, groups []int) {
	scores = make([]float64, len(s))
	labels = make([]bool, len(s))
	names := make([]string, len(s))
	for i, x := range s {
		scores[i], labels[i], names[i] = x.Score, x.Label, x.Group
	}
	groups, _ = stats.GroupIndex(names)
	return scores, labels, groups
}

// fitGlobal fits the global threshold on binary samples (and, with
// Options.Fit, the composite), cross-validates both on the same folds and
// bootstraps intervals for the chosen one.
func fitGlobal(ctx context.Context, res *Result, bs []Sample, in Input, opts Options) error {
	scores, labels, groups := columns(bs)
	var folds []int
	used := 0
	if opts.Folds >= 2 {
		var err error
		if folds, used, err = splitFolds(bs, groups, labels, opts); err != nil {
			return err
		}
		if used < opts.Folds {
			res.Warnings = append(res.Warnings, fmt.Sprintf("cross-validation used %d folds instead of %d: with %d folds some held-out fold would leave a class with no label to fit on (%s)",
				used, opts.Folds, opts.Folds, classSpread(bs, labels)))
		}
	}
	cos, err := evaluate(cosineLearner{scores}, labels, folds, used, opts)
	if err != nil {
		return err
	}
	res.CosineOnly = cos.block()
	chosen := cos
	res.ScoredBy = ScoredByCosine
	if opts.Fit {
		cl, err := newCompositeLearner(bs, labels, opts.L2)
		if err != nil {
			return err
		}
		comp, err := evaluate(cl, labels, folds, used, opts)
		if err != nil {
			return err
		}
		comp.model.EmbeddingModel = in.EmbeddingModel
		comp.model.HeldOut = comp.heldOut(labels, cos)
		res.Composite, chosen, res.ScoredBy = comp.model, comp, ScoredByComposite
	}
	res.Points, res.Chosen = chosen.points, chosen.chosen
	res.Threshold = &Estimate{Value: chosen.block().Threshold.Value}
	res.InSample = figuresOf(chosen.inSample)
	res.ROCAUC, res.AveragePrecision = &Estimate{Value: chosen.auc}, &Estimate{Value: chosen.ap}
	res.Folds = chosen.folds
	res.Figures = figuresOf(chosen.figures)
	if folds == nil {
		res.InSample = nil // the main figures are already in-sample
	}
	res.Warning = weakness(chosen, labels)
	var fitted *evaluation // the composite's
	if res.ScoredBy == ScoredByComposite {
		fitted = chosen
	}
	band, warnings, err := judgeBand(cos, fitted, labels)
	if err != nil {
		return err
	}
	res.JudgeBand, res.Warnings = band, append(res.Warnings, warnings...)
	if opts.Bootstrap > 0 {
		if err := bootstrapIntervals(ctx, res, chosen, labels, groups, opts); err != nil {
			return err
		}
	}
	res.Shortfall = shortfall(countLabels(bs), res.Threshold, opts.Level)
	return nil
}

// weakness says why a fit is no better than a trivial rule, or "".
func weakness(e *evaluation, labels []bool) string {
	var why []string
	how := "held-out"
	if e.folds == nil {
		how = "in-sample"
	}
	if mcc := e.figures.MCC(); mcc <= WeakMCC {
		why = append(why, fmt.Sprintf("%s MCC %.3f (at most %g)", how, mcc, WeakMCC))
	}
	if e.auc <= WeakROCAUC {
		why = append(why, fmt.Sprintf("ROC-AUC %.3f (at most %g)", e.auc, WeakROCAUC))
	}
	switch f := e.figures; {
	case e.chosen == 0:
		why = append(why, fmt.Sprintf("the threshold %.4g sits at the lowest score, so every labelled comparison passes", e.threshold()))
	case e.chosen == len(e.points)-1:
		why = append(why, fmt.Sprintf("the threshold %.4g sits above the highest score, so no labelled comparison passes", e.threshold()))
	case e.folds != nil && f.TP+f.FP == 0:
		why = append(why, "held out, the fits call no labelled comparison a pass: their thresholds sit at the edge of the scores")
	case e.folds != nil && f.TN+f.FN == 0:
		why = append(why, "held out, the fits call every labelled comparison a pass: their thresholds sit at the edge of the scores")
	}
	if len(why) == 0 {
		return ""
	}
	pos := 0
	for _, l := range labels {
		if l {
			pos++
		}
	}
	major := max(pos, len(labels)-pos)
	return weakPrefix + fmt.Sprintf("%s; calling every one of the %d labelled comparisons the majority class (%d pass, %d fail) would be %.1f%% right. The scores do not separate the human labels",
		strings.Join(why, ", "), len(labels), pos, len(labels)-pos, 100*float64(major)/float64(len(labels)))
}

// weakPrefix opens Result.Warning; Weak leaves it out, ErrWeak saying it.
const weakPrefix = "the fit is no better than a trivial rule: "

// classSpread says how many labels of each class there are and how many
// dialogs (groups) hold them, naming the groups when there are few.
func classSpread(bs []Sample, labels []bool) string {
	var parts []string
	for _, class := range []bool{true, false} {
		name := "fail"
		if class {
			name = "pass"
		}
		n := 0
		var groups []string
		seen := map[string]bool{}
		for i, s := range bs {
			if labels[i] != class {
				continue
			}
			n++
			if !seen[s.Group] {
				seen[s.Group] = true
				groups = append(groups, s.Group)
			}
		}
		where := fmt.Sprintf("%d dialog(s)", len(groups))
		if len(groups) > 0 && len(groups) <= 3 {
			where += " (" + strings.Join(groups, ", ") + ")"
		}
		parts = append(parts, fmt.Sprintf("%d %s label(s) from %s", n, name, where))
	}
	return strings.Join(parts, ", ")
}

// splitFolds finds the largest k <= opts.Folds for which every training
// part holds both classes. When no k >= 2 works it says why: a class whose
// labels all come from one dialog can never be both held out and fitted
// on; otherwise it shows the two-fold split's counts.
func splitFolds(bs []Sample, groups []int, labels []bool, opts Options) (folds []int, k int, err error) {
	ng := 0
	for _, g := range groups {
		ng = max(ng, g+1)
	}
	perFold := ""
	for k = min(opts.Folds, ng); k >= 2; k-- {
		folds, err = stats.KFoldByGroup(groups, labels, k, opts.Seed)
		if err != nil {
			return nil, 0, err
		}
		var bad []string
		for f := 0; f < k; f++ {
			var pos, neg, testPos, testNeg int
			for i := range labels {
				switch {
				case folds[i] == f && labels[i]:
					testPos++
				case folds[i] == f:
					testNeg++
				case labels[i]:
					pos++
				default:
					neg++
				}
			}
			if testPos+testNeg == 0 || pos == 0 || neg == 0 {
				bad = append(bad, fmt.Sprintf("holding out fold %d (%d pass, %d fail) leaves %d pass and %d fail to fit on", f+1, testPos, testNeg, pos, neg))
			}
		}
		if len(bad) == 0 {
			return folds, k, nil
		}
		perFold = fmt.Sprintf("; with %d folds, %s", k, strings.Join(bad, "; "))
	}
	detail := fmt.Sprintf("the %d binary labels are %s; cross-validation by dialog needs each class in at least 2 dialogs, so that holding out any fold leaves both classes to fit on",
		len(labels), classSpread(bs, labels))
	if ng >= 2 {
		detail += perFold
	}
	return nil, 0, &Error{Err: ErrTooFewLabels, Detail: detail,
		Fix: "label turns of the rarer class in more dialogs, or pass --no-cv to fit and score on the same rows (in-sample figures, optimistic); fewer --folds cannot help, every count down to 2 was tried"}
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

func figuresOf(c stats.Confusion) *Figures {
	e := func(v float64) *Estimate { return &Estimate{Value: v} }
	return &Figures{Confusion: countsOf(c), F1: e(c.F1()), Accuracy: e(c.Accuracy()), MCC: e(c.MCC()),
		Precision: e(c.Precision()), Recall: e(c.Recall()), BalancedAccuracy: e(c.BalancedAccuracy()), Kappa: e(c.Kappa())}
}

func withCI(e *Estimate, vals []float64, level float64, method string) {
	if e == nil {
		return
	}
	if lo, hi, ok := stats.PercentileCI(vals, level); ok {
		e.Low, e.High, e.CI = &lo, &hi, method
	}
}

// correlate relates scores to graded human scores (Pearson, Spearman,
// Kendall) and to binary labels (point-biserial). Undefined figures (a
// constant series, fewer than 3 points) are left out with a warning.
func correlate(ctx context.Context, s []Sample, opts Options, warn *[]string, scope string) (*Correlations, error) {
	var gx, gy []float64
	var gg []string
	var bx []float64
	var bl []bool
	var bg []string
	for _, x := range s {
		if x.HasHuman {
			gx, gy, gg = append(gx, x.Score), append(gy, x.Human), append(gg, x.Group)
		}
		if x.HasLabel {
			bx, bl, bg = append(bx, x.Score), append(bl, x.Label), append(bg, x.Group)
		}
	}
	c := &Correlations{GradedN: len(gx)}
	if len(gx) > 0 {
		p, err := stats.NewPaired(gx, gy)
		if err != nil {
			return nil, err
		}
		for _, k := range []struct {
			name string
			f    func(w []float64) (float64, error)
			dst  **Estimate
		}{{"Pearson", p.Pearson, &c.Pearson}, {"Spearman", p.Spearman, &c.Spearman}, {"Kendall", p.Kendall, &c.Kendall}} {
			e, err := estimateCorr(ctx, k.f, len(gx), gg, opts, k.name == "Pearson")
			if err != nil {
				if !errors.Is(err, stats.ErrUndefined) {
					return nil, err
				}
				*warn = append(*warn, fmt.Sprintf("%s: %s correlation with human_score left out: %v", scope, k.name, err))
				continue
			}
			*k.dst = e
		}
	}
	if len(bx) > 0 {
		y := make([]float64, len(bl))
		for i, l := range bl {
			if l {
				y[i] = 1
			}
		}
		p, err := stats.NewPaired(bx, y)
		if err != nil {
			return nil, err
		}
		e, err := estimateCorr(ctx, p.Pearson, len(bx), bg, opts, true)
		if err != nil {
			if !errors.Is(err, stats.ErrUndefined) {
				return nil, err
			}
			*warn = append(*warn, fmt.Sprintf("%s: point-biserial correlation with human_label left out: %v", scope, err))
		} else {
			c.PointBiserial = e
		}
	}
	if c.Pearson == nil && c.Spearman == nil && c.Kendall == nil && c.PointBiserial == nil && c.GradedN == 0 {
		return nil, nil
	}
	return c, nil
}

// estimateCorr computes a correlation (f with nil weights) and its
// interval: a cluster bootstrap by group (f with replicate weights), or
// without bootstrap the Fisher-z interval for Pearson-type correlations.
func estimateCorr(ctx context.Context, f func(w []float64) (float64, error), n int, group []string, opts Options, fisher bool) (*Estimate, error) {
	v, err := f(nil)
	if err != nil {
		return nil, err
	}
	e := &Estimate{Value: v}
	if opts.Bootstrap == 0 {
		if fisher {
			if lo, hi, err := stats.FisherZCI(v, n, opts.Level); err == nil {
				e.Low, e.High, e.CI = &lo, &hi, "fisher-z"
			}
		}
		return e, nil
	}
	err = bootstrapCI(ctx, e, group, opts, func(w []float64) float64 {
		b, err := f(w)
		if err != nil {
			return math.NaN()
		}
		return b
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// bootstrapCI sets e's interval from opts.Bootstrap cluster-bootstrap
// replicates (resampling the groups, seeded by opts.Seed) of stat, which
// computes the statistic under replicate weights w.
func bootstrapCI(ctx context.Context, e *Estimate, group []string, opts Options, stat func(w []float64) float64) error {
	groups, _ := stats.GroupIndex(group)
	boot, err := stats.NewBootstrap(groups, opts.Seed)
	if err != nil {
		return err
	}
	var w []float64
	vals := make([]float64, 0, opts.Bootstrap)
	for r := 0; r < opts.Bootstrap; r++ {
		if r%16 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		w = boot.Next(w)
		vals = append(vals, stat(w))
	}
	withCI(e, vals, opts.Level, fmt.Sprintf("bootstrap by dialog, %d replicates", opts.Bootstrap))
	return nil
}

// fitGroups fits per-sub-metric, per-kind and per-field thresholds.
func fitGroups(ctx context.Context, res *Result, s []Sample, in Input, opts Options) error {
	bySub := map[string][]Sample{}
	byKind := map[string][]Sample{}
	byField := map[string][]Sample{}
	for _, x := range s {
		if x.SubMetric != "" {
			bySub[x.SubMetric] = append(bySub[x.SubMetric], x)
		}
		if x.Kind != "" {
			byKind[x.Kind] = append(byKind[x.Kind], x)
		}
		if x.Field != "" {
			byField[x.Field] = append(byField[x.Field], x)
		}
	}
	if len(bySub) > 0 {
		res.SubMetrics = map[string]*GroupResult{}
		for _, k := range sortedKeys(bySub) {
			g, err := fitGroup(ctx, bySub[k], opts, true, &res.Warnings, k)
			if err != nil {
				return fmt.Errorf("sub-metric %s: %w", k, err)
			}
			if opts.Fit && g.Threshold != nil && k != metrics.SubCompleteResponse {
				if g.Composite, err = fitGroupComposite(bySub[k], in, opts); err != nil {
					res.Warnings = append(res.Warnings, fmt.Sprintf("sub-metric %s: no composite of its own, the global one applies: %v", k, err))
				}
			}
			res.SubMetrics[k] = g
		}
	}
	if len(byKind) > 0 {
		res.Kinds = map[string]*GroupResult{}
		for _, k := range sortedKeys(byKind) {
			g, err := fitGroup(ctx, byKind[k], opts, false, &res.Warnings, "kind "+k)
			if err != nil {
				return fmt.Errorf("kind %s: %w", k, err)
			}
			if opts.Fit && g.Threshold != nil {
				if g.Composite, err = fitGroupComposite(byKind[k], in, opts); err != nil {
					res.Warnings = append(res.Warnings, fmt.Sprintf("kind %s: no composite of its own, the more general one applies: %v", k, err))
				}
			}
			res.Kinds[k] = g
		}
	}
	if len(byField) > 0 {
		res.Fields = map[string]*GroupResult{}
		for _, k := range sortedKeys(byField) {
			g, err := fitGroup(ctx, byField[k], opts, false, &res.Warnings, k)
			if err != nil {
				return fmt.Errorf("field %s: %w", k, err)
			}
			if m := res.compositeFor(byField[k]); m != nil && g.Threshold != nil {
				g.CompositeThreshold = compositeThreshold(m, byField[k], opts)
			}
			res.Fields[k] = g
		}
	}
	return nil
}

// compositeFor is the composite that scores samples of one field (all of
// one sub-metric): the sub-metric's own, else the default one; nil
// without Options.Fit.
func (r *Result) compositeFor(s []Sample) *composite.Model {
	if r.Composite == nil || len(s) == 0 {
		return nil
	}
	if g := r.SubMetrics[s[0].SubMetric]; g != nil && g.Composite != nil {
		return g.Composite
	}
	return r.Composite
}

// compositeThreshold is a field's own threshold on the composite's
// probability, chosen by the objective on the field's binary samples as a
// field's own cosine threshold is (in-sample), each sample scored by its
// least likely comparison; nil when a sample lacks its features or the
// objective cannot be met.
func compositeThreshold(m *composite.Model, s []Sample, opts Options) *float64 {
	var scores []float64
	var labels []bool
	for _, x := range s {
		if !x.HasLabel {
			continue
		}
		if !x.HasFeatures {
			return nil
		}
		p := m.Probability(x.Features)
		for _, o := range x.Others {
			p = math.Min(p, m.Probability(o))
		}
		scores, labels = append(scores, p), append(labels, x.Label)
	}
	pts, err := stats.Sweep(scores, labels)
	if err != nil {
		return nil
	}
	k, err := opts.Objective.Choose(pts)
	if err != nil {
		return nil
	}
	t := clampProbability(pts[k].Threshold)
	return &t
}

// CompositeFields are the fields' own thresholds on the composite's
// probability (GroupResult.CompositeThreshold); nil when none has one.
func (r *Result) CompositeFields() map[string]float64 {
	var out map[string]float64
	for k, g := range r.Fields {
		if g.CompositeThreshold != nil {
			if out == nil {
				out = map[string]float64{}
			}
			out[k] = *g.CompositeThreshold
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func fitGroup(ctx context.Context, s []Sample, opts Options, withCorr bool, warn *[]string, scope string) (*GroupResult, error) {
	g := &GroupResult{Labels: countLabels(s)}
	lc := g.Labels
	var bs []Sample
	for _, x := range s {
		if x.HasLabel {
			bs = append(bs, x)
		}
	}
	if lc.Positive > 0 && lc.Negative > 0 {
		scores, labels, _ := columns(bs)
		pts, err := stats.Sweep(scores, labels)
		if err != nil {
			return nil, err
		}
		g.Points = pts
		auc, _ := stats.AUC(pts)
		g.ROCAUC = &auc
		if lc.Binary >= opts.MinLabels && lc.Positive >= opts.MinPerClass && lc.Negative >= opts.MinPerClass {
			k, err := opts.Objective.Choose(pts)
			if err != nil {
				g.Fallback = fmt.Sprintf("%v", err)
			} else {
				t := pts[k].Threshold
				g.Threshold = &t
				g.InSample = figuresOf(pts[k].Confusion)
			}
		}
	}
	if g.Threshold == nil && g.Fallback == "" {
		g.Fallback = fmt.Sprintf("%d binary labels (%d pass, %d fail); a threshold of its own needs %d with %d of each class, so the more general threshold applies",
			lc.Binary, lc.Positive, lc.Negative, opts.MinLabels, opts.MinPerClass)
	}
	if withCorr {
		c, err := correlate(ctx, s, opts, warn, scope)
		if err != nil {
			return nil, err
		}
		g.Correlations = c
	}
	return g, nil
}

// fitGroupComposite fits and cross-validates a composite on one
// sub-metric's binary samples.
func fitGroupComposite(s []Sample, in Input, opts Options) (*composite.Model, error) {
	var bs []Sample
	for _, x := range s {
		if x.HasLabel {
			bs = append(bs, x)
		}
	}
	scores, labels, groups := columns(bs)
	cl, err := newCompositeLearner(bs, labels, opts.L2)
	if err != nil {
		return nil, err
	}
	var folds []int
	used := 0
	if opts.Folds >= 2 {
		if folds, used, err = splitFolds(bs, groups, labels, opts); err != nil {
			return nil, err
		}
	}
	cos, err := evaluate(cosineLearner{scores}, labels, folds, used, opts)
	if err != nil {
		return nil, err
	}
	comp, err := evaluate(cl, labels, folds, used, opts)
	if err != nil {
		return nil, err
	}
	comp.model.EmbeddingModel = in.EmbeddingModel
	comp.model.HeldOut = comp.heldOut(labels, cos)
	return comp.model, nil
}

func agreement(ctx context.Context, v []LabelledVerdict, opts Options) (*Agreement, error) {
	if len(v) == 0 {
		return nil, nil
	}
	auto := make([]bool, len(v))
	human := make([]bool, len(v))
	names := make([]string, len(v))
	a := &Agreement{Turns: len(v)}
	for i, x := range v {
		auto[i], human[i], names[i] = x.Auto, x.Human, x.Group
		if x.Auto != x.Human {
			a.DisagreementCount++
			if len(a.Disagreements) < 20 {
				verdict := "aem fail, human pass"
				if x.Auto {
					verdict = "aem pass, human fail"
				}
				a.Disagreements = append(a.Disagreements, x.Ref+": "+verdict)
			}
		}
	}
	c, err := stats.ConfusionOf(auto, human, nil)
	if err != nil {
		return nil, err
	}
	a.Confusion, a.Accuracy, a.Kappa = countsOf(c), c.Accuracy(), &Estimate{Value: c.Kappa()}
	byKind := map[string]*stats.Confusion{}
	for _, x := range v {
		if x.Kind == "" {
			continue
		}
		if byKind[x.Kind] == nil {
			byKind[x.Kind] = &stats.Confusion{}
		}
		byKind[x.Kind].Add(x.Auto, x.Human, 1)
	}
	if len(byKind) > 0 {
		a.ByKind = map[string]*KindAgreement{}
		for k, c := range byKind {
			a.ByKind[k] = &KindAgreement{Turns: int(c.N()), Confusion: countsOf(*c), Accuracy: c.Accuracy(), Kappa: c.Kappa()}
		}
	}
	if opts.Bootstrap > 0 {
		err := bootstrapCI(ctx, a.Kappa, names, opts, func(w []float64) float64 {
			c, _ := stats.ConfusionOf(auto, human, w)
			return c.Kappa()
		})
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Thresholds turns the fit into the thresholds `aem run --thresholds`
// applies (package thresholds writes them as thresholds.json): the global
// cosine threshold (the plain cosine's, also when the composite was
// chosen: the composites' own thresholds travel with their models, see
// Composites) plus the sub-metric, value kind and field thresholds that had enough
// labels (the others fall back, as metrics.Thresholds.For does); a reply's
// coverage (completeness.response) is a share, kept in [0, 1]. source
// says where they came from.
func (r *Result) Thresholds(source string) (metrics.Thresholds, error) {
	if r.Threshold == nil {
		return metrics.Thresholds{}, &Error{Err: ErrNoThreshold, Detail: "only graded human scores were given",
			Fix: "give binary labels (human_label, a label column) or derive them with --binarize-at"}
	}
	global := r.Threshold.Value
	if r.CosineOnly != nil && r.CosineOnly.Threshold != nil {
		global = r.CosineOnly.Threshold.Value
	}
	t := metrics.Thresholds{Threshold: clampUnit(global), Source: source}
	for k, g := range r.SubMetrics {
		if g.Threshold != nil {
			if t.SubMetrics == nil {
				t.SubMetrics = map[string]float64{}
			}
			t.SubMetrics[k] = clampUnit(*g.Threshold)
			if k == metrics.SubCompleteResponse {
				t.SubMetrics[k] = math.Max(0, math.Min(1, *g.Threshold))
			}
		}
	}
	for k, g := range r.Kinds {
		if g.Threshold != nil {
			if t.Kinds == nil {
				t.Kinds = map[string]float64{}
			}
			t.Kinds[k] = clampUnit(*g.Threshold)
		}
	}
	for k, g := range r.Fields {
		if g.Threshold != nil {
			if t.Fields == nil {
				t.Fields = map[string]float64{}
			}
			t.Fields[k] = clampUnit(*g.Threshold)
		}
	}
	return t, nil
}

// Composites are the fitted composites by what they apply to: the one
// fitted on every labelled comparison as metrics.CompositeDefault, each
// sub-metric's own, and each value kind's own (metrics.KindKey: "kinds.name");
// nil without Options.Fit.
func (r *Result) Composites() map[string]*composite.Model {
	if r.Composite == nil {
		return nil
	}
	out := map[string]*composite.Model{metrics.CompositeDefault: r.Composite}
	for k, g := range r.SubMetrics {
		if g.Composite != nil {
			out[k] = g.Composite
		}
	}
	for k, g := range r.Kinds {
		if g.Composite != nil {
			out[metrics.KindKey(k)] = g.Composite
		}
	}
	return out
}

// clampUnit keeps a threshold inside [-1, 1], the range of similarities
// and of the thresholds file. Only the "nothing passes" candidate (just
// above a top score of 1) lies outside.
func clampUnit(t float64) float64 { return math.Max(-1, math.Min(1, t)) }
