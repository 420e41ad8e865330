package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/trials"
)

// ReportVersion is the version of the Report layout (compare.json).
const ReportVersion = 1

// FieldScore records how one value was compared in one run (see
// metrics.FieldScore).
type FieldScore struct {
	Field  string `json:"field"`
	Method string `json:"method"`
	// Kind is the gold value's kind, as in turns.parquet; empty when the
	// run does not record it.
	Kind      string  `json:"kind,omitempty"`
	Score     float64 `json:"score"`
	Threshold float64 `json:"threshold"`
	// ThresholdFrom is the thresholds entry Threshold came from, as in
	// turns.parquet ("fields.<key>", "types.<type>", "sub_metrics.<name>",
	// "threshold"); empty when the value was not held to a threshold.
	ThresholdFrom string `json:"threshold_from"`
	Pass          bool   `json:"pass"`
}

// TurnVerdict is the verdict of one scored turn in one run: what compare
// needs from a row of turns.parquet (results/compareio reads it). Not a
// metrics.Turn, which is the gold and predicted turn itself.
type TurnVerdict struct {
	DialogID string
	// Trial numbers one of repeated trials of the dialog; nil when the
	// dialog is not one. A turn is keyed by (DialogID, Trial, TurnNo).
	Trial  *int64
	TurnNo int
	Kind   metrics.Kind

	Pass          bool
	FailureReason metrics.Reason // primary reason; empty when Pass
	OwnReason     metrics.Reason // the turn's own reason (kept for cascades)

	Structure    metrics.Outcome
	Completeness metrics.Outcome
	Truthfulness metrics.Outcome

	ChainBucket string // "single", "two_step", "three_plus"; "" for responses
	// Tool is "tool_id.action" of the gold call for action turns, "" otherwise.
	Tool        string
	RootCause   bool // failed and not a cascade
	CascadeFrom int  // turn_no of the root cause of a cascade; 0 when none
	Critical    bool

	// Gold and Predicted are the gold and predicted outputs as displayed in
	// reports: a reply, or a call written "tool.action {args}".
	Gold        string
	Predicted   string
	FieldScores []FieldScore
}

// Dialog is the composed verdict of one dialog in one run.
type Dialog struct {
	ID               string
	Trial            *int64 // see Turn.Trial
	TestPass         bool
	Score            float64
	SuccessRate      float64
	FirstFailureTurn int
	RootCause        metrics.Reason
}

// Identity says what a run was scored against. Runs are comparable only
// when every field is equal.
type Identity struct {
	// MetricVersion is metrics.Version of the aem that scored the run.
	MetricVersion int    `json:"metric_version"`
	Dataset       string `json:"dataset"`    // hash of the gold side of the golden dataset
	Scorer        string `json:"scorer"`     // scorer and model id
	Thresholds    string `json:"thresholds"` // canonical form of the thresholds in force
	// Settings is the canonical form of the other metric settings that
	// change verdicts (cascade policy, composition, numeric tolerance).
	Settings string `json:"settings,omitempty"`
}

// Run is one run of `aem run`: its turns in any order and its dialogs.
type Run struct {
	Name     string
	Identity Identity
	Turns    []TurnVerdict
	Dialogs  []Dialog
	// Trials is the run's reliability over repeated trials (pass^k,
	// flaky tasks) as its summary records it; nil for a run without
	// trials.
	Trials *trials.Summary
}

// Options controls a comparison. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	// Alpha is the significance level of every test and 1-Alpha the level
	// of the confidence intervals. In (0, 0.5].
	Alpha float64 `json:"alpha"`
	// Margin is the drop in correctness (a share, 0.01 = one point)
	// tolerated before the gate fails. In [0, 1).
	Margin float64 `json:"margin"`
	// Bootstrap is the number of bootstrap resamples (>= 100).
	Bootstrap int `json:"bootstrap"`
	// Permutations is the number of sign-flip permutations of the
	// failure-reason shift test (>= 100).
	Permutations int `json:"permutations"`
	// Seed seeds every random stream.
	Seed uint64 `json:"seed"`
	// AllowMismatch lets runs scored with a different scorer, thresholds,
	// dataset or metric settings be compared; the differences are recorded
	// in the Report.
	AllowMismatch bool `json:"allow_mismatch"`
}

// DefaultOptions returns the documented defaults: Alpha 0.05, Margin 0,
// 2000 bootstrap resamples, 10000 permutations, Seed 1.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, Margin: 0, Bootstrap: 2000, Permutations: 10000, Seed: 1}
}

// Validate reports the first invalid option.
func (o Options) Validate() error {
	switch {
	case math.IsNaN(o.Alpha) || o.Alpha <= 0 || o.Alpha > 0.5:
		return fmt.Errorf("%w: alpha %v is outside (0, 0.5]", ErrInvalidOptions, o.Alpha)
	case math.IsNaN(o.Margin) || o.Margin < 0 || o.Margin >= 1:
		return fmt.Errorf("%w: margin %v is outside [0, 1) (it is a share: 0.02 = two points)", ErrInvalidOptions, o.Margin)
	case o.Bootstrap < 100:
		return fmt.Errorf("%w: bootstrap %d is below 100 resamples", ErrInvalidOptions, o.Bootstrap)
	case o.Permutations < 100:
		return fmt.Errorf("%w: permutations %d is below 100", ErrInvalidOptions, o.Permutations)
	}
	return nil
}

// Sentinel errors, checked with errors.Is.
var (
	// ErrInvalidOptions wraps every Options.Validate error.
	ErrInvalidOptions = errors.New("invalid compare options")
	// ErrTooFewRuns means fewer than two runs were given.
	ErrTooFewRuns = errors.New("compare needs at least two runs")
	// ErrNoOverlap means two runs share no (dialog_id, trial, turn_no).
	ErrNoOverlap = errors.New("runs share no turns")
	// ErrMismatch is matched by *MismatchError.
	ErrMismatch = errors.New("runs are not comparable")
	// ErrDuplicateTurn is matched by *DuplicateTurnError.
	ErrDuplicateTurn = errors.New("duplicate turn")
)

// Mismatch is one identity field on which a candidate differs from the base.
type Mismatch struct {
	Candidate string `json:"candidate"`
	Field     string `json:"field"` // "metric_version", "scorer", "thresholds", "dataset" or "settings"
	Base      string `json:"base_value"`
	Value     string `json:"candidate_value"`
}

// MismatchError is returned when runs differ in identity and
// Options.AllowMismatch is false.
type MismatchError struct {
	Base       string
	Mismatches []Mismatch
}

// Error describes the problem and how to fix it.
func (e *MismatchError) Error() string {
	s := fmt.Sprintf("runs are not comparable with base %q:", e.Base)
	versions := false
	for _, m := range e.Mismatches {
		s += fmt.Sprintf(" %s differs in %s (%q vs %q);", m.Candidate, m.Field, m.Base, m.Value)
		versions = versions || m.Field == "metric_version"
	}
	if versions {
		s += " runs of different metric versions were judged by different rules (README: Metric versions), so their verdicts do not mean the same;" +
			" rescore the older run with this aem,"
	}
	return s + " score both runs with the same model, thresholds, metric settings and golden dataset, or pass --allow-mismatch"
}

// Is makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// DuplicateTurnError is returned when a run holds two verdicts for the
// same (dialog_id, turn_no), or two rows for one dialog.
type DuplicateTurnError struct {
	Run      string
	DialogID string
	Trial    *int64
	TurnNo   int
	// InDialogs is true for a dialog listed twice in dialogs (TurnNo unused).
	InDialogs bool
}

// Error describes the problem and how to fix it.
func (e *DuplicateTurnError) Error() string {
	if e.InDialogs {
		return fmt.Sprintf("run %s: dialog %q%s appears twice in its dialogs", e.Run, e.DialogID, trials.Note(e.Trial))
	}
	return fmt.Sprintf("run %s: dialog %q%s turn %d appears twice; a run holds one verdict per turn", e.Run, e.DialogID, trials.Note(e.Trial), e.TurnNo)
}

// Is makes errors.Is(err, ErrDuplicateTurn) true.
func (e *DuplicateTurnError) Is(target error) bool { return target == ErrDuplicateTurn }

// CheckIdentity lists the identity fields on which cand differs from base.
func CheckIdentity(base, cand Run) []Mismatch {
	var out []Mismatch
	add := func(field, b, c string) {
		if b != c {
			out = append(out, Mismatch{Candidate: cand.Name, Field: field, Base: b, Value: c})
		}
	}
	add("metric_version", strconv.Itoa(base.Identity.MetricVersion), strconv.Itoa(cand.Identity.MetricVersion))
	add("scorer", base.Identity.Scorer, cand.Identity.Scorer)
	add("thresholds", base.Identity.Thresholds, cand.Identity.Thresholds)
	add("dataset", base.Identity.Dataset, cand.Identity.Dataset)
	add("settings", base.Identity.Settings, cand.Identity.Settings)
	return out
}

// ErrRegression is matched by *RegressionError.
var ErrRegression = errors.New("regression found")

// RegressionError reports a failed regression gate; the CLI maps it to
// exit status 4 under --fail-on-regression.
type RegressionError struct {
	Failures []GateFailure
}

// Error describes the problem and how to fix it.
func (e *RegressionError) Error() string {
	s := "regression gate failed: candidate significantly worse than the base on"
	for i, f := range e.Failures {
		if i > 0 {
			s += ","
		}
		s += fmt.Sprintf(" %s (%s, %+.1f points)", f.Metric, f.Candidate, 100*f.Diff)
	}
	return s
}

// Is makes errors.Is(err, ErrRegression) true.
func (e *RegressionError) Is(target error) bool { return target == ErrRegression }

// GateError returns a *RegressionError when the report fails the gate, nil
// otherwise.
func (r *Report) GateError() error {
	if !r.Gate.Failed {
		return nil
	}
	return &RegressionError{Failures: r.Gate.Failures}
}
