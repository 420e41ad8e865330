package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/thresholds"
)

// metricOptions are the flags that configure the metric itself.
type metricOptions struct {
	// readOnlyTools are --read-only-tools (an input flag: see inputOptions).
	readOnlyTools  []string
	threshold      givenFloat
	thresholdsFile string
	tolerance      float64
	cascade        string
	compose        string
	gateCap        float64
	passScore      float64
	minRates       string
}

func (o *metricOptions) addFlags(fs *flagSet) {
	def := metrics.DefaultConfig()
	o.threshold.value = def.Thresholds.Threshold
	th := fs.shared(topicThresholds)
	th.Var(&o.threshold, "threshold", "global similarity threshold: a semantic comparison passes when score >= threshold; when given, it replaces the global threshold of a --thresholds file")
	th.StringVar(&o.thresholdsFile, "thresholds", "", "thresholds file as 'aem sweep' writes it (global, per sub-metric, value kind, schema type and field); its entries win over --threshold except the global one when --threshold is given. Without one, the shipped calibration of the embedding model decides names, categories and free text; 'none' turns it off")
	th.Float64Var(&o.tolerance, "tolerance", def.NumericTolerance, "relative tolerance for numbers: |a-b| <= tol*max(1,|a|,|b|)")
	sc := fs.shared(topicScoring)
	sc.StringVar(&o.cascade, "cascade", string(def.Cascade), "cascade attribution: evidence (depends_on, else propagated wrong values) or chain (every failure after the first in an action chain)")
	sc.StringVar(&o.compose, "compose", string(def.Composition.Rule), "dialog score: mean (share of passing turns), weighted (weight column) or gating (a failed critical turn caps the score)")
	sc.Float64Var(&o.gateCap, "gate-cap", def.Composition.GateCap, "with --compose gating: the highest score a dialog with a failed critical turn can get")
	sc.Float64Var(&o.passScore, "pass-score", def.Composition.PassScore, "test_pass needs score >= this")
	sc.StringVar(&o.minRates, "min-rate", "", "test_pass also needs these sub-metric rates, e.g. structure=1,truthfulness=0.8")
}

// noThresholds is the --thresholds value that turns the shipped
// calibration off: the global threshold decides what value kinds leave to
// the scorer.
const noThresholds = "none"

// readThresholds reads the --thresholds file; nil without one.
func (o metricOptions) readThresholds() (*thresholds.File, error) {
	if o.thresholdsFile == "" || o.thresholdsFile == noThresholds {
		return nil, nil
	}
	f, err := thresholds.Read(o.thresholdsFile)
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// calibrate reports whether the shipped calibration of the scorer's model
// applies: no thresholds file was given, and not --thresholds none.
func (o metricOptions) calibrate() bool { return o.thresholdsFile == "" }

// metric builds the metric from the flags and a thresholds file (the
// --thresholds file, the shipped calibration, or nil): the thresholds
// resolve here, once, into the lookup the metric's comparison site
// consults, and metrics.New validates the whole configuration, once. A bad
// flag value is a usage error.
func (o metricOptions) metric(file *thresholds.File) (*metrics.Metric, error) {
	cfg := metrics.DefaultConfig()
	cfg.Thresholds = thresholds.Lookup(file, o.threshold.value, o.threshold.given)
	cfg.NumericTolerance = o.tolerance
	cfg.Composition.GateCap = o.gateCap
	cfg.Composition.PassScore = o.passScore
	cfg.ReadOnlyTools = o.readOnlyTools
	var err error
	cfg.Cascade, err = metrics.ParseCascadePolicy(o.cascade)
	if err == nil {
		cfg.Composition.Rule, err = metrics.ParseRule(o.compose)
	}
	if err == nil {
		cfg.Composition.MinRates, err = parseRates(o.minRates)
	}
	var m *metrics.Metric
	if err == nil {
		m, err = metrics.New(cfg)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errFlagValue, err) // a usage error (runCommand)
	}
	return m, nil
}

// givenFloat is a float flag that knows whether it was given (on the
// command line or through its AEM_* variable) or kept its default.
type givenFloat struct {
	value float64
	given bool
}

func (g *givenFloat) String() string { return strconv.FormatFloat(g.value, 'g', -1, 64) }

func (g *givenFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	g.value, g.given = v, true
	return nil
}

// parseRates parses "structure=1,truthfulness=0.8".
func parseRates(s string) (map[string]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	rates := map[string]float64{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("--min-rate %q: want SUBMETRIC=RATE pairs, e.g. structure=1,truthfulness=0.8", part)
		}
		rates[strings.TrimSpace(k)] = f
	}
	return rates, nil
}
