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
type compositeLearner struct {
	x      []features.Vector
	labels []bool
	l2     float64
}

func (l compositeLearner) fit(train []int) ([]float64, *composite.Model, error) {
	xs := make([]features.Vector, len(train))
	ys := make([]bool, len(train))
	for k, i := range train {
		xs[k], ys[k] = l.x[i], l.labels[i]
	}
	m, err := composite.Fit(xs, ys, composite.FitOptions{L2: l.l2})
	if err != nil {
		return nil, nil, err
	}
	scores := make([]float64, len(l.x))
	for i, v := range l.x {
		scores[i] = m.Probability(v)
	}
	return scores, m, nil
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
