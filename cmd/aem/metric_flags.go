package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// metricOptions are the flags that configure the metric itself.
type metricOptions struct {
	threshold      float64
	thresholdsFile string
	tolerance      float64
	cascade        string
	compose        string
	gateCap        float64
	passScore      float64
	minRates       string
}

func (o *metricOptions) addFlags(fs *flag.FlagSet) {
	def := metrics.DefaultConfig()
	fs.Float64Var(&o.threshold, "threshold", def.Thresholds.Threshold, "global similarity threshold: a semantic comparison passes when score >= threshold")
	fs.StringVar(&o.thresholdsFile, "thresholds", "", "JSON thresholds file (per sub-metric and per field), as 'aem sweep' writes; overrides --threshold where it says")
	fs.Float64Var(&o.tolerance, "tolerance", def.NumericTolerance, "relative tolerance for numbers: |a-b| <= tol*max(1,|a|,|b|)")
	fs.StringVar(&o.cascade, "cascade", string(def.Cascade), "cascade attribution: evidence (depends_on, else propagated wrong values) or chain (every failure after the first in an action chain)")
	fs.StringVar(&o.compose, "compose", string(def.Composition.Rule), "dialog score: mean (share of passing turns), weighted (weight column) or gating (a failed critical turn caps the score)")
	fs.Float64Var(&o.gateCap, "gate-cap", def.Composition.GateCap, "with --compose gating: the highest score a dialog with a failed critical turn can get")
	fs.Float64Var(&o.passScore, "pass-score", def.Composition.PassScore, "test_pass needs score >= this")
	fs.StringVar(&o.minRates, "min-rate", "", "test_pass also needs these sub-metric rates, e.g. structure=1,truthfulness=0.8")
}

// config builds the metric configuration from the flags.
func (o metricOptions) config() (metrics.Config, error) {
	cfg := metrics.DefaultConfig()
	cfg.Thresholds.Threshold = o.threshold
	if o.thresholdsFile != "" {
		data, err := os.ReadFile(o.thresholdsFile)
		if err != nil {
			return cfg, fmt.Errorf("reading thresholds: %w", err)
		}
		var t metrics.Thresholds
		if err := json.Unmarshal(data, &t); err != nil {
			return cfg, fmt.Errorf("thresholds file %s is not valid JSON (%v): write it as 'aem sweep' does, e.g. {\"version\": 1, \"threshold\": 0.6, \"fields\": {\"tool.action.param\": 0.8}}", o.thresholdsFile, err)
		}
		if t.Threshold == 0 {
			t.Threshold = o.threshold
		}
		cfg.Thresholds = t
	}
	cfg.NumericTolerance = o.tolerance
	var err error
	if cfg.Cascade, err = metrics.ParseCascadePolicy(o.cascade); err != nil {
		return cfg, err
	}
	if cfg.Composition.Rule, err = metrics.ParseRule(o.compose); err != nil {
		return cfg, err
	}
	cfg.Composition.GateCap = o.gateCap
	cfg.Composition.PassScore = o.passScore
	if cfg.Composition.MinRates, err = parseRates(o.minRates); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
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
