package metrics

// Sub-metric keys used in a Thresholds file.
const (
	SubTruthValues      = "truthfulness.values"   // parameter values of action turns
	SubTruthResponse    = "truthfulness.response" // replies of response turns
	SubCompleteResponse = "completeness.response" // clause coverage of replies
)

// Thresholds says which similarity threshold applies where. It is the
// format of the file `aem run --thresholds` reads and `aem sweep` writes:
//
//	{"version": 1, "threshold": 0.5,
//	 "sub_metrics": {"truthfulness.values": 0.62},
//	 "fields": {"sales.report.metric": 0.8}}
//
// The most specific entry wins: field, then sub-metric, then the global one.
// Field thresholds apply to parameter values only.
type Thresholds struct {
	Version    int                `json:"version"`
	Threshold  float64            `json:"threshold"`
	SubMetrics map[string]float64 `json:"sub_metrics,omitempty"`
	Fields     map[string]float64 `json:"fields,omitempty"`
	// Model is the scorer ID the thresholds were fitted with (informative).
	Model string `json:"model,omitempty"`
	// Source says where the thresholds came from (informative).
	Source string `json:"source,omitempty"`
}

// For returns the threshold for a sub-metric and, for parameter values,
// a field ("tool.action.param"); field may be empty.
func (t Thresholds) For(subMetric, field string) float64 {
	if field != "" {
		if v, ok := t.Fields[field]; ok {
			return v
		}
	}
	if v, ok := t.SubMetrics[subMetric]; ok {
		return v
	}
	return t.Threshold
}
