package sweep

import "errors"

// Sentinel errors. Calibrate returns them inside an *Error that says what
// was found and what the user can do; test with errors.Is.
var (
	// ErrNoLabels means no sample carries a human label or score.
	ErrNoLabels = errors.New("no human labels to calibrate against")
	// ErrOneClass means every binary label is the same.
	ErrOneClass = errors.New("human labels are all of one class")
	// ErrTooFewLabels means there are too few labels or labelled groups for
	// cross-validation.
	ErrTooFewLabels = errors.New("too few labels for cross-validation")
	// ErrNaNScore means a sample's similarity or human score is NaN or
	// infinite.
	ErrNaNScore = errors.New("score is NaN or infinite")
	// ErrObjective means an objective string cannot be parsed.
	ErrObjective = errors.New("invalid objective")
	// ErrUnreachable means no threshold meets a constrained objective
	// (precision@R, recall@P).
	ErrUnreachable = errors.New("no threshold meets the objective")
	// ErrNoThreshold means a result has no fitted threshold (graded labels
	// only), so no thresholds file can be made from it.
	ErrNoThreshold = errors.New("no threshold was fitted")
	// ErrNoFeatures means the composite was asked for but a sample lacks
	// the texts its features come from.
	ErrNoFeatures = errors.New("no features to fit the composite on")
	// ErrWeak means the fit is no better than a trivial rule (see
	// Result.Weak).
	ErrWeak = errors.New("the calibration is no better than a trivial rule")
	// ErrFewLabels means the chosen threshold rests on too few labels to
	// be relied on (see Result.Shortfall).
	ErrFewLabels = errors.New("too few labels to rely on the threshold")
)

// Error is a calibration problem caused by the input, with what was found
// and how to fix it. It unwraps to one of the sentinel errors above.
type Error struct {
	Err    error  // sentinel
	Detail string // what was found
	Fix    string // what the user can do
}

// Error says what was found and what to do.
func (e *Error) Error() string {
	s := e.Err.Error()
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *Error) Unwrap() error { return e.Err }
