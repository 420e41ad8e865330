package metrics

import (
	"slices"
	"testing"

	"github.com/aem-dev/aem/tooldef"
)

func TestNormalizeText(t *testing.T) {
	same := [][2]string{
		{"April 1, 2024", "april 1 2024"},
		{"New-York", "new york"},
		{"San Francisco, CA", "SAN FRANCISCO,CA"},
		{"Straße", "STRASSE"},
		{"ＡＢＣ", "abc"}, // full width
		{"it's", "its"},
		{"a^b", "ab"},
		{"  x\t\n", "X"},
	}
	for _, p := range same {
		if NormalizeText(p[0]) != NormalizeText(p[1]) {
			t.Errorf("%q and %q should normalise alike: %q vs %q", p[0], p[1], NormalizeText(p[0]), NormalizeText(p[1]))
		}
	}
	differ := [][2]string{
		{"$5", "5"},
		{"1+1", "11"},
		{"celsius", "kelvin"},
	}
	for _, p := range differ {
		if NormalizeText(p[0]) == NormalizeText(p[1]) {
			t.Errorf("%q and %q should differ", p[0], p[1])
		}
	}
	// The ASCII fast path agrees with the Unicode path on every ASCII byte.
	for c := range 128 {
		in := "a" + string(rune(c)) + "B"
		fast, _ := normalizeASCII(in)
		if slow := normalizeUnicode(in); fast != slow {
			t.Errorf("byte %#x: fast %q, Unicode path %q", c, fast, slow)
		}
	}
	if NormalizeText("1.0") != "10" {
		t.Errorf("punctuation inside numbers goes too, as in BFCL: %q", NormalizeText("1.0"))
	}
}

// TestExactOnly: enum values, strings with a format or pattern, and
// identifiers and codes (by name) are never compared by the scorer, even
// one that calls everything the same; free text is.
func TestExactOnly(t *testing.T) {
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
	}{
		{`{"unit": "celsius"}`, `{"unit": "Celsius"}`, MethodNormalized, true},
		{`{"unit": "celsius"}`, `{"unit": "fahrenheit"}`, MethodExact, false},
		{`{"unit": {"$any": ["celsius"]}}`, `{"unit": "fahrenheit"}`, MethodAny, false},
		{`{"when": "2024-01-01"}`, `{"when": "Jan 1 2024"}`, MethodExact, false},
		{`{"ref": "ABC"}`, `{"ref": "ABD"}`, MethodExact, false},
		{`{"order_id": "A-123"}`, `{"order_id": "a123"}`, MethodNormalized, true},
		{`{"order_id": "A-123"}`, `{"order_id": "A-124"}`, MethodExact, false},
		{`{"countryCode": "FR"}`, `{"countryCode": "France"}`, MethodExact, false},
		{`{"note": "see you soon"}`, `{"note": "talk later"}`, MethodSemantic, true},
		{`{"units": ["a", "b"]}`, `{"units": ["a", "a"]}`, MethodExact, false},
		{`{"filter": {"currency": "EUR", "text": "cheap"}}`, `{"filter": {"currency": "USD", "text": "inexpensive"}}`, MethodExact, false},
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
			if f.Method == MethodExact && !f.Pass && f.Threshold != 0 {
				t.Errorf("an exact comparison records no threshold: %+v", f)
			}
		}
		// Without definitions every string but an equal one goes to the scorer.
		d.Tools = nil
		res, err = Evaluate(t.Context(), fixedScorer(1), DefaultConfig(), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		if !res[0].Turns[0].Pass {
			t.Errorf("%s vs %s without tools: %+v", tt.gold, tt.pred, res[0].Turns[0].FieldScores)
		}
	}
}

func TestIdentifierName(t *testing.T) {
	for name, want := range map[string]bool{
		"order_id": true, "userId": true, "user_ID": true, "ids": true, "countryCode": true, "currency": true,
		"phone_number": true, "homepage-url": true, "email": true, "version": true,
		"description": false, "query": false, "identity": false, "keyword": false, "decode": false, "": false, "Id": true,
	} {
		if got := identifierName(name); got != want {
			t.Errorf("identifierName(%q) = %v, want %v", name, got, want)
		}
	}
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

// BenchmarkNormalizeText: the normalised tier runs on every pair of
// different strings before the scorer; compare with BenchmarkLexicalPair,
// the cheapest scorer, in the same run.
func BenchmarkNormalizeText(b *testing.B) {
	gold, pred := "Quarterly revenue for EMEA, by product line", "quarterly profit for EMEA by product-line"
	for b.Loop() {
		_ = NormalizeText(gold) == NormalizeText(pred)
	}
}

func BenchmarkLexicalPair(b *testing.B) {
	cs := []Comparison{{Gold: "Quarterly revenue for EMEA, by product line", Predicted: "quarterly profit for EMEA by product-line"}}
	for b.Loop() {
		if _, err := (Lexical{}).Compare(b.Context(), cs); err != nil {
			b.Fatal(err)
		}
	}
}
