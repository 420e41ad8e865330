package thresholds

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
)

func ptr(f float64) *float64 { return &f }

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		name, data string
		want       File
	}{
		{"v2 full", `{"version": 2, "threshold": 0.5,
			"sub_metrics": {"truthfulness.values": 0.75, "truthfulness.response": 0.6, "completeness.response": 0.55},
			"types": {"string": 0.8}, "fields": {"sales_db.aggregate.metric": 0.85, "t.a.p.sub[0]": -0.2},
			"embedding_model": {"id": "use-lite", "sha256": "` + sha + `"}, "source": "hand-set"}`,
			File{Version: 2, Threshold: ptr(0.5), // completeness.response was the clause similarity before version 3
				SubMetrics:     map[string]float64{"truthfulness.values": 0.75, "truthfulness.response": 0.6, "completeness.clause": 0.55},
				Types:          map[string]float64{"string": 0.8},
				Fields:         map[string]float64{"sales_db.aggregate.metric": 0.85, "t.a.p.sub[0]": -0.2},
				EmbeddingModel: &Model{ID: "use-lite", SHA256: sha}, Source: "hand-set"}},
		{"v3 full", `{"version": 3, "threshold": 0.5,
			"sub_metrics": {"completeness.clause": 0.55, "completeness.response": 0.8},
			"composite": {"truthfulness.values": {"features": ["cosine", "number_mismatch"], "mean": [0.6, 0.1], "scale": [0.2, 0.3],
				"coefficients": [2.5, -1.5], "intercept": 0.3, "threshold": 0.42, "l2": 0.01,
				"embedding_model": {"id": "embed:use-lite@sha256:` + sha + `", "sha256": "` + sha + `"},
				"held_out": {"samples": 10, "positive": 6, "negative": 4, "folds": 5, "accuracy": 0.9, "f1": 0.9, "mcc": 0.8, "roc_auc": 0.95,
					"cosine_only": {"accuracy": 0.7, "f1": 0.75, "mcc": 0.4, "roc_auc": 0.8}}}},
			"embedding_model": {"id": "use-lite", "sha256": "` + sha + `"}}`,
			File{Version: 3, Threshold: ptr(0.5), SubMetrics: map[string]float64{"completeness.clause": 0.55, "completeness.response": 0.8},
				Composite: map[string]*composite.Model{"truthfulness.values": fitted()}, EmbeddingModel: &Model{ID: "use-lite", SHA256: sha}}},
		{"v1 as aem sweep wrote it", `{"version": 1, "threshold": 0.62, "sub_metrics": {"truthfulness.values": 0.7},
			"fields": {"crm.find.city": 0.8}, "model": "embed:use-lite@sha256:` + sha + `", "source": "aem sweep out"}`,
			File{Version: 1, Threshold: ptr(0.62), SubMetrics: map[string]float64{"truthfulness.values": 0.7},
				Fields: map[string]float64{"crm.find.city": 0.8}, Model: "embed:use-lite@sha256:" + sha, Source: "aem sweep out"}},
		{"zero thresholds are thresholds", `{"version": 2, "threshold": 0, "sub_metrics": {"truthfulness.values": 0}}`,
			File{Version: 2, Threshold: ptr(0), SubMetrics: map[string]float64{"truthfulness.values": 0}}},
		{"range ends", `{"version": 2, "threshold": -1, "fields": {"a.b.c": 1}}`,
			File{Version: 2, Threshold: ptr(-1), Fields: map[string]float64{"a.b.c": 1}}},
		{"no global", `{"version": 2, "fields": {"a.b.c": 0.9}}`, File{Version: 2, Fields: map[string]float64{"a.b.c": 0.9}}},
		{"model without sha256", `{"version": 2, "embedding_model": {"id": "lexical"}}`, File{Version: 2, EmbeddingModel: &Model{ID: "lexical"}}},
		{"judge band", `{"version": 2, "judge_band": {"low": 0.35, "high": 0.8}}`, File{Version: 2, JudgeBand: &JudgeBand{Low: 0.35, High: 0.8}}},
		{"judge band with a composite band, one point wide", `{"version": 2, "judge_band": {"high": 0, "low": -1, "composite": {"low": 0.5, "high": 0.5}}}`,
			File{Version: 2, JudgeBand: &JudgeBand{Low: -1, High: 0, Composite: &Band{Low: 0.5, High: 0.5}}}},
		{"version 1 as aem sweep wrote it", string(readFile(t, "testdata/v1-sweep.json")), File{Version: 1, Threshold: ptr(0.6232),
			SubMetrics: map[string]float64{"truthfulness.values": 0.7125}, Fields: map[string]float64{"crm.find.city": 0.8},
			Model: "embed:use-lite@sha256:" + sha, Source: "aem sweep out/run (objective f1)"}},
		{"bundled example", string(readFile(t, "../datasets/example/thresholds.json")), File{Version: 2, Threshold: ptr(0.5),
			SubMetrics: map[string]float64{"truthfulness.values": 0.75}, EmbeddingModel: &Model{ID: "use-lite-int8"},
			Source: exampleSource(t)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode("t.json", []byte(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("-want +got:\n%s", d)
			}
		})
	}
}

// exampleSource is the bundled example's source text.
func exampleSource(t *testing.T) string {
	var f struct{ Source string }
	if err := json.Unmarshal(readFile(t, "../datasets/example/thresholds.json"), &f); err != nil || f.Source == "" {
		t.Fatalf("bundled example: %v", err)
	}
	return f.Source
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDecodeRefuses covers every refusal: each names the key and the fix.
func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name, data string
		key        string // want RowError.Field
		problem    string // in RowError.Problem
		fix        string // in RowError.Fix
	}{
		{"empty", ``, "", "not valid JSON", "aem sweep"},
		{"syntax", `{"version": 2,`, "", "not valid JSON", "aem sweep"},
		{"array", `[{"version": 2}]`, "", "not a JSON object", "aem sweep"},
		{"number", `2`, "", "not a JSON object", "aem sweep"},
		{"trailing data", `{"version": 2} {}`, "", "data after the JSON object", "one JSON object"},
		{"duplicate key", `{"version": 2, "threshold": 0.5, "threshold": 0.7}`, "threshold", "twice", "keep one"},
		{"nested duplicate", `{"version": 2, "fields": {"a.b.c": 0.5, "a.b.c": 0.6}}`, "fields.a.b.c", "twice", "keep one"},
		{"null", `{"version": 2, "threshold": null}`, "threshold", "null", "leave the key out"},
		{"nested null", `{"version": 2, "sub_metrics": {"truthfulness.values": null}}`, "sub_metrics.truthfulness.values", "null", "leave the key out"},
		{"missing version", `{"threshold": 0.5}`, "version", "missing", `"version": 4`},
		{"version string", `{"version": "2"}`, "version", "a string where a number belongs", "write a number"},
		{"version fraction", `{"version": 2.5}`, "version", "2.5 is not an integer", "write an integer"},
		{"version zero", `{"version": 0}`, "version", "not a version", `"version": 4`},
		{"version negative", `{"version": -1}`, "version", "not a version", `"version": 4`},
		{"future version", `{"version": 5, "threshold": 0.5}`, "version", "newer than this aem reads", "upgrade aem"},
		{"composite in a v2 file", `{"version": 2, "composite": {}}`, "composite", "unknown key in a version 2 file", "remove it"},
		{"clause key twice in a v2 file", `{"version": 2, "sub_metrics": {"completeness.response": 0.5, "completeness.clause": 0.6}}`,
			"sub_metrics.completeness.response", "gives both", "keep one"},
		{"coverage below 0", `{"version": 3, "sub_metrics": {"completeness.response": -0.1}}`, "sub_metrics.completeness.response", "not in [0, 1]", "share of a gold reply"},
		{"composite where none applies", `{"version": 3, "composite": {"completeness.response": ` + fittedJSON + `}}`, "composite.completeness.response", "no composite applies there", "aem sweep --fit"},
		{"composite unknown key", `{"version": 3, "composite": {"default": {"features": ["cosine"], "weights": [1]}}}`, "composite.default.weights", "unknown key", "coefficients"},
		{"composite unknown feature", `{"version": 3, "composite": {"default": ` + strings.Replace(fittedJSON, `"number_mismatch"`, `"numbers"`, 1) + `}}`, "composite.default", "unknown feature", "refit"},
		{"composite field not a path", `{"version": 3, "composite_fields": {"truthfulness.values": 0.5}}`, "composite_fields.truthfulness.values", "not a field path", "tool.action.param"},
		{"composite field above 1", `{"version": 3, "composite_fields": {"a.b.c": 1.5}}`, "composite_fields.a.b.c", "1.5 is not in [0, 1]", "probability"},
		{"composite fields in a v2 file", `{"version": 2, "composite_fields": {"a.b.c": 0.5}}`, "composite_fields", "unknown key in a version 2 file", "remove it"},
		{"composite threshold above 1", `{"version": 3, "composite": {"default": ` + strings.Replace(fittedJSON, `"threshold": 0.42`, `"threshold": 1.42`, 1) + `}}`, "composite.default", "1.42 is not in [0, 1]", "probability threshold"},
		{"unknown key", `{"version": 2, "treshold": 0.5}`, "treshold", "unknown key", "threshold"},
		{"v2 key in a v1 file", `{"version": 1, "types": {"string": 0.8}}`, "types", "unknown key in a version 1 file", "sub_metrics"},
		{"v1 key in a v2 file", `{"version": 2, "model": "embed:x"}`, "model", "unknown key in a version 2 file", "embedding_model"},
		{"judge band in a v1 file", `{"version": 1, "judge_band": {"low": 0.3, "high": 0.8}}`, "judge_band", "unknown key in a version 1 file", "remove it"},
		{"judge band without high", `{"version": 2, "judge_band": {"low": 0.3}}`, "judge_band.high", "missing", "give high (the object needs low and high)"},
		{"judge band empty", `{"version": 2, "judge_band": {}}`, "judge_band.low", "missing", "low and high"},
		{"composite band without low", `{"version": 2, "judge_band": {"low": 0.3, "high": 0.8, "composite": {"high": 0.8}}}`, "judge_band.composite.low", "missing", "give low"},
		{"judge band unknown key", `{"version": 2, "judge_band": {"low": 0.3, "high": 0.8, "mid": 0.5}}`, "judge_band.mid", "unknown key", "low, high, composite"},
		{"judge band as a string", `{"version": 2, "judge_band": "0.35:0.8"}`, "judge_band", "a string where an object belongs", "write an object"},
		{"judge band bound null", `{"version": 2, "judge_band": {"low": null, "high": 0.8}}`, "judge_band.low", "null", "leave the key out"},
		{"judge band below -1", `{"version": 2, "judge_band": {"low": -1.5, "high": 0.8}}`, "judge_band.low", "-1.5 is not in [-1, 1]", "a similarity between -1 and 1"},
		{"judge band above 1", `{"version": 2, "judge_band": {"low": 0.3, "high": 1.2}}`, "judge_band.high", "1.2 is not in [-1, 1]", "a similarity"},
		{"judge band reversed", `{"version": 2, "judge_band": {"low": 0.8, "high": 0.35}}`, "judge_band", "low 0.8 is above high 0.35", "swap them"},
		{"composite band below 0", `{"version": 2, "judge_band": {"low": 0.3, "high": 0.8, "composite": {"low": -0.1, "high": 0.8}}}`, "judge_band.composite.low", "-0.1 is not in [0, 1]", "a probability between 0 and 1"},
		{"composite band reversed", `{"version": 2, "judge_band": {"low": 0.3, "high": 0.8, "composite": {"low": 0.9, "high": 0.1}}}`, "judge_band.composite", "above high", "swap them"},
		{"unknown nested key", `{"version": 2, "embedding_model": {"id": "use-lite", "sha": "x"}}`, "embedding_model.sha", "unknown key", "id, sha256"},
		{"threshold as string", `{"version": 2, "threshold": "0.5"}`, "threshold", "a string where a number belongs", "write a number"},
		{"threshold too big to read", `{"version": 2, "threshold": 1e400}`, "threshold", "1e400 is not a finite number", "write a number"},
		{"sub_metrics not an object", `{"version": 2, "sub_metrics": [0.5]}`, "sub_metrics", "an array where an object belongs", "write an object"},
		{"field value as bool", `{"version": 2, "fields": {"a.b.c": true}}`, "fields.a.b.c", "a boolean where a number belongs", "write a number"},
		{"top-level unknown key holding a null", `{"version": 2, "x": {"y": [null]}}`, "x.y[0]", "null", "leave the key out"},
		{"top-level unknown key", `{"version": 2, "x": {"y": [1]}}`, "x", "unknown key in a version 2 file", "embedding_model"},
		{"model id as number", `{"version": 2, "embedding_model": {"id": 5}}`, "embedding_model.id", "a number where a string belongs", "write a string"},
		{"threshold above 1", `{"version": 2, "threshold": 1.5}`, "threshold", "1.5 is not in [-1, 1]", "between -1 and 1"},
		{"threshold below -1", `{"version": 1, "threshold": -2}`, "threshold", "-2 is not in [-1, 1]", "between -1 and 1"},
		{"sub-metric out of range", `{"version": 2, "sub_metrics": {"truthfulness.values": 7}}`, "sub_metrics.truthfulness.values", "not in [-1, 1]", "0 is allowed"},
		{"type out of range", `{"version": 2, "types": {"string": -3}}`, "types.string", "not in [-1, 1]", "between -1 and 1"},
		{"field out of range", `{"version": 2, "fields": {"a.b.c": 1.01}}`, "fields.a.b.c", "not in [-1, 1]", "between -1 and 1"},
		{"unknown sub-metric", `{"version": 2, "sub_metrics": {"truthfulness": 0.5}}`, "sub_metrics.truthfulness", "unknown sub_metrics key", "truthfulness.values, truthfulness.response, completeness.clause, completeness.response"},
		{"unknown type", `{"version": 2, "types": {"str": 0.5}}`, "types.str", "unknown types key", "string, number"},
		{"field too short", `{"version": 2, "fields": {"metric": 0.5}}`, "fields.metric", "not a field path", "tool.action.param"},
		{"field empty part", `{"version": 2, "fields": {"a..c": 0.5}}`, "fields.a..c", "not a field path", "tool.action.param"},
		{"field before the naming rule", `{"version": 2, "fields": {".get_weather.city": 0.5}}`, "fields..get_weather.city", "not a field path", "get_weather.call.city"},
		{"model without id", `{"version": 2, "embedding_model": {"sha256": "` + sha + `"}}`, "embedding_model.id", "empty", "use-lite"},
		{"model bad sha256", `{"version": 2, "embedding_model": {"id": "m", "sha256": "ABC"}}`, "embedding_model.sha256", "not a sha256", "64 lower-case hex"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.json", []byte(tc.data))
			var e *badinput.RowError
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalid) || !errors.Is(err, badinput.ErrInvalid) {
				t.Fatalf("err = %v, want a *badinput.RowError matching ErrInvalid", err)
			}
			if e.File != "bad.json" || e.Field != tc.key || !strings.Contains(e.Problem, tc.problem) || !strings.Contains(e.Fix, tc.fix) {
				t.Errorf("got file %q key %q problem %q fix %q\nwant key %q, problem with %q, fix with %q", e.File, e.Field, e.Problem, e.Fix, tc.key, tc.problem, tc.fix)
			}
			if msg := err.Error(); !strings.Contains(msg, "bad.json") || !strings.Contains(msg, e.Fix) {
				t.Errorf("message %q lacks the file or the fix", msg)
			}
		})
	}
}

// fitted is a composite as aem sweep --fit writes it; fittedJSON its JSON.
func fitted() *composite.Model {
	return &composite.Model{Features: []string{"cosine", "number_mismatch"}, Mean: []float64{0.6, 0.1}, Scale: []float64{0.2, 0.3},
		Coefficients: []float64{2.5, -1.5}, Intercept: 0.3, Threshold: 0.42, L2: 0.01,
		EmbeddingModel: composite.EmbeddingModel{ID: "embed:use-lite@sha256:" + sha, SHA256: sha},
		HeldOut: &composite.HeldOut{Samples: 10, Positive: 6, Negative: 4, Folds: 5, Figures: composite.Figures{Accuracy: 0.9, F1: 0.9, MCC: 0.8, ROCAUC: 0.95},
			CosineOnly: composite.Figures{Accuracy: 0.7, F1: 0.75, MCC: 0.4, ROCAUC: 0.8}}}
}

const fittedJSON = `{"features": ["cosine", "number_mismatch"], "mean": [0.6, 0.1], "scale": [0.2, 0.3], "coefficients": [2.5, -1.5],
	"intercept": 0.3, "threshold": 0.42, "embedding_model": {"id": "lexical"}}`

func TestReadErrors(t *testing.T) {
	if _, err := Read(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "reading thresholds file") {
		t.Errorf("missing file: %v", err)
	}
	p := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(p, []byte(`{"version": 2, "threshold": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) {
		t.Errorf("bad file: %v", err)
	}
}

// TestRoundTrip writes files with Write and reads them back with Read.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i, f := range []File{
		{Version: 2, Threshold: ptr(0)},
		{Version: 2, Threshold: ptr(0.5), SubMetrics: map[string]float64{"truthfulness.values": 0.75},
			Types: map[string]float64{"string": 0.8}, Fields: map[string]float64{"t.a.p": -0.25, "t.a.p.sub[1]": 1},
			EmbeddingModel: &Model{ID: "use-lite", SHA256: sha}, Source: "aem sweep out (objective f1)"},
		{Version: 2, Fields: map[string]float64{"t.a.p": 0.9}},
		{Version: 2, Threshold: ptr(0.6), JudgeBand: &JudgeBand{Low: 0.41, High: 0.77, Composite: &Band{Low: 0.2, High: 0.8}}},
		{Version: 2, JudgeBand: &JudgeBand{Low: 0, High: 0}},
		{Version: 1, Threshold: ptr(0.6), Model: "lexical", Source: "by hand"},
		New(metrics.Thresholds{Threshold: 0.55, SubMetrics: map[string]float64{"completeness.response": 0}, Source: "s"}, "embed:use-lite@sha256:"+sha),
		{Version: 3, Threshold: ptr(0.5), Composite: map[string]*composite.Model{"default": fitted(), "truthfulness.response": fitted()},
			CompositeFields: map[string]float64{"w.get.unit": 0.7, "t.a.p.sub[0]": 0}},
	} {
		p := filepath.Join(dir, "t.json")
		if err := Write(p, f); err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		got, err := Read(p)
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if d := cmp.Diff(f, got); d != "" {
			t.Errorf("file %d: -wrote +read:\n%s", i, d)
		}
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, f := range []File{
		{Threshold: ptr(0.5)},             // no version
		{Version: 5, Threshold: ptr(0.5)}, // future version
		{Version: 2, Threshold: ptr(1.5)}, // out of range
		{Version: 2, Model: "lexical"},    // a v1 key
		{Version: 1, Types: map[string]float64{"string": 0.5}},
		{Version: 1, JudgeBand: &JudgeBand{Low: 0.3, High: 0.8}},
		{Version: 2, JudgeBand: &JudgeBand{Low: 0.9, High: 0.8}},
	} {
		if b, err := Encode(f); err == nil {
			t.Errorf("Encode(%+v) = %s, want an error", f, b)
		}
	}
	if err := Write(filepath.Join(t.TempDir(), "t.json"), File{Version: 2, Threshold: ptr(9)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Write of an invalid file: %v", err)
	}
}

// TestEncodeLayout pins the bytes aem sweep writes.
func TestEncodeLayout(t *testing.T) {
	b, err := Encode(New(metrics.Thresholds{Threshold: 0.5, SubMetrics: map[string]float64{"truthfulness.values": 0.7}, Source: "aem sweep x"}, "lexical"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "version": 4,
  "threshold": 0.5,
  "sub_metrics": {
    "truthfulness.values": 0.7
  },
  "embedding_model": {
    "id": "lexical"
  },
  "source": "aem sweep x"
}
`
	if d := cmp.Diff(want, string(b)); d != "" {
		t.Errorf("-want +got:\n%s", d)
	}
}

// TestLookupCarriesCompositeThresholds: the metric holds a composite's
// comparisons to the model's own threshold.
func TestLookupCarriesCompositeThresholds(t *testing.T) {
	m := fitted()
	f := &File{Version: 3, Threshold: ptr(0.5), Composite: map[string]*composite.Model{"truthfulness.values": m},
		CompositeFields: map[string]float64{"w.get.unit": 0.7}}
	got := Lookup(f, 0.5, false)
	if d := cmp.Diff(map[string]float64{"truthfulness.values": 0.42, "w.get.unit": 0.7}, got.Composite); d != "" {
		t.Errorf("composite thresholds -want +got:\n%s", d)
	}
	if a := got.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, By: metrics.ByComposite}); a != (metrics.Applied{Value: 0.42, From: "composite.truthfulness.values"}) {
		t.Errorf("For(composite value) = %+v", a)
	}
	unit := metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Field: "w.get.unit", Param: "w.get.unit", By: metrics.ByComposite}
	if a := got.For(unit); a != (metrics.Applied{Value: 0.7, From: "composite.w.get.unit"}) {
		t.Errorf("For(composite value of a field with its own) = %+v", a)
	}
	if a := got.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, By: metrics.ByEmbed}); a != (metrics.Applied{Value: 0.5, From: "threshold"}) {
		t.Errorf("For(embed value) = %+v", a)
	}
	if f.Composites()["truthfulness.values"] != m || (&File{}).Composites() != nil {
		t.Errorf("Composites: %v", f.Composites())
	}
}

// TestLookup covers how --threshold combines with a file.
func TestLookup(t *testing.T) {
	file := &File{Version: 2, Threshold: ptr(0), SubMetrics: map[string]float64{"truthfulness.values": 0.75},
		Types: map[string]float64{"string": 0.8}, Fields: map[string]float64{"a.b.c": 0.9}, Source: "src"}
	noGlobal := &File{Version: 2, Fields: map[string]float64{"a.b.c": 0.9}}
	tests := []struct {
		name     string
		f        *File
		flag     float64
		explicit bool
		want     metrics.Thresholds
	}{
		{"no file: the flag", nil, 0.6, false, metrics.Thresholds{Threshold: 0.6}},
		{"file's global 0 beats the default flag", file, 0.5, false, metrics.Thresholds{Threshold: 0,
			SubMetrics: file.SubMetrics, Types: file.Types, Fields: file.Fields, Source: "src"}},
		{"an explicit flag beats the file's global only", file, 0.3, true, metrics.Thresholds{Threshold: 0.3,
			SubMetrics: file.SubMetrics, Types: file.Types, Fields: file.Fields, Source: "src"}},
		{"file without a global keeps the flag", noGlobal, 0.7, false, metrics.Thresholds{Threshold: 0.7, Fields: noGlobal.Fields}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Lookup(tc.f, tc.flag, tc.explicit)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("-want +got:\n%s", d)
			}
		})
	}
	got := Lookup(file, 0.5, false)
	got.Fields["a.b.c"] = 0
	if file.Fields["a.b.c"] != 0.9 {
		t.Error("Lookup shares its maps with the file")
	}
}

func TestModelOfAndCheckScorer(t *testing.T) {
	for id, want := range map[string]Model{
		"embed:use-lite@sha256:" + sha: {ID: "use-lite", SHA256: sha},
		"embed:custom":                 {ID: "custom"},
		"embed:use-lite@sha256:" + sha + "+judge:gpt-4o-mini@prompt-1[band 0.35:0.8]": {ID: "use-lite", SHA256: sha},
		"judge:gpt-4o-mini@prompt-1": {ID: "judge:gpt-4o-mini@prompt-1"},
		"lexical":                    {ID: "lexical"},
	} {
		if got := ModelOf(id); got != want {
			t.Errorf("ModelOf(%q) = %+v, want %+v", id, got, want)
		}
	}
	use := File{Version: 2, EmbeddingModel: &Model{ID: "use-lite", SHA256: sha}}
	anySHA := File{Version: 2, EmbeddingModel: &Model{ID: "use-lite"}}
	tests := []struct {
		f      File
		scorer string
		ok     bool
	}{
		{use, "embed:use-lite@sha256:" + sha, true},
		{use, "embed:use-lite@sha256:" + strings.Repeat("f", 64), false},
		{use, "lexical", false},
		{anySHA, "embed:use-lite@sha256:" + sha, true},
		{anySHA, "embed:other@sha256:" + sha, false},
		{File{Version: 2, EmbeddingModel: &Model{ID: "lexical"}}, "lexical", true},
		{File{Version: 1, Model: "embed:other"}, "lexical", true}, // version 1's model is informative
	}
	for _, tc := range tests {
		err := tc.f.CheckScorer("t.json", tc.scorer)
		if (err == nil) != tc.ok {
			t.Errorf("%+v with %s: err %v, want ok %v", tc.f.EmbeddingModel, tc.scorer, err, tc.ok)
		}
		var e *badinput.RowError
		if err != nil && (!errors.As(err, &e) || e.Field != "embedding_model" || !strings.Contains(err.Error(), "aem sweep")) {
			t.Errorf("refusal %v does not name the key and the fix", err)
		}
	}
}

// TestKinds: version 4's "kinds" and "field_kinds" reach the lookup; a
// kind no threshold applies to, a field kind that is no kind, and the keys
// in an older version are refused, naming the key.
func TestKinds(t *testing.T) {
	f, err := Decode("t.json", []byte(`{"version": 4, "threshold": 0.5, "kinds": {"name": 0.8, "category": 0.7},
		"field_kinds": {"crm.lookup.ref": "text"}}`))
	if err != nil {
		t.Fatal(err)
	}
	l := Lookup(&f, 0.5, false)
	if got := l.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Kind: "name"}); got != (metrics.Applied{Value: 0.8, From: "kinds.name"}) {
		t.Errorf("name: %+v", got)
	}
	if got := l.For(metrics.ThresholdQuery{SubMetric: metrics.SubTruthValues, Kind: "text"}); got != (metrics.Applied{Value: 0.5, From: "threshold"}) {
		t.Errorf("text: %+v", got)
	}
	if k, ok := l.KindFor("crm.lookup.ref[0]", "crm.lookup.ref"); !ok || k != "text" {
		t.Errorf("field kind %q %v", k, ok)
	}
	for _, c := range []struct{ data, key string }{
		{`{"version": 4, "kinds": {"date": 0.8}}`, "kinds.date"},
		{`{"version": 4, "field_kinds": {"a.b.c": "colour"}}`, "field_kinds.a.b.c"},
		{`{"version": 4, "field_kinds": {"c": "text"}}`, "field_kinds.c"},
		{`{"version": 3, "kinds": {"name": 0.8}}`, "kinds"},
	} {
		_, err := Decode("t.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("Decode(%s) = %v, want a refusal naming %s", c.data, err, c.key)
		}
	}
}
