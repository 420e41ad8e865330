package batch

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// settingsOf lists the settings that change results, as recorded in
// summary.json and checked on resume and merge.
func settingsOf(cfg metrics.Config, o Options) map[string]string {
	s := map[string]string{
		"cascade":                string(cfg.Cascade),
		"composition.rule":       string(cfg.Composition.Rule),
		"composition.gate_cap":   fmtFloat(cfg.Composition.GateCap),
		"composition.pass_score": fmtFloat(cfg.Composition.PassScore),
		"numeric_tolerance":      fmtFloat(cfg.NumericTolerance),
	}
	keys := make([]string, 0, len(cfg.Composition.MinRates))
	for k := range cfg.Composition.MinRates {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s["composition.min_rate."+k] = fmtFloat(cfg.Composition.MinRates[k])
	}
	if len(cfg.ReadOnlyTools) > 0 {
		s["read_only_tools"] = strings.Join(cfg.ReadOnlyTools, ",")
	}
	if len(o.ReadOptions.Mapping) > 0 {
		s["mapping"] = o.ReadOptions.Mapping.String()
	}
	if t := o.ReadOptions.Tools; t != nil {
		sum := sha256.Sum256(t.JSON())
		s["tools"] = fmt.Sprintf("%d definitions, sha256:%x", t.Len(), sum)
	}
	return s
}
