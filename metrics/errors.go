package metrics

import (
	"errors"
	"fmt"
)

// ErrMissingSimilarity is returned (wrapped) by Decide when a comparison
// that Requests named is absent from the similarities it was given.
var ErrMissingSimilarity = errors.New("similarity missing for a requested comparison")

// ErrScorer is wrapped by Metric.Similarities around a Scorer's error and
// around an answer it cannot use (a missing answer, a NaN score).
var ErrScorer = errors.New("scorer failed")

// ErrBadSpec is returned (wrapped in a *SpecError) for a malformed `$any` /
// `$optional` spec in gold args.
var ErrBadSpec = errors.New("malformed $any/$optional spec")

// ErrBadDialog is returned (wrapped) by Decide for a dialog it cannot decide:
// duplicate turn numbers, a turn with neither gold nor prediction, a bad
// depends_on, an ambiguous order-invariant tag or a bad weight.
var ErrBadDialog = errors.New("invalid dialog")

// SpecError describes a malformed `$any` / `$optional` spec: where it is and
// how to fix it. It matches ErrBadSpec with errors.Is.
type SpecError struct {
	DialogID string // empty when not known (ValidateGoldArgs)
	TurnNo   int    // 0 when not known
	Field    string // path inside args, e.g. "city" or "filters.region[1]"
	Problem  string
}

// Error implements error.
func (e *SpecError) Error() string {
	where := ""
	if e.DialogID != "" {
		where = fmt.Sprintf("dialog %q turn %d: ", e.DialogID, e.TurnNo)
	}
	return fmt.Sprintf("%sgold args field %q: %s (spec syntax: {\"$any\": [alternatives...], \"$optional\": true|false})",
		where, e.Field, e.Problem)
}

// Unwrap makes errors.Is(err, ErrBadSpec) true.
func (e *SpecError) Unwrap() error { return ErrBadSpec }

func badDialog(d Dialog, format string, args ...any) error {
	return fmt.Errorf("dialog %q: %s: %w", d.ID, fmt.Sprintf(format, args...), ErrBadDialog)
}
