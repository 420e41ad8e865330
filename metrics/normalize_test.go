package metrics

import (
	"slices"
	"testing"

	"github.com/aem-dev/aem/tooldef"
)

// TestSchemaKinds: with tool definitions, enum values and strings with a
// pattern are identifiers, compared exactly after normalisation; a format
// names the kind (a date compares as a date); keys name identifiers and
// codes, with definitions or without; none of these reaches the scorer,
// even one that calls everything the same; free text does.
func TestSchemaKinds(t *testing.T) {
	tools := mustTools(t, `[{"name": "f", "parameters": {"type": "object", "properties": {
	  "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
	  "when": {"type": "string", "format": "date"},
	  "ref": {"type": "string", "pattern": "^[A-Z]+$"},
	  "order_id": {"type": "string"},
	  "countryCode": {"type": "string"},
	  "note": {"type": "string"},
	  "units": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
	  "filter": {"type": "object", "properties": {"currency": {"type": "string"}, "text": {"type": "string"}}}}}}]`)
	tests := []struct {
		gold, pred string
		method     string
		pass       bool
		// passWithout is the verdict without tool definitions, where the
		// key and the value decide the kind (the scorer passes all).
		passWithout bool
	}{
		{`{"unit": "celsius"}`, `{"unit": "Celsius"}`, MethodNormalized, true, true},
		{`{"unit": "celsius"}`, `{"unit": "fahrenheit"}`, MethodDiffers, false, false}, // two units of temperature
		{`{"unit": "celsius"}`, `{"unit": "C"}`, MethodDiffers, false, true},           // the enum's spelling only
		{`{"unit": {"$any": ["celsius"]}}`, `{"unit": "fahrenheit"}`, MethodAny, false, false},
		{`{"when": "2024-01-01"}`, `{"when": "Jan 1 2024"}`, MethodParsedEqual, true, true},
		{`{"when": "2024-01-01"}`, `{"when": "Jan 2 2024"}`, MethodParsedDiffers, false, false},
		{`{"ref": "ABC"}`, `{"ref": "ABD"}`, MethodDiffers, false, false}, // without definitions two different names
		{`{"order_id": "A-123"}`, `{"order_id": "a123"}`, MethodNormalized, true, true},
		{`{"order_id": "A-123"}`, `{"order_id": "A-124"}`, MethodDiffers, false, false},
		{`{"countryCode": "FR"}`, `{"countryCode": "France"}`, MethodParsedEqual, true, true},
		{`{"note": "see you soon"}`, `{"note": "talk later"}`, MethodSemantic, true, true},
		{`{"units": ["a", "b"]}`, `{"units": ["a", "a"]}`, MethodDiffers, false, true},
		{`{"filter": {"currency": "EUR", "text": "cheap"}}`, `{"filter": {"currency": "USD", "text": "inexpensive"}}`, MethodParsedDiffers, false, false},
	}
	for _, tt := range tests {
		d := Dialog{ID: "d", Tools: tools, Turns: []Turn{{DialogID: "d", TurnNo: 1, Role: RoleTool, HasGold: true, HasPredict: true,
			Gold: call(t, "f", tt.gold), Predict: call(t, "f", tt.pred)}}}
		res, err := Evaluate(t.Context(), fixedScorer(1), DefaultConfig(), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		v := res[0].Turns[0]
		if v.Pass != tt.pass || !slices.ContainsFunc(v.FieldScores, func(f FieldScore) bool { return f.Method == tt.method }) {
			t.Errorf("%s vs %s: pass %v scores %+v, want pass %v with a %q score", tt.gold, tt.pred, v.Pass, v.FieldScores, tt.pass, tt.method)
		}
		for _, f := range v.FieldScores {
			if f.Method != MethodSemantic && f.Method != MethodAny && f.Threshold != 0 {
				t.Errorf("a comparison decided by its kind records no threshold: %+v", f)
			}
			if f.Kind == "" {
				t.Errorf("%+v records no kind", f)
			}
		}
		d.Tools = nil
		res, err = Evaluate(t.Context(), fixedScorer(1), DefaultConfig(), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Turns[0].Pass != tt.passWithout {
			t.Errorf("%s vs %s without tools: pass %v, want %v: %+v", tt.gold, tt.pred, res[0].Turns[0].Pass, tt.passWithout, res[0].Turns[0].FieldScores)
		}
	}
}

func TestLastKey(t *testing.T) {
	for path, want := range map[string]string{"t.a.x": "x", "t.a.x[2]": "x", "t.a.x[0].y": "y", "t.a.x[0][1]": "x", "p": "p"} {
		if got := lastKey(path); got != want {
			t.Errorf("lastKey(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestSchemaAt(t *testing.T) {
	tools := mustTools(t, `[{"name": "f", "parameters": {"type": "object", "$defs": {"P": {"type": "object", "properties": {"q": {"type": "integer"}}}},
	  "properties": {"a": {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}}, "r": {"$ref": "#/$defs/P"}}}}]`)
	f := tools.Lookup("f")
	for rel, want := range map[string]tooldef.Type{"a": tooldef.Array, "a[3]": tooldef.Object, "a[0].b": tooldef.String, "r.q": tooldef.Integer, "zz": "", "a[x]": "", "a[0].b.c": ""} {
		if got := schemaAt(f, rel).Type(); got != want {
			t.Errorf("schemaAt(%q) = %q, want %q", rel, got, want)
		}
	}
	if schemaAt(nil, "a") != nil {
		t.Error("no tool, no schema")
	}
}
