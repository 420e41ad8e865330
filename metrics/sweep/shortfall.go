package sweep

import (
	"fmt"
	"math"
	"strings"
)

// The chosen threshold rests on too few labels (Result.Shortfall) when its
// confidence interval (Options.Level, 95% by default) is wider than
// MaxTrustedWidth, or when a class has fewer than MinTrustedPerClass
// binary labels. The width is the direct measure: a threshold that the
// next labelled dialogs may move by more than 0.1 changes the verdicts
// of every comparison that close to it. The per-class minimum guards the
// width itself: with a handful of labels, the bootstrap resamples the
// same few scores and its interval can look narrow by chance (and a
// composite's threshold, or --bootstrap 0, has no interval at all).
const (
	MinTrustedPerClass = 30
	MaxTrustedWidth    = 0.1
)

// Shortfall says how far the labels a threshold was fitted on fall short
// of what a threshold people can rely on needs, and how many more labels
// of each class would close the gap.
type Shortfall struct {
	// Pass and Fail are the binary labels the global threshold was
	// fitted on.
	Pass int `json:"pass"`
	Fail int `json:"fail"`
	// Low and High are the threshold's confidence interval, Width its
	// width; absent when no interval was made (--bootstrap 0, or a
	// composite's threshold, which is not refitted per replicate).
	Low   *float64 `json:"ci_low,omitempty"`
	High  *float64 `json:"ci_high,omitempty"`
	Width *float64 `json:"ci_width,omitempty"`
	// MorePass and MoreFail are about how many more labels of each class
	// would bring both classes to MinTrustedPerClass and the interval
	// under MaxTrustedWidth (an interval narrows as one over the square
	// root of the labels, the mix of classes kept).
	MorePass int `json:"more_pass"`
	MoreFail int `json:"more_fail"`
	// Reasons say which minimum was missed, in words.
	Reasons []string `json:"reasons"`
}

// shortfall measures the labels of a fitted global threshold against
// MinTrustedPerClass and MaxTrustedWidth; nil when they suffice.
func shortfall(lc LabelCounts, threshold *Estimate, level float64) *Shortfall {
	s := &Shortfall{Pass: lc.Positive, Fail: lc.Negative}
	var reasons []string
	if s.Pass < MinTrustedPerClass || s.Fail < MinTrustedPerClass {
		reasons = append(reasons, fmt.Sprintf("%d pass and %d fail labels, fewer than the %d of each class a threshold needs",
			s.Pass, s.Fail, MinTrustedPerClass))
	}
	scale := 1.0
	if threshold != nil && threshold.Low != nil && threshold.High != nil {
		w := *threshold.High - *threshold.Low
		s.Low, s.High, s.Width = threshold.Low, threshold.High, &w
		if w > MaxTrustedWidth {
			reasons = append(reasons, fmt.Sprintf("its %g%% interval [%.3f, %.3f] is %.3f wide, more than %g",
				100*level, *s.Low, *s.High, w, MaxTrustedWidth))
			scale = (w / MaxTrustedWidth) * (w / MaxTrustedWidth)
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	s.Reasons = reasons
	need := func(have int) int {
		return max(MinTrustedPerClass, int(math.Ceil(float64(have)*scale-1e-9))) - have
	}
	s.MorePass, s.MoreFail = need(s.Pass), need(s.Fail)
	return s
}

// Error says why the threshold is not to be relied on and which labels to
// add, as an *Error wrapping ErrFewLabels; the caller may add where to
// find the turns to label.
func (s *Shortfall) Error(threshold float64) *Error {
	var more []string
	if s.MorePass > 0 {
		more = append(more, fmt.Sprintf("%d more pass", s.MorePass))
	}
	if s.MoreFail > 0 {
		more = append(more, fmt.Sprintf("%d more fail", s.MoreFail))
	}
	return &Error{Err: ErrFewLabels,
		Detail: fmt.Sprintf("the threshold %.4g rests on %s", threshold, strings.Join(s.Reasons, "; ")),
		Fix:    fmt.Sprintf("about %s labels would narrow it", strings.Join(more, " and "))}
}
