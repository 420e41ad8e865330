package tooldef

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
)

func mustParseFile(t *testing.T, name string) *Set {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse(name, data)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return s
}

func names(s *Set) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name)
	}
	return out
}

func TestParseDialects(t *testing.T) {
	tests := []struct {
		file  string
		names []string
	}{
		{"openai.json", []string{"get_weather", "ping"}},
		{"mcp.json", []string{"search_issues", "create_issue"}},
		{"bfcl.jsonl", []string{"uber.ride", "math.mean", "math_mean"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustParseFile(t, tt.file)
			if got := names(s); !slices.Equal(got, tt.names) {
				t.Errorf("names = %v, want %v", got, tt.names)
			}
		})
	}
}

func TestParseSchemaDetails(t *testing.T) {
	w := mustParseFile(t, "openai.json").Lookup("get_weather")
	p := w.Parameters
	if !slices.Equal(p.Required, []string{"city"}) || !p.ClosedObject {
		t.Errorf("required %v closed %v", p.Required, p.ClosedObject)
	}
	unit := w.Param("unit")
	if !slices.Equal(unit.Types, []Type{Null, String}) || len(unit.Enum) != 3 || !unit.HasDefault || unit.Default != "celsius" {
		t.Errorf("unit = %+v", unit)
	}
	if got := w.Param("window").Types; !slices.Equal(got, []Type{Integer, String}) {
		t.Errorf("anyOf of bare types folds into Types: got %v", got)
	}
	if w.Param("tags").Items.Type() != String {
		t.Errorf("tags items = %+v", w.Param("tags").Items)
	}
	if !w.IsRequired("city") || w.IsRequired("unit") {
		t.Error("IsRequired")
	}
	if ping := mustParseFile(t, "openai.json").Lookup("ping"); ping.Parameters != nil || ping.Description == "" {
		t.Errorf("ping = %+v", ping)
	}

	m := mustParseFile(t, "mcp.json").Lookup("search_issues")
	if m.Param("created").Ref == nil || m.Param("created").Ref.Properties["from"].Type() != String {
		t.Errorf("$ref not resolved: %+v", m.Param("created"))
	}
	if m.Param("state").AnyOf == nil || m.Param("state").Type() != "" {
		t.Errorf("anyOf with an enum stays an anyOf: %+v", m.Param("state"))
	}

	b := mustParseFile(t, "bfcl.jsonl")
	mean := b.Lookup("math.mean")
	for param, want := range map[string]Type{"numbers": Array, "weights": Array, "options": Object, "label": ""} {
		if got := mean.Param(param).Type(); got != want {
			t.Errorf("BFCL %s: type %q, want %q", param, got, want)
		}
	}
	if mean.Param("numbers").Items.Type() != Number || mean.Param("weights").Declared != "tuple" {
		t.Errorf("float items / tuple: %+v", mean.Param("numbers").Items)
	}
	if b.Lookup("uber.ride").Parameters.Type() != Object {
		t.Error("dict is object")
	}
}

func TestParseJSONLinesAndJSONRoundTrip(t *testing.T) {
	s := mustParseFile(t, "bfcl.jsonl")
	again, err := Parse("again", s.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(again), names(s)) || string(again.JSON()) != string(s.JSON()) {
		t.Errorf("JSON round trip differs:\n%s\n%s", again.JSON(), s.JSON())
	}
	empty, err := Parse("none", []byte(" [] "))
	if err != nil || empty.Len() != 0 || string(empty.JSON()) != "[]" {
		t.Errorf("empty array: %v %v", empty, err)
	}
}

func TestLookup(t *testing.T) {
	s := mustParseFile(t, "bfcl.jsonl")
	tests := []struct{ name, want string }{
		{"uber.ride", "uber.ride"},
		{"uber_ride", "uber.ride"}, // "." sent as "_"
		{"math.mean", "math.mean"}, // exact wins over the loose twin
		{"math_mean", "math_mean"},
		{"uber-ride", ""},
		{"Uber.ride", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got := ""
		if tool := s.Lookup(tt.name); tool != nil {
			got = tool.Name
		}
		if got != tt.want {
			t.Errorf("Lookup(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	amb, err := Parse("amb", []byte(`[{"name": "a.b_c"}, {"name": "a_b.c"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if amb.Lookup("a_b_c") != nil {
		t.Error("an ambiguous loose match must not resolve")
	}
	if amb.Lookup("a.b_c") == nil {
		t.Error("exact match")
	}
	resolve := []struct {
		names []string
		want  string
	}{
		{[]string{"uber.ride", "ride"}, "uber.ride"},
		{[]string{"uber_ride"}, "uber.ride"},
		{[]string{"other.uber.ride", "uber.ride"}, "uber.ride"},
		{[]string{"uber.walk", "walk"}, ""},
		{nil, ""},
	}
	for _, tt := range resolve {
		got := ""
		if tool := s.Resolve(tt.names...); tool != nil {
			got = tool.Name
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.names, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in    string
		line, index int
		field, want string
	}{
		{"empty", "  \n", 0, -1, "", "input is empty"},
		{"not json", "[{]", 1, 0, "", "not valid JSON"},
		{"truncated", "[{\"name\": \"a\"}", 1, -1, "", "ends too early"},
		{"array of strings", `["a"]`, 1, 0, "", "expected a definition object, got a string"},
		{"jsonl scalar", "{\"name\": \"a\"}\n42\n", 2, 1, "", "got an integer"},
		{"trailing", `[] []`, 0, -1, "", "data after the JSON array"},
		{"no name", `[{"description": "x"}]`, 1, 0, "name", "non-empty string name"},
		{"blank name", `[{"name": " "}]`, 1, 0, "name", "non-empty string name"},
		{"openai no name", `[{"type": "function", "function": {"parameters": {}}}]`, 1, 0, "function.name", "non-empty"},
		{"description", `[{"name": "a", "description": 3}]`, 1, 0, "description", "must be a string"},
		{"duplicate", "{\"name\": \"a\"}\n{\"name\": \"b\"}\n{\"name\": \"a\"}", 3, 2, "name", `"a" is defined twice (also definition 0)`},
		{"typo", `[{"name": "a", "paramters": {"type": "object"}}]`, 1, 0, "paramters", `unknown key "paramters"`},
		{"two schemas", `[{"name": "a", "parameters": {}, "inputSchema": {}}]`, 1, 0, "inputSchema", `both "parameters" and "inputSchema"`},
		{"not object schema", `[{"name": "a", "parameters": {"type": "string"}}]`, 1, 0, "parameters.type", "must describe an object"},
		{"schema not object", `[{"name": "a", "parameters": {"type": "object", "properties": {"x": "string"}}}]`, 1, 0, "parameters.properties.x", "a schema must be a JSON object, got a string"},
		{"unknown type", `[{"name": "a", "parameters": {"type": "dict", "properties": {"x": {"type": "text"}}}}]`, 1, 0, "parameters.properties.x.type", `unknown type "text"`},
		{"type number", `[{"name": "a", "parameters": {"type": 5}}]`, 1, 0, "parameters.type", "a name or a list"},
		{"type list item", `[{"name": "a", "parameters": {"type": ["object", 1]}}]`, 1, 0, "parameters.type[1]", "must be a string"},
		{"enum not list", `[{"name": "a", "parameters": {"properties": {"u": {"enum": "c"}}}}]`, 1, 0, "parameters.properties.u.enum", "JSON array"},
		{"properties not object", `[{"name": "a", "parameters": {"properties": []}}]`, 1, 0, "parameters.properties", "object of parameter schemas"},
		{"required not list", `[{"name": "a", "parameters": {"required": "x"}}]`, 1, 0, "parameters.required", "JSON array"},
		{"required item", `[{"name": "a", "parameters": {"required": [1]}}]`, 1, 0, "parameters.required[0]", "must be a string"},
		{"items list bad", `[{"name": "a", "parameters": {"properties": {"x": {"items": [1]}}}}]`, 1, 0, "parameters.properties.x.items[0]", "must be a JSON object"},
		{"anyOf empty", `[{"name": "a", "parameters": {"properties": {"x": {"anyOf": []}}}}]`, 1, 0, "parameters.properties.x.anyOf", "at least one"},
		{"anyOf not list", `[{"name": "a", "parameters": {"properties": {"x": {"oneOf": {}}}}}]`, 1, 0, "parameters.properties.x.oneOf", "JSON array of schemas"},
		{"ref unknown", `[{"name": "a", "parameters": {"properties": {"x": {"$ref": "#/$defs/Nope"}}}}]`, 1, 0, "parameters.properties.x.$ref", "does not name a schema"},
		{"ref remote", `[{"name": "a", "parameters": {"properties": {"x": {"$ref": "https://x/y.json"}}}}]`, 1, 0, "parameters.properties.x.$ref", "does not name"},
		{"ref not string", `[{"name": "a", "parameters": {"properties": {"x": {"$ref": 1}}}}]`, 1, 0, "parameters.properties.x.$ref", "must be a string"},
		{"ref cycle", `[{"name": "a", "parameters": {"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "object"}]}}, "properties": {"x": {"$ref": "#/$defs/A"}}}}]`, 1, 0, "parameters.$defs.A", "circular $ref"},
		{"defs not object", `[{"name": "a", "parameters": {"$defs": []}}]`, 1, 0, "parameters.$defs", "object of schemas"},
		{"line of second def", "[\n {\"name\": \"a\"},\n {\"name\": \"b\",\n  \"parameters\": {\"type\": \"list\"}}\n]", 3, 1, "parameters.type", "must describe an object, not list"},
		{"wrapper error line", "\n{\"tools\": [{\"name\": 1}]}", 2, 0, "name", "non-empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("defs.json", []byte(tt.in))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid: %v", err)
			}
			var e *badinput.RowError
			if !errors.As(err, &e) || !errors.Is(err, badinput.ErrInvalid) {
				t.Fatalf("not a *badinput.RowError: %T %v", err, err)
			}
			if e.File != "defs.json" || e.Line != tt.line || e.Row != int64(tt.index) || e.Field != tt.field {
				t.Errorf("got file %q line %d row %d field %q, want line %d row %d field %q (%v)",
					e.File, e.Line, e.Row, e.Field, tt.line, tt.index, tt.field, err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestParseAcceptsUnknownKeywordsAndKeys(t *testing.T) {
	in := `[{"name": "a", "strict": true, "x-vendor": 1,
	  "parameters": {"type": "object", "title": "A", "properties": {"d": {"type": "string", "format": "date", "pattern": "^\\d+$", "minLength": 1, "examples": ["1"]}}}}]`
	s, err := Parse("a", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Lookup("a").Param("d").Type() != String {
		t.Error("type lost")
	}
}

func TestParseBooleanAndNullableSchemas(t *testing.T) {
	in := `[{"name": "a", "parameters": {"type": "object", "properties": {
	  "any": true, "none": false, "n": {"type": "integer", "nullable": true}, "c": {"const": "x"}, "c2": {"enum": ["y"], "const": "x"}}}}]`
	s, err := Parse("a", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Lookup("a")
	if a.Param("any").Never || !a.Param("none").Never {
		t.Error("boolean schemas")
	}
	if !slices.Equal(a.Param("n").Types, []Type{Integer, Null}) {
		t.Errorf("nullable: %v", a.Param("n").Types)
	}
	if len(a.Param("c").Enum) != 1 || len(a.Param("c2").Enum) != 0 {
		t.Errorf("const: %v %v", a.Param("c").Enum, a.Param("c2").Enum)
	}
}

// TestReadOnlyHint: MCP's annotations.readOnlyHint is read from every
// dialect that can carry it; a malformed hint is refused.
func TestReadOnlyHint(t *testing.T) {
	s := mustParseFile(t, "readonly.jsonl")
	want := map[string]bool{"get_user": true, "delete_user": false, "update_user": false, "search_flights": true,
		"list_orders": true, "get_status": true, "calculate": true, "book_flight": false}
	for name, ro := range want {
		if tool := s.Lookup(name); tool == nil || tool.ReadOnly != ro {
			t.Errorf("%s: read-only %v, want %v", name, tool != nil && tool.ReadOnly, ro)
		}
	}
	for _, bad := range []struct{ def, field string }{
		{`{"name": "f", "annotations": {"readOnlyHint": "yes"}}`, "annotations.readOnlyHint"},
		{`{"name": "f", "annotations": true}`, "annotations"},
		{`{"type": "function", "function": {"name": "f", "annotations": {"readOnlyHint": 1}}}`, "function.annotations.readOnlyHint"},
	} {
		_, err := Parse("tools.json", []byte(bad.def))
		var re *badinput.RowError
		if !errors.As(err, &re) || re.Field != bad.field {
			t.Errorf("%s: got %v, want an error at %s", bad.def, err, bad.field)
		}
	}
}
