package stats

import (
	"fmt"
	"math"
)

// Confusion is a 2x2 confusion matrix. Positive means "same meaning"
// (human label pass; score >= threshold). Counts are float64 so weighted
// data fits; with unit weights they are whole numbers.
type Confusion struct {
	TP, FP, TN, FN float64
}

// ConfusionAt counts predictions score >= threshold against labels.
// weights may be nil (every sample counts once).
func ConfusionAt(scores []float64, labels []bool, weights []float64, threshold float64) (Confusion, error) {
	if len(scores) != len(labels) || (weights != nil && len(weights) != len(scores)) {
		return Confusion{}, fmt.Errorf("confusion matrix: %w", ErrLength)
	}
	var c Confusion
	for i, s := range scores {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		c.Add(s >= threshold, labels[i], w)
	}
	return c, nil
}

// ConfusionOf counts predicted against actual verdicts (for agreement of
// two raters). weights may be nil.
func ConfusionOf(predicted, actual []bool, weights []float64) (Confusion, error) {
	if len(predicted) != len(actual) || (weights != nil && len(weights) != len(actual)) {
		return Confusion{}, fmt.Errorf("confusion matrix: %w", ErrLength)
	}
	var c Confusion
	for i := range actual {
		w := 1.0
		if weights != nil {
			w = weights[i]
		}
		c.Add(predicted[i], actual[i], w)
	}
	return c, nil
}

// Add counts one sample of weight w.
func (c *Confusion) Add(predicted, actual bool, w float64) {
	switch {
	case predicted && actual:
		c.TP += w
	case predicted && !actual:
		c.FP += w
	case !predicted && actual:
		c.FN += w
	default:
		c.TN += w
	}
}

// N is the total count.
func (c Confusion) N() float64 { return c.TP + c.FP + c.TN + c.FN }

// Positives is the count of actual positives (TP+FN).
func (c Confusion) Positives() float64 { return c.TP + c.FN }

// Negatives is the count of actual negatives (TN+FP).
func (c Confusion) Negatives() float64 { return c.TN + c.FP }

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Precision is TP/(TP+FP); 0 when nothing is predicted positive.
func (c Confusion) Precision() float64 { return div(c.TP, c.TP+c.FP) }

// Recall is TP/(TP+FN), the true positive rate; 0 with no positives.
func (c Confusion) Recall() float64 { return div(c.TP, c.TP+c.FN) }

// TPR is the true positive rate (recall).
func (c Confusion) TPR() float64 { return c.Recall() }

// FPR is FP/(FP+TN); 0 with no negatives.
func (c Confusion) FPR() float64 { return div(c.FP, c.FP+c.TN) }

// TNR is TN/(TN+FP), the specificity; 0 with no negatives.
func (c Confusion) TNR() float64 { return div(c.TN, c.TN+c.FP) }

// F1 is 2TP/(2TP+FP+FN); 0 when there are no positives at all.
func (c Confusion) F1() float64 { return div(2*c.TP, 2*c.TP+c.FP+c.FN) }

// Accuracy is (TP+TN)/N.
func (c Confusion) Accuracy() float64 { return div(c.TP+c.TN, c.N()) }

// BalancedAccuracy is the mean of TPR and TNR. With only one class
// present it is the rate of that class (as scikit-learn with adjusted=false
// would be undefined; we use the one defined rate).
func (c Confusion) BalancedAccuracy() float64 {
	p, n := c.Positives(), c.Negatives()
	switch {
	case p > 0 && n > 0:
		return (c.TPR() + c.TNR()) / 2
	case p > 0:
		return c.TPR()
	case n > 0:
		return c.TNR()
	}
	return 0
}

// Youden is Youden's J statistic, TPR - FPR.
func (c Confusion) Youden() float64 { return c.TPR() - c.FPR() }

// MCC is the Matthews correlation coefficient; 0 when any row or column
// of the matrix is empty.
func (c Confusion) MCC() float64 {
	d := (c.TP + c.FP) * (c.TP + c.FN) * (c.TN + c.FP) * (c.TN + c.FN)
	if d == 0 {
		return 0
	}
	return (c.TP*c.TN - c.FP*c.FN) / math.Sqrt(d)
}

// Kappa is Cohen's kappa between predictions and labels. It is 0 when the
// chance agreement is 1 (both raters used one and the same class), where
// kappa is undefined.
func (c Confusion) Kappa() float64 {
	n := c.N()
	if n == 0 {
		return 0
	}
	po := (c.TP + c.TN) / n
	pe := ((c.TP+c.FP)*(c.TP+c.FN) + (c.TN+c.FN)*(c.TN+c.FP)) / (n * n)
	if pe >= 1 {
		return 0
	}
	return (po - pe) / (1 - pe)
}
