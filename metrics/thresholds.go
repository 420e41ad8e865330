package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics/values"
)

// Sub-metric keys of Thresholds.SubMetrics: the three kinds of semantic
// comparison, and the coverage a reply needs to be complete.
const (
	SubTruthValues    = "truthfulness.values"   // parameter values of action turns
	SubTruthResponse  = "truthfulness.response" // replies of response turns
	SubCompleteClause = "completeness.clause"   // a gold clause against a predicted clause
	// SubCompleteResponse is not a similarity: it is the share of a gold
	// reply's required content (weighted clauses) that the prediction must
	// cover, in [0, 1] (Thresholds.Coverage).
	SubCompleteResponse = "completeness.response"
)

// SubMetricKeys lists the keys Thresholds.SubMetrics accepts.
func SubMetricKeys() []string {
	return []string{SubTruthValues, SubTruthResponse, SubCompleteClause, SubCompleteResponse}
}

// DefaultCoverage is the coverage a reply needs when the thresholds set
// none (sub_metrics.completeness.response): all of its gold reply's
// required content.
const DefaultCoverage = 1.0

// SchemaTypes lists the keys Thresholds.Types accepts: the JSON Schema
// types a tool definition can give a parameter (tooldef maps other
// dialects' names, such as BFCL's dict and float, onto them).
func SchemaTypes() []string {
	return []string{"string", "number", "integer", "boolean", "array", "object", "null"}
}

// Thresholds is the resolved threshold lookup the metric consults at its
// one comparison site: a semantic comparison passes when its score is >=
// For(query).Value. Package thresholds builds it from thresholds.json and
// --threshold; batch records it in summary.json. The most specific entry
// wins: Fields for the exact nested path, Fields for the top-level
// parameter (tool.action.param), Kinds for the value's kind (values.Kind:
// name, category...), Types for the parameter's schema type, SubMetrics,
// then Threshold. Fields, Kinds and Types apply to parameter values only.
// Every value lies in [-1, 1] (Validate); 0 is a threshold like any
// other.
type Thresholds struct {
	Threshold  float64            `json:"threshold"`
	SubMetrics map[string]float64 `json:"sub_metrics,omitempty"`
	// Kinds holds thresholds by the kind of a parameter value, for the
	// kinds whose comparator may leave a value to the scorer
	// (values.EmbeddedKinds: name, category, address, text, language,
	// country, currency). It is where a per-kind default calibration
	// goes: a value without a Fields entry of its own is held to its
	// kind's entry before its schema type's, its sub-metric's and the
	// global threshold.
	Kinds  map[string]float64 `json:"kinds,omitempty"`
	Types  map[string]float64 `json:"types,omitempty"`
	Fields map[string]float64 `json:"fields,omitempty"`
	// FieldKinds sets the kind of the values at a field path (the exact
	// nested path, or tool.action.param for a parameter and everything
	// inside it) instead of values.Classify: "text" to have a code-like
	// field compared by meaning, "identifier" to have a name compared
	// exactly, and so on. Not a threshold; kept here so that the thresholds
	// file that sets it, and summary.json that records it, hold it.
	FieldKinds map[string]string `json:"field_kinds,omitempty"`
	// Composite holds the probability thresholds of fitted composites (a
	// comparison scored with By == ByComposite), by field path (as Fields:
	// the exact nested path, or tool.action.param), by value kind
	// ("kinds.name": KindKey), by sub-metric (truthfulness.values,
	// truthfulness.response) or "default"; such a comparison is held to the
	// most specific entry (field, parameter, kind, sub-metric, "default"),
	// else DefaultCompositeThreshold. Package
	// thresholds fills it from the models of the file's "composite"
	// section and its "composite_fields".
	Composite map[string]float64 `json:"composite,omitempty"`
	// Source says where the values came from (informative, e.g. "aem
	// sweep run/ (objective f1)"); the lookup does not use it.
	Source string `json:"source,omitempty"`
	// Extension point: a decider-specific entry is a field here, a case in
	// For keyed on ThresholdQuery.By (as the judge's fixed JudgeThreshold
	// and Composite are), and a problem in Problems.
}

// ByComposite is the decider of a comparison scored by a fitted composite
// (package composite): its score is a probability in [0, 1].
const ByComposite = "composite"

// CompositeDefault is the key of Thresholds.Composite for the composite
// that applies to a sub-metric without one of its own.
const CompositeDefault = "default"

// KindKey is the key of a value kind's entry in Thresholds.Composite and
// of its model in a composite scorer: "kinds.name" for kind "name"; "" for
// no kind.
func KindKey(kind string) string {
	if kind == "" {
		return ""
	}
	return "kinds." + kind
}

// DefaultCompositeThreshold is the probability a composite's comparison
// needs when Thresholds.Composite gives none.
const DefaultCompositeThreshold = 0.5

// ThresholdQuery describes one semantic comparison to the lookup.
type ThresholdQuery struct {
	SubMetric string // SubTruthValues, SubTruthResponse or SubCompleteClause
	// Field is the exact nested path of a parameter value
	// ("tool.action.param.sub[0]") and Param its top-level parameter
	// ("tool.action.param"); both empty for replies and clauses.
	Field string
	Param string
	// Type is the top-level parameter's schema type from the dialog's tool
	// definitions: the one type its schema allows besides null ("string"
	// for "string|null"); empty without definitions, or when the schema
	// allows several types or any. Nested values take their parameter's.
	Type string
	// Kind is the value's kind (values.Kind) for parameter values; empty
	// for replies and clauses, which the sub-metric entries cover.
	Kind string
	// By is who decided the comparison (Similarity.By): a judge's decision
	// is held to JudgeThreshold whatever the entries say; the other
	// deciders share the entries.
	By string
}

// Applied is the threshold a comparison was held to and the entry it came
// from, named as in thresholds.json: "fields.<key>", "kinds.<kind>", "types.<type>",
// "sub_metrics.<name>" or "threshold"; "judge" for JudgeThreshold.
type Applied struct {
	Value float64
	From  string
}

// For returns the threshold for q: JudgeThreshold for a judge's decision,
// else the most specific entry (see Thresholds).
func (t Thresholds) For(q ThresholdQuery) Applied {
	if q.By == ByJudge {
		return Applied{JudgeThreshold, "judge"}
	}
	if q.By == ByComposite {
		for _, k := range []string{q.Field, q.Param, KindKey(q.Kind), q.SubMetric, CompositeDefault} {
			if v, ok := t.Composite[k]; ok && k != "" {
				return Applied{v, "composite." + k}
			}
		}
		return Applied{DefaultCompositeThreshold, "composite"}
	}
	for _, k := range []string{q.Field, q.Param} {
		if v, ok := t.Fields[k]; ok && k != "" {
			return Applied{v, "fields." + k}
		}
	}
	if v, ok := t.Kinds[q.Kind]; ok && q.Kind != "" {
		return Applied{v, "kinds." + q.Kind}
	}
	if v, ok := t.Types[q.Type]; ok && q.Type != "" {
		return Applied{v, "types." + q.Type}
	}
	if v, ok := t.SubMetrics[q.SubMetric]; ok {
		return Applied{v, "sub_metrics." + q.SubMetric}
	}
	return Applied{t.Threshold, "threshold"}
}

// Coverage returns the coverage a reply needs to be complete: the
// sub_metrics entry for SubCompleteResponse, else DefaultCoverage (from
// "default"). The global threshold never applies: it is a similarity.
func (t Thresholds) Coverage() Applied {
	if v, ok := t.SubMetrics[SubCompleteResponse]; ok {
		return Applied{v, "sub_metrics." + SubCompleteResponse}
	}
	return Applied{DefaultCoverage, "default"}
}

// Problem is one invalid entry of a Thresholds: its key as in
// thresholds.json ("threshold", "sub_metrics.<name>", ...), what is wrong
// and how to fix it.
type Problem struct {
	Key, Problem, Fix string
}

// Problems lists every invalid entry, keys in order; nil when t is valid.
// It is the one set of rules for threshold values: Config.Validate and the
// thresholds file reader both use it.
func (t Thresholds) Problems() []Problem {
	const rangeFix = "give a similarity threshold between -1 and 1 (0 is allowed)"
	var out []Problem
	value := func(key string, v float64) {
		if !inRange(v, -1, 1) {
			out = append(out, Problem{key, fmt.Sprintf("%v is not in [-1, 1]", v), rangeFix})
		}
	}
	value("threshold", t.Threshold)
	known := func(section string, m map[string]float64, keys []string) {
		for _, k := range sortedKeys(m) {
			if !slices.Contains(keys, k) {
				out = append(out, Problem{section + "." + k, "unknown " + section + " key", "use one of " + strings.Join(keys, ", ")})
			}
			value(section+"."+k, m[k])
		}
	}
	known("sub_metrics", t.SubMetrics, SubMetricKeys())
	if v, ok := t.SubMetrics[SubCompleteResponse]; ok && finite(v) && v < 0 {
		out = append(out, Problem{"sub_metrics." + SubCompleteResponse, fmt.Sprintf("%v is not in [0, 1]", v),
			"give the share of a gold reply's required content a reply must cover, between 0 and 1 (1: all of it)"})
	}
	known("types", t.Types, SchemaTypes())
	known("kinds", t.Kinds, embeddedKinds())
	for _, k := range sortedKeys(t.FieldKinds) {
		if !validFieldKey(k) {
			out = append(out, Problem{"field_kinds." + k, "not a field path",
				"name a parameter as tool.action.param (a plain function's as name.call.param), or a nested value as tool.action.param.sub[0]"})
		}
		if _, ok := values.ParseKind(t.FieldKinds[k]); !ok {
			out = append(out, Problem{"field_kinds." + k, fmt.Sprintf("%q is not a value kind", t.FieldKinds[k]), "use one of " + strings.Join(kindNames(values.Kinds()), ", ")})
		}
	}
	for _, k := range sortedKeys(t.Composite) {
		if !CompositeKey(k) && !validFieldKey(k) {
			out = append(out, Problem{"composite." + k, "no composite applies there",
				"fit composites with 'aem sweep --fit': they apply to " + SubTruthValues + ", " + SubTruthResponse + ", " + CompositeDefault +
					", a value kind (kinds.name: one of " + strings.Join(embeddedKinds(), ", ") + ") and fields (tool.action.param)"})
		}
		if v := t.Composite[k]; !inRange(v, 0, 1) {
			out = append(out, Problem{"composite." + k, fmt.Sprintf("%v is not in [0, 1]", v), "give a probability threshold between 0 and 1"})
		}
	}
	for _, k := range sortedKeys(t.Fields) {
		switch {
		case strings.HasPrefix(k, "."):
			// Written before the naming rule (callname.go), when a plain
			// function's paths were ".name.param".
			out = append(out, Problem{"fields." + k, "not a field path",
				"a plain function's parameter is name.call.param (e.g. get_weather.call.city, as turns.parquet's field_scores name it)"})
		case !validFieldKey(k):
			out = append(out, Problem{"fields." + k, "not a field path",
				"name a parameter as tool.action.param (a plain function's as name.call.param), or a nested value as tool.action.param.sub[0]"})
		}
		value("fields."+k, t.Fields[k])
	}
	return out
}

// KindFor returns the kind FieldKinds sets for the value at field (its
// exact path) of parameter param (tool.action.param); ok is false when
// it sets none.
func (t Thresholds) KindFor(field, param string) (values.Kind, bool) {
	for _, k := range []string{field, param} {
		if s, ok := t.FieldKinds[k]; ok && k != "" {
			return values.ParseKind(s)
		}
	}
	return "", false
}

// CompositeKey reports whether k names a composite model that is not a
// field's: a sub-metric's, the default one, or a value kind's (KindKey of
// a kind held to a similarity threshold).
func CompositeKey(k string) bool {
	if slices.Contains([]string{SubTruthValues, SubTruthResponse, CompositeDefault}, k) {
		return true
	}
	kind, ok := strings.CutPrefix(k, "kinds.")
	return ok && slices.Contains(embeddedKinds(), kind)
}

func embeddedKinds() []string { return kindNames(values.EmbeddedKinds()) }

func kindNames(ks []values.Kind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}

// validFieldKey reports whether k names a parameter: at least tool,
// action and param, none empty.
func validFieldKey(k string) bool {
	parts := strings.Split(k, ".")
	return len(parts) >= 3 && !slices.Contains(parts, "")
}
