package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Point is the confusion matrix at one candidate threshold.
type Point struct {
	Threshold float64
	Confusion
}

// Sorted holds scored, labelled samples ordered by descending score, so
// that sweeps with different weights (bootstrap replicates) cost O(n) each
// after one O(n log n) sort. It is read-only after NewSorted and safe for
// concurrent use.
type Sorted struct {
	order  []int     // sample indices by descending score (stable)
	scores []float64 // scores in that order
	labels []bool    // labels in that order
	starts []int     // start of each run of equal scores in order, plus len
}

// NewSorted validates and sorts samples. Scores must be finite.
func NewSorted(scores []float64, labels []bool) (*Sorted, error) {
	if len(scores) != len(labels) {
		return nil, fmt.Errorf("sorting scores: %w", ErrLength)
	}
	if len(scores) == 0 {
		return nil, fmt.Errorf("sorting scores: %w", ErrEmpty)
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("score %d is %v: %w", i, s, ErrNaN)
		}
	}
	order := make([]int, len(scores))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	s := &Sorted{order: order, scores: make([]float64, len(order)), labels: make([]bool, len(order))}
	for i, j := range order {
		s.scores[i] = scores[j]
		s.labels[i] = labels[j]
	}
	for i := range s.scores {
		if i == 0 || s.scores[i] != s.scores[i-1] {
			s.starts = append(s.starts, i)
		}
	}
	s.starts = append(s.starts, len(s.scores))
	return s, nil
}

// Distinct is the number of distinct scores.
func (s *Sorted) Distinct() int { return len(s.starts) - 1 }

// Midpoint returns a threshold strictly above lo and at most hi (lo < hi):
// their midpoint, nudged up when rounding would land on lo.
func Midpoint(lo, hi float64) float64 {
	m := lo + (hi-lo)/2
	if m <= lo {
		m = math.Nextafter(lo, math.Inf(1))
	}
	if m > hi {
		m = hi
	}
	return m
}

// Sweep returns the confusion matrix at every candidate threshold, in
// ascending threshold order: the lowest score (everything positive), every
// midpoint between adjacent distinct scores, and the smallest float above
// the highest score (everything negative). weights is indexed like the
// original samples and may be nil; samples of weight 0 still contribute
// their score as a candidate threshold.
func (s *Sorted) Sweep(weights []float64) []Point {
	k := s.Distinct()
	pts := make([]Point, k+1)
	var tot Confusion // all predicted negative
	for i, j := range s.order {
		w := 1.0
		if weights != nil {
			w = weights[j]
		}
		if s.labels[i] {
			tot.FN += w
		} else {
			tot.TN += w
		}
	}
	c := tot
	// pts[k] is above the maximum; walk down through the runs of ties.
	pts[k] = Point{Threshold: math.Nextafter(s.scores[0], math.Inf(1)), Confusion: c}
	for g := 0; g < k; g++ {
		for i := s.starts[g]; i < s.starts[g+1]; i++ {
			w := 1.0
			if weights != nil {
				w = weights[s.order[i]]
			}
			if s.labels[i] {
				c.TP += w
				c.FN -= w
			} else {
				c.FP += w
				c.TN -= w
			}
		}
		t := s.scores[s.starts[g]]
		if g+1 < k {
			t = Midpoint(s.scores[s.starts[g+1]], t)
		}
		pts[k-1-g] = Point{Threshold: t, Confusion: c}
	}
	return pts
}

// Sweep is NewSorted followed by an unweighted Sweep.
func Sweep(scores []float64, labels []bool) ([]Point, error) {
	s, err := NewSorted(scores, labels)
	if err != nil {
		return nil, err
	}
	return s.Sweep(nil), nil
}

// ROCPoint is one vertex of a ROC curve.
type ROCPoint struct{ FPR, TPR, Threshold float64 }

// ROC returns the ROC curve of a sweep from (0,0) to (1,1), ordered by
// descending threshold. Ties in score produce one diagonal segment.
func ROC(pts []Point) []ROCPoint {
	out := make([]ROCPoint, len(pts))
	for i := range pts {
		p := pts[len(pts)-1-i]
		out[i] = ROCPoint{FPR: p.FPR(), TPR: p.TPR(), Threshold: p.Threshold}
	}
	return out
}

// AUC is the area under the ROC curve of a sweep by the trapezoidal rule,
// which scores tied positive/negative pairs as one half (the Mann-Whitney
// statistic). It needs both classes.
func AUC(pts []Point) (float64, error) {
	if len(pts) == 0 {
		return 0, fmt.Errorf("ROC-AUC: %w", ErrEmpty)
	}
	all := pts[0].Confusion
	if all.Positives() <= 0 || all.Negatives() <= 0 {
		return 0, fmt.Errorf("ROC-AUC: %w", ErrOneClass)
	}
	roc := ROC(pts)
	area := 0.0
	for i := 1; i < len(roc); i++ {
		area += (roc[i].FPR - roc[i-1].FPR) * (roc[i].TPR + roc[i-1].TPR) / 2
	}
	return area, nil
}

// AveragePrecision is the step-wise area under the precision-recall curve,
// sum over thresholds (descending) of (R_k - R_{k-1}) * P_k, as
// scikit-learn's average_precision_score. It needs at least one positive.
func AveragePrecision(pts []Point) (float64, error) {
	if len(pts) == 0 {
		return 0, fmt.Errorf("average precision: %w", ErrEmpty)
	}
	if pts[0].Positives() <= 0 {
		return 0, fmt.Errorf("average precision: no positive labels: %w", ErrOneClass)
	}
	ap, prevR := 0.0, 0.0
	for i := len(pts) - 1; i >= 0; i-- {
		p := pts[i]
		if p.TP+p.FP == 0 {
			continue
		}
		r := p.Recall()
		ap += (r - prevR) * p.Precision()
		prevR = r
	}
	return ap, nil
}
