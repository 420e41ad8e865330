package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics/stats"
)

// Objective is what the threshold is chosen to maximise.
//
//	f1           F1 of the "same meaning" class
//	accuracy     accuracy
//	mcc          Matthews correlation
//	youden       Youden's J (TPR - FPR), the ROC point farthest from chance
//	precision@R  precision, among thresholds with recall >= R (0 < R <= 1)
//	recall@P     recall, among thresholds with precision >= P (0 < P <= 1)
//
// When several thresholds tie on the objective, the median of the tied
// thresholds is chosen, which keeps the choice away from the edge of a
// plateau.
type Objective struct {
	Name   string  // "f1", "accuracy", "mcc", "youden", "precision", "recall"
	Target float64 // the constraint R or P for "precision" and "recall"
}

// ParseObjective parses "f1", "accuracy", "mcc", "youden", "precision@0.9"
// or "recall@0.95".
func ParseObjective(s string) (Objective, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	name, target, constrained := strings.Cut(s, "@")
	switch name {
	case "f1", "accuracy", "mcc", "youden":
		if constrained {
			break
		}
		return Objective{Name: name}, nil
	case "precision", "recall":
		if !constrained {
			break
		}
		v, err := strconv.ParseFloat(target, 64)
		if err != nil || !(v > 0 && v <= 1) {
			return Objective{}, &Error{Err: ErrObjective, Detail: fmt.Sprintf("%q: the target after @ must be a number in (0, 1]", s),
				Fix: "write it like precision@0.9"}
		}
		return Objective{Name: name, Target: v}, nil
	}
	return Objective{}, &Error{Err: ErrObjective, Detail: fmt.Sprintf("%q", s),
		Fix: "use one of f1, accuracy, mcc, youden, precision@R (best precision with recall >= R), recall@P (best recall with precision >= P)"}
}

// String is the objective as ParseObjective reads it.
func (o Objective) String() string {
	if o.Name == "precision" || o.Name == "recall" {
		return o.Name + "@" + strconv.FormatFloat(o.Target, 'g', -1, 64)
	}
	return o.Name
}

// Value is the objective at one confusion matrix, and whether the matrix
// satisfies the objective's constraint.
func (o Objective) Value(c stats.Confusion) (float64, bool) {
	const slack = 1e-12
	switch o.Name {
	case "f1":
		return c.F1(), true
	case "accuracy":
		return c.Accuracy(), true
	case "mcc":
		return c.MCC(), true
	case "youden":
		return c.Youden(), true
	case "precision":
		return c.Precision(), c.Recall() >= o.Target-slack
	case "recall":
		return c.Recall(), c.TP+c.FP > 0 && c.Precision() >= o.Target-slack
	}
	return 0, false
}

// Choose returns the index of the sweep point that maximises the objective
// (the median of tied best points).
func (o Objective) Choose(pts []stats.Point) (int, error) {
	const tie = 1e-12
	best := -1.0e300
	var at []int
	for i, p := range pts {
		v, ok := o.Value(p.Confusion)
		if !ok {
			continue
		}
		switch {
		case v > best+tie:
			best, at = v, append(at[:0], i)
		case v >= best-tie:
			at = append(at, i)
		}
	}
	if len(at) == 0 {
		if o.Name == "" {
			return 0, &Error{Err: ErrObjective, Detail: "empty objective", Fix: "use f1, accuracy, mcc, youden, precision@R or recall@P"}
		}
		return 0, &Error{Err: ErrUnreachable, Detail: o.String(),
			Fix: "lower the target after @, or choose another objective"}
	}
	return at[len(at)/2], nil
}
