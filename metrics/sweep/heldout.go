package sweep

import (
	"context"
	"fmt"
	"math"

	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/stats"
)

// learner is a way of scoring samples that may be fitted: the plain cosine
// (nothing to fit) or the composite (a logistic regression on the
// features). fit fits on the samples at the indices train and returns the
// score of every sample (and the model, for the composite).
type learner interface {
	fit(train []int) ([]float64, *composite.Model, error)
}

// cosineLearner scores a sample by its similarity.
type cosineLearner struct{ scores []float64 }

func (l cosineLearner) fit([]int) ([]float64, *composite.Model, error) { return l.scores, nil, nil }

// compositeLearner fits the composite on the training samples' features.
// A sample may stand for several comparisons (a turn label covers every
// value of the turn): its score is the lowest probability among them, as
// the turn passes only when all do. So every comparison of a passing
// sample is a passing example, while a failing sample says only that some
// comparison fails: the first fit gives all of its comparisons the failing
// label, then, refineRounds times, a failing sample is refitted on its
// comparison least likely to pass under the previous fit.
type compositeLearner struct {
	x      [][]features.Vector // per sample, its comparisons (the lowest-cosine first)
	labels []bool
	l2     float64
}

// refineRounds is how often compositeLearner refits on the comparisons the
// previous fit found least likely to pass.
const refineRounds = 2

func newCompositeLearner(bs []Sample, labels []bool, l2 float64) (compositeLearner, error) {
	x := make([][]features.Vector, len(bs))
	for i, s := range bs {
		if !s.HasFeatures {
			return compositeLearner{}, &Error{Err: ErrNoFeatures, Detail: fmt.Sprintf("%s has a similarity but not the texts it compared", s.Ref),
				Fix: "fit the composite on a run written by this version of aem run, or on --pairs"}
		}
		x[i] = append([]features.Vector{s.Features}, s.Others...)
	}
	return compositeLearner{x: x, labels: labels, l2: l2}, nil
}

func (l compositeLearner) fit(train []int) ([]float64, *composite.Model, error) {
	pick := make([]int, len(l.x)) // the comparison each sample is fitted on; -1: all of them
	for i := range pick {
		pick[i] = -1
	}
	var m *composite.Model
	for round := 0; round <= refineRounds; round++ {
		var xs []features.Vector
		var ys []bool
		for _, i := range train {
			if pick[i] >= 0 && !l.labels[i] {
				xs, ys = append(xs, l.x[i][pick[i]]), append(ys, l.labels[i])
				continue
			}
			for _, v := range l.x[i] {
				xs, ys = append(xs, v), append(ys, l.labels[i])
			}
		}
		var err error
		if m, err = composite.Fit(xs, ys, composite.FitOptions{L2: l.l2}); err != nil {
			return nil, nil, err
		}
		for i := range l.x {
			pick[i], _ = l.lowest(m, i)
		}
	}
	scores := make([]float64, len(l.x))
	for i := range l.x {
		_, scores[i] = l.lowest(m, i)
	}
	return scores, m, nil
}

// lowest is the comparison of sample i least likely to pass, and its probability.
func (l compositeLearner) lowest(m *composite.Model, i int) (int, float64) {
	at, p := 0, m.Probability(l.x[i][0])
	for k, v := range l.x[i][1:] {
		if q := m.Probability(v); q < p {
			at, p = k+1, q
		}
	}
	return at, p
}

// evaluation is a learner fitted on all samples, its threshold chosen by
// the objective, and its cross-validated figures: each sample scored by the
// fit that did not see its fold.
type evaluation struct {
	model    *composite.Model // the composite fitted on all samples, Threshold set; nil for the cosine
	points   []stats.Point    // the in-sample sweep of the final fit's scores
	chosen   int
	inSample stats.Confusion
	folds    *FoldInfo // nil without cross-validation
	// predicted and held are, per sample, the verdict and score of the fit
	// that did not see it (cross-validated) or of the final fit (in-sample).
	predicted []bool
	held      []float64
	figures   stats.Confusion // of predicted
	auc, ap   float64         // of held
}

func (e *evaluation) threshold() float64 { return e.points[e.chosen].Threshold }

// evaluate fits l on all samples and, when folds is not nil, on all but
// each of the used folds in turn.
func evaluate(l learner, labels []bool, folds []int, used int, opts Options) (*evaluation, error) {
	all := make([]int, len(labels))
	for i := range all {
		all[i] = i
	}
	scores, model, err := l.fit(all)
	if err != nil {
		return nil, err
	}
	pts, err := stats.Sweep(scores, labels)
	if err != nil {
		return nil, err
	}
	chosen, err := opts.Objective.Choose(pts)
	if err != nil {
		return nil, err
	}
	e := &evaluation{model: model, points: pts, chosen: chosen, inSample: pts[chosen].Confusion,
		predicted: make([]bool, len(labels)), held: scores}
	if model != nil {
		model.Threshold = clampProbability(e.threshold())
	}
	if folds == nil {
		for i, s := range scores {
			e.predicted[i] = s >= e.threshold()
		}
	} else {
		e.held = make([]float64, len(labels))
		e.folds = &FoldInfo{Requested: opts.Folds, Used: used, Seed: opts.Seed, Sizes: make([]int, used), Thresholds: make([]float64, used)}
		for f := 0; f < used; f++ {
			var train []int
			for i := range labels {
				if folds[i] == f {
					e.folds.Sizes[f]++
				} else {
					train = append(train, i)
				}
			}
			s, _, err := l.fit(train)
			if err != nil {
				return nil, fmt.Errorf("fitting without fold %d: %w", f+1, err)
			}
			ts := make([]float64, len(train))
			tl := make([]bool, len(train))
			for k, i := range train {
				ts[k], tl[k] = s[i], labels[i]
			}
			fp, err := stats.Sweep(ts, tl)
			if err != nil {
				return nil, err
			}
			k, err := opts.Objective.Choose(fp)
			if err != nil {
				return nil, fmt.Errorf("fitting the threshold without fold %d: %w", f+1, err)
			}
			e.folds.Thresholds[f] = fp[k].Threshold
			for i := range labels {
				if folds[i] == f {
					e.held[i], e.predicted[i] = s[i], s[i] >= fp[k].Threshold
				}
			}
		}
		e.folds.Mean, e.folds.SD = stats.MeanSD(e.folds.Thresholds)
		e.folds.Min, e.folds.Max = minMax(e.folds.Thresholds)
	}
	for i, p := range e.predicted {
		e.figures.Add(p, labels[i], 1)
	}
	hp, err := stats.Sweep(e.held, labels)
	if err != nil {
		return nil, err
	}
	if e.auc, err = stats.AUC(hp); err != nil {
		return nil, err
	}
	if e.ap, err = stats.AveragePrecision(hp); err != nil {
		return nil, err
	}
	return e, nil
}

// clampProbability keeps a threshold on probabilities inside [0, 1]: only
// the "nothing passes" candidate just above a top score of 1 lies outside.
func clampProbability(t float64) float64 { return math.Max(0, math.Min(1, t)) }

// headline is the figures an evaluation reports at the top level: held
// out when cross-validated, in-sample otherwise.
func (e *evaluation) block() *Block {
	b := &Block{Threshold: &Estimate{Value: e.threshold()}, Figures: figuresOf(e.figures), ROCAUC: &Estimate{Value: e.auc}}
	if e.model != nil {
		b.Threshold.Value = e.model.Threshold
	}
	return b
}

// heldOut is the evaluation's figures in the form a composite model keeps.
func (e *evaluation) heldOut(labels []bool, cosine *evaluation) *composite.HeldOut {
	h := &composite.HeldOut{Samples: len(labels), Figures: compositeFigures(e), CosineOnly: compositeFigures(cosine)}
	for _, l := range labels {
		if l {
			h.Positive++
		} else {
			h.Negative++
		}
	}
	if e.folds != nil {
		h.Folds = e.folds.Used
	}
	return h
}

func compositeFigures(e *evaluation) composite.Figures {
	c := e.figures
	return composite.Figures{Accuracy: c.Accuracy(), F1: c.F1(), MCC: c.MCC(), ROCAUC: e.auc}
}

// bootstrapIntervals sets the intervals of the evaluation's figures on the
// result: dialogs are resampled, the held-out verdicts and scores kept. The
// threshold is refitted per replicate only for the cosine (refitting the
// composite a thousand times would cost more than it tells).
func bootstrapIntervals(ctx context.Context, res *Result, e *evaluation, labels []bool, groups []int, opts Options) error {
	boot, err := stats.NewBootstrap(groups, opts.Seed)
	if err != nil {
		return err
	}
	sorted, err := stats.NewSorted(e.held, labels)
	if err != nil {
		return err
	}
	const (
		bThr = iota
		bAUC
		bAP
		bF1
		bAcc
		bMCC
		bPrec
		bRec
		bBal
		bKappa
		bN
	)
	vals := make([][]float64, bN)
	var w []float64
	for r := 0; r < opts.Bootstrap; r++ {
		if r%16 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		w = boot.Next(w)
		p := sorted.Sweep(w)
		nan := math.NaN()
		t, a, ap := nan, nan, nan
		if p[0].Positives() > 0 && p[0].Negatives() > 0 {
			if k, err := opts.Objective.Choose(p); err == nil && e.model == nil {
				t = p[k].Threshold
			}
			a, _ = stats.AUC(p)
			ap, _ = stats.AveragePrecision(p)
		}
		var c stats.Confusion
		for i, pred := range e.predicted {
			c.Add(pred, labels[i], w[i])
		}
		for k, v := range []float64{t, a, ap, c.F1(), c.Accuracy(), c.MCC(), c.Precision(), c.Recall(), c.BalancedAccuracy(), c.Kappa()} {
			vals[k] = append(vals[k], v)
		}
	}
	method := fmt.Sprintf("bootstrap by dialog, %d replicates", opts.Bootstrap)
	if e.model == nil {
		withCI(res.Threshold, vals[bThr], opts.Level, method)
	}
	withCI(res.ROCAUC, vals[bAUC], opts.Level, method)
	withCI(res.AveragePrecision, vals[bAP], opts.Level, method)
	f := res.Figures
	for k, est := range []*Estimate{f.F1, f.Accuracy, f.MCC, f.Precision, f.Recall, f.BalancedAccuracy, f.Kappa} {
		withCI(est, vals[bF1+k], opts.Level, method)
	}
	return nil
}
