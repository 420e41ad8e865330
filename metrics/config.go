package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// CascadePolicy decides how failed turns are attributed to earlier failures.
type CascadePolicy string

// Cascade policies.
const (
	// CascadeEvidence uses depends_on when a turn gives it and otherwise
	// infers a dependency from propagated wrong values (the default).
	CascadeEvidence CascadePolicy = "evidence"
	// CascadeChain makes every failure after the first in the same action
	// chain a cascade of that first failure.
	CascadeChain CascadePolicy = "chain"
)

// Rule names how turn verdicts are composed into one dialog score.
type Rule string

// Composition rules.
const (
	RuleMean     Rule = "mean"     // share of passing turns (the default)
	RuleWeighted Rule = "weighted" // weighted share, Turn.Weight (nil = 1)
	RuleGating   Rule = "gating"   // mean, capped at GateCap when a critical turn fails
)

// Sub-metric names used as MinRates keys.
const (
	SubStructure    = "structure"
	SubCompleteness = "completeness"
	SubTruthfulness = "truthfulness"
)

// Composition says how a dialog's score and test_pass are computed.
type Composition struct {
	Rule Rule
	// GateCap caps the dialog score when a critical turn fails (gating only).
	GateCap float64
	// PassScore is the score a dialog needs for test_pass; 1.0 means every
	// turn must pass.
	PassScore float64
	// MinRates are per-sub-metric minimum pass rates ("structure",
	// "completeness", "truthfulness") that test_pass also requires.
	MinRates map[string]float64
}

// Config holds every setting of the metric. Build it with DefaultConfig and
// override fields; Decide and Evaluate call Validate.
type Config struct {
	Thresholds Thresholds
	// NumericTolerance is the relative tolerance for numbers: a and b match
	// when |a-b| <= tol*max(1,|a|,|b|).
	NumericTolerance float64
	Cascade          CascadePolicy
	Composition      Composition
	// ReadOnlyTools names tools whose calls change nothing, besides those
	// whose definitions say so (annotations.readOnlyHint): function names,
	// tool ids or definition names (see ReadOnlyCall). Their calls, on
	// either side, are context: listed, never scored.
	ReadOnlyTools []string
}

// DefaultThreshold is the global similarity threshold of DefaultConfig.
const DefaultThreshold = 0.5

// DefaultNumericTolerance is the numeric tolerance of DefaultConfig.
const DefaultNumericTolerance = 1e-9

// DefaultConfig returns the documented defaults: global threshold 0.5,
// numeric tolerance 1e-9, evidence cascades, mean composition with
// PassScore 1.0 and GateCap 0.
func DefaultConfig() Config {
	return Config{
		Thresholds:       Thresholds{Threshold: DefaultThreshold},
		NumericTolerance: DefaultNumericTolerance,
		Cascade:          CascadeEvidence,
		Composition:      Composition{Rule: RuleMean, PassScore: 1.0},
	}
}

// ParseCascadePolicy parses a --cascade value.
func ParseCascadePolicy(s string) (CascadePolicy, error) {
	switch p := CascadePolicy(strings.ToLower(strings.TrimSpace(s))); p {
	case CascadeEvidence, CascadeChain:
		return p, nil
	}
	return "", fmt.Errorf("unknown cascade policy %q: use evidence or chain", s)
}

// ParseRule parses a composition rule name.
func ParseRule(s string) (Rule, error) {
	switch r := Rule(strings.ToLower(strings.TrimSpace(s))); r {
	case RuleMean, RuleWeighted, RuleGating:
		return r, nil
	}
	return "", fmt.Errorf("unknown composition rule %q: use mean, weighted or gating", s)
}

// Validate reports every invalid setting, joined into one error.
func (c Config) Validate() error {
	var errs []error
	for _, p := range c.Thresholds.Problems() {
		errs = append(errs, fmt.Errorf("thresholds %s: %s: %s", p.Key, p.Problem, p.Fix))
	}
	if !finite(c.NumericTolerance) || c.NumericTolerance < 0 {
		errs = append(errs, fmt.Errorf("numeric tolerance %v: must be a finite number >= 0", c.NumericTolerance))
	}
	if c.Cascade != CascadeEvidence && c.Cascade != CascadeChain {
		errs = append(errs, fmt.Errorf("cascade policy %q: use evidence or chain", c.Cascade))
	}
	errs = append(errs, validateComposition(c.Composition)...)
	if err := validateReadOnlyTools(c.ReadOnlyTools); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func validateComposition(c Composition) []error {
	var errs []error
	if !slices.Contains([]Rule{RuleMean, RuleWeighted, RuleGating}, c.Rule) {
		errs = append(errs, fmt.Errorf("composition rule %q: use mean, weighted or gating", c.Rule))
	}
	if !inRange(c.GateCap, 0, 1) {
		errs = append(errs, fmt.Errorf("gate cap %v: must be in [0, 1]", c.GateCap))
	}
	if !inRange(c.PassScore, 0, 1) {
		errs = append(errs, fmt.Errorf("pass score %v: must be in [0, 1]", c.PassScore))
	}
	known := []string{SubStructure, SubCompleteness, SubTruthfulness}
	for _, k := range sortedKeys(c.MinRates) {
		if !slices.Contains(known, k) {
			errs = append(errs, fmt.Errorf("min rate key %q: use one of %s", k, strings.Join(known, ", ")))
		}
		if v := c.MinRates[k]; !inRange(v, 0, 1) {
			errs = append(errs, fmt.Errorf("min rate %q = %v: must be in [0, 1]", k, v))
		}
	}
	return errs
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func inRange(f, lo, hi float64) bool { return finite(f) && f >= lo && f <= hi }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
