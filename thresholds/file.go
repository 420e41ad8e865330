package thresholds

import (
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
)

// Version is the layout Write produces; Decode reads versions 1 to Version.
// Version 3 added "composite" and gave sub_metrics."completeness.response"
// its meaning of a coverage share; in an older file that key was the
// clause similarity, and Decode reads it as "completeness.clause".
// Version 4 added "kinds" (thresholds by value kind) and "field_kinds"
// (the kind of a field's values).
const Version = 4

// FileName is the name `aem sweep` gives the file in its output directory.
const FileName = "thresholds.json"

// File is thresholds.json. Decode fills it strictly; Write writes it.
//
// Adding a key (for example "composite", issue #11): add a field with its
// json tag here, add the key to keysOf for the versions that allow it,
// check its values in (*File).problems, and, when the metric uses it,
// carry it into metrics.Thresholds in Lookup. Unknown keys inside a new
// nested object are refused with no further code, and so is a missing key
// whose json tag says ",required" (encoding/json ignores the option).
type File struct {
	Version int `json:"version"`
	// Threshold is the global threshold; nil when the file leaves it to
	// --threshold.
	Threshold  *float64           `json:"threshold,omitempty"`
	SubMetrics map[string]float64 `json:"sub_metrics,omitempty"`
	// Kinds holds thresholds by the kind of a parameter value (version 4;
	// metrics.Thresholds.Kinds): "name", "category", "address", "text",
	// "language", "country", "currency".
	Kinds map[string]float64 `json:"kinds,omitempty"`
	// FieldKinds sets the kind of a field's values (version 4;
	// metrics.Thresholds.FieldKinds), by field path.
	FieldKinds map[string]string `json:"field_kinds,omitempty"`
	// Types holds thresholds by the parameter's schema type (version 2).
	Types  map[string]float64 `json:"types,omitempty"`
	Fields map[string]float64 `json:"fields,omitempty"`
	// EmbeddingModel is the scorer the thresholds were fitted with
	// (version 2); aem run refuses the file with another (CheckScorer).
	EmbeddingModel *Model `json:"embedding_model,omitempty"`
	// Model is version 1's informative scorer ID; version 2 writes
	// EmbeddingModel instead.
	Model string `json:"model,omitempty"`
	// JudgeBand is the uncertain band of --scorer embed+judge (version 2;
	// issue #13): the judge is asked about the comparisons whose first
	// score lies in it. aem sweep writes the band it finds; --judge-band
	// overrides it. The metric does not use it (Lookup leaves it out).
	JudgeBand *JudgeBand `json:"judge_band,omitempty"`
	// Composite holds the composites 'aem sweep --fit' fitted (version 3),
	// by sub-metric (truthfulness.values, truthfulness.response) or
	// "default": aem run scores the comparisons they apply to with them
	// (composite.Scorer) and holds them to each model's threshold.
	Composite map[string]*composite.Model `json:"composite,omitempty"`
	// CompositeFields are probability thresholds of the composite by field
	// path (version 3; "tool.action.param", or a nested path), for fields
	// with labels enough for a threshold of their own: a composite's
	// comparison of that field is held to it instead of its model's.
	CompositeFields map[string]float64 `json:"composite_fields,omitempty"`
	// Source says where the values came from (informative).
	Source string `json:"source,omitempty"`
}

// JudgeBand is "judge_band": the uncertain band of the similarity (an
// embedding cosine, in [-1, 1]), bounds included, and, when the file's
// comparisons may be decided by a fitted composite, the band of the
// composite's probability (in [0, 1]).
type JudgeBand struct {
	Low  float64 `json:"low,required"`
	High float64 `json:"high,required"`
	// Composite is the band of a fitted composite's probability; nil
	// leaves the default.
	Composite *Band `json:"composite,omitempty"`
}

// Band is an uncertain band of probabilities, bounds included.
type Band struct {
	Low  float64 `json:"low,required"`
	High float64 `json:"high,required"`
}

// Model names the scorer thresholds were fitted with: the embedding
// model's name and the sha256 of its weights ("use-lite", "ab12…"), or a
// model-free scorer's ID ("lexical") with no sha256.
type Model struct {
	ID     string `json:"id"`
	SHA256 string `json:"sha256,omitempty"`
}

// keysOf lists the top-level keys a version allows, in the order of the
// layout; nil for an unknown version.
func keysOf(version int) []string {
	switch version {
	case 1:
		return []string{"version", "threshold", "sub_metrics", "fields", "model", "source"}
	case 2:
		return []string{"version", "threshold", "sub_metrics", "types", "fields", "embedding_model", "judge_band", "source"}
	case 3:
		return []string{"version", "threshold", "sub_metrics", "types", "fields", "embedding_model", "judge_band", "composite", "composite_fields", "source"}
	case 4:
		return []string{"version", "threshold", "sub_metrics", "kinds", "types", "fields", "field_kinds", "embedding_model", "judge_band", "composite", "composite_fields", "source"}
	}
	return nil
}

// New returns a file of the current version holding t's values (but its
// Composite thresholds, which the models of File.Composite carry), fitted
// with the scorer scorerID (a metrics.Scorer's ID; "" when unknown).
func New(t metrics.Thresholds, scorerID string) File {
	th := t.Threshold
	f := File{Version: Version, Threshold: &th, SubMetrics: t.SubMetrics, Kinds: t.Kinds, Types: t.Types, Fields: t.Fields,
		FieldKinds: t.FieldKinds, Source: t.Source}
	if scorerID != "" {
		m := ModelOf(scorerID)
		f.EmbeddingModel = &m
	}
	return f
}

// Lookup resolves the file and the --threshold flag into the metric's
// lookup. The global threshold is flag when explicit (the user gave
// --threshold or AEM_THRESHOLD) or when the file has none, and the file's
// otherwise; the file's sub-metric, type and field entries apply either
// way, being more specific. A nil f gives the flag alone.
func Lookup(f *File, flag float64, explicit bool) metrics.Thresholds {
	t := metrics.Thresholds{Threshold: flag}
	if f == nil {
		return t
	}
	if f.Threshold != nil && !explicit {
		t.Threshold = *f.Threshold
	}
	t.SubMetrics, t.Types, t.Fields, t.Source = clone(f.SubMetrics), clone(f.Types), clone(f.Fields), f.Source
	t.Kinds, t.FieldKinds = clone(f.Kinds), clone(f.FieldKinds)
	for k, m := range f.Composite {
		if t.Composite == nil {
			t.Composite = map[string]float64{}
		}
		t.Composite[k] = m.Threshold
	}
	for k, v := range f.CompositeFields {
		if t.Composite == nil {
			t.Composite = map[string]float64{}
		}
		t.Composite[k] = v
	}
	return t
}

// Composites returns the file's fitted composites (nil when it has none),
// for composite.NewScorer.
func (f *File) Composites() map[string]*composite.Model {
	if f == nil || len(f.Composite) == 0 {
		return nil
	}
	return f.Composite
}

func clone[V any](m map[string]V) map[string]V {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
