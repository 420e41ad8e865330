package tooldef

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func render3(vs []Violation) string {
	var b bytes.Buffer
	for _, v := range vs {
		fmt.Fprintf(&b, "%s|%s;", v.Field, v.Rule)
	}
	return b.String()
}

// TestValidateArgs has one case per schema rule that passes and one that
// fails it; want lists "field|rule;" for every violation, in order.
func TestValidateArgs(t *testing.T) {
	openai := mustParseFile(t, "openai.json")
	mcp := mustParseFile(t, "mcp.json")
	bfcl := mustParseFile(t, "bfcl.jsonl")
	tests := []struct {
		name string
		set  *Set
		tool string
		args string
		want string
	}{
		{"all good", openai, "get_weather", `{"city": "Paris", "unit": "celsius", "days": 3, "lat": 48.85, "alerts": false, "tags": ["a"], "window": 5, "filter": {"region": "EU", "min": 1}}`, ""},
		{"required only", openai, "get_weather", `{"city": "Paris"}`, ""},
		{"required missing", openai, "get_weather", `{"unit": "celsius"}`, "city|required;"},
		{"unknown parameter", openai, "get_weather", `{"city": "Paris", "country": "FR"}`, "country|unknown;"},
		{"string for integer", openai, "get_weather", `{"city": "Paris", "days": "3"}`, "days|type;"},
		{"float literal for integer", openai, "get_weather", `{"city": "Paris", "days": 3.0}`, "days|type;"},
		{"exponent for integer", openai, "get_weather", `{"city": "Paris", "days": 3e0}`, "days|type;"},
		{"integer for number", openai, "get_weather", `{"city": "Paris", "lat": 48}`, ""},
		{"string for number", openai, "get_weather", `{"city": "Paris", "lat": "48.8"}`, "lat|type;"},
		{"string for boolean", openai, "get_weather", `{"city": "Paris", "alerts": "false"}`, "alerts|type;"},
		{"number for boolean", openai, "get_weather", `{"city": "Paris", "alerts": 0}`, "alerts|type;"},
		{"boolean for string", openai, "get_weather", `{"city": true}`, "city|type;"},
		{"null for string", openai, "get_weather", `{"city": null}`, "city|type;"},
		{"null where nullable", openai, "get_weather", `{"city": "Paris", "unit": null}`, ""},
		{"enum outside", openai, "get_weather", `{"city": "Paris", "unit": "kelvin"}`, "unit|enum;"},
		{"enum is case sensitive", openai, "get_weather", `{"city": "Paris", "unit": "Celsius"}`, "unit|enum;"},
		{"array item type", openai, "get_weather", `{"city": "Paris", "tags": ["a", 2]}`, "tags[1]|type;"},
		{"array for string", openai, "get_weather", `{"city": ["Paris"]}`, "city|type;"},
		{"anyOf of types ok", openai, "get_weather", `{"city": "Paris", "window": "1h"}`, ""},
		{"anyOf of types bad", openai, "get_weather", `{"city": "Paris", "window": 1.5}`, "window|type;"},
		{"nested required", openai, "get_weather", `{"city": "Paris", "filter": {"min": 1}}`, "filter.region|required;"},
		{"nested closed object", openai, "get_weather", `{"city": "Paris", "filter": {"region": "EU", "max": 2}}`, "filter.max|unknown;"},
		{"nested type", openai, "get_weather", `{"city": "Paris", "filter": {"region": 1}}`, "filter.region|type;"},
		{"several in order", openai, "get_weather", `{"days": "x", "zz": 1, "alerts": 1}`, "city|required;alerts|type;days|type;zz|unknown;"},
		{"no parameters", openai, "ping", `{}`, ""},
		{"no parameters given one", openai, "ping", `{"x": 1}`, "x|unknown;"},

		{"mcp default null", mcp, "search_issues", `{"query": "bug", "state": null}`, ""},
		{"mcp anyOf enum ok", mcp, "search_issues", `{"query": "bug", "state": "open"}`, ""},
		{"mcp anyOf enum bad", mcp, "search_issues", `{"query": "bug", "state": "merged"}`, "state|enum;"},
		{"mcp anyOf wrong type", mcp, "search_issues", `{"query": "bug", "state": 3}`, "state|type;"},
		{"mcp ref ok", mcp, "search_issues", `{"query": "bug", "created": {"from": "2024-01-01"}}`, ""},
		{"mcp ref required", mcp, "search_issues", `{"query": "bug", "created": {"to": "2024-01-01"}}`, "created.from|required;"},
		{"mcp ref open object", mcp, "search_issues", `{"query": "bug", "created": {"from": "a", "tz": "UTC"}}`, ""},
		{"mcp keywords not checked", mcp, "search_issues", `{"query": "bug", "limit": 1000}`, ""},
		{"anthropic", mcp, "create_issue", `{}`, "title|required;"},

		{"bfcl ok", bfcl, "uber.ride", `{"loc": "2020 Addison Street", "type": "plus", "time": 10}`, ""},
		{"bfcl enum", bfcl, "uber.ride", `{"loc": "x", "type": "pool", "time": 10}`, "type|enum;"},
		{"bfcl float items take floats", bfcl, "math.mean", `{"numbers": [1.0, 2.5]}`, ""},
		{"bfcl float items refuse integer literals", bfcl, "math.mean", `{"numbers": [1, 2.5]}`, "numbers[0]|type;"},
		{"bfcl float items refuse strings", bfcl, "math.mean", `{"numbers": [1.0, "2"]}`, "numbers[1]|type;"},
		{"bfcl tuple is an array", bfcl, "math.mean", `{"numbers": [1.0], "weights": [0.5]}`, ""},
		{"bfcl tuple not object", bfcl, "math.mean", `{"numbers": [1.5], "weights": {"a": 1}}`, "weights|type;"},
		{"bfcl default accepted", bfcl, "math.mean", `{"numbers": [1.5], "weights": []}`, ""},
		{"a float equal to an integer default is no default", openai, "get_weather", `{"city": "P", "days": 1.0}`, "days|type;"},
		{"the integer default", openai, "get_weather", `{"city": "P", "days": 1}`, ""},
		{"bfcl any takes every type", bfcl, "math.mean", `{"numbers": [1.5], "label": {"x": [1]}}`, ""},
		{"bfcl dict", bfcl, "math.mean", `{"numbers": [1.5], "options": {"round": 2}}`, ""},
		{"bfcl dict inner type", bfcl, "math.mean", `{"numbers": [1.5], "options": {"round": "2"}}`, "options.round|type;"},
		{"bfcl dict open", bfcl, "math.mean", `{"numbers": [1.5], "options": {"other": 1}}`, ""},
		{"bfcl dict for array", bfcl, "math.mean", `{"numbers": {"a": 1}}`, "numbers|type;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := tt.set.Lookup(tt.tool)
			vs := tool.ValidateArgs(decode(t, tt.args))
			if got := render3(vs); got != tt.want {
				t.Errorf("violations %q, want %q\n%v", got, tt.want, vs)
			}
			for _, v := range vs {
				if v.Detail == "" {
					t.Errorf("violation without detail: %+v", v)
				}
			}
		})
	}
}

func TestViolationDetails(t *testing.T) {
	w := mustParseFile(t, "openai.json").Lookup("get_weather")
	tests := []struct{ args, want string }{
		{`{"city": "Paris", "days": "3"}`, `days: expected integer, got a string "3" (rule type)`},
		{`{"city": "Paris", "days": 2.5}`, `days: expected integer, got a number 2.5 (rule type)`},
		{`{"city": "Paris", "unit": "kelvin"}`, `unit: a string "kelvin" is not one of ["celsius","fahrenheit",null] (rule enum)`},
		{`{}`, `city: required parameter is missing (rule required)`},
		{`{"city": "P", "x": 1}`, `x: the schema has no such parameter (it has alerts, city, days, filter, lat, tags, unit, window) (rule unknown)`},
		{`{"city": "P", "window": []}`, `window: expected integer|string, got an array [] (rule type)`},
		{`{"city": "` + strings.Repeat("é", 40) + `", "lat": "` + strings.Repeat("é", 40) + `"}`, `lat: expected number, got a string "` + strings.Repeat("é", 28) + `... (rule type)`},
	}
	for _, tt := range tests {
		vs := w.ValidateArgs(decode(t, tt.args))
		if len(vs) != 1 || vs[0].String() != tt.want {
			t.Errorf("%s:\n got %v\nwant %s", tt.args, vs, tt.want)
		}
	}
}

func TestSchemaValidateCombinators(t *testing.T) {
	in := `[{"name": "a", "parameters": {"type": "object", "properties": {
	  "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": {"type": "boolean"}},
	  "old": {"type": "array", "items": [{"type": "string"}]},
	  "both": {"allOf": [{"type": "object", "required": ["x"]}, {"required": ["y"]}]},
	  "alt": {"oneOf": [{"type": "object", "properties": {"k": {"type": "integer"}}, "required": ["k"]}, {"type": "array"}]},
	  "extra": {"type": "object", "additionalProperties": {"type": "integer"}},
	  "none": false
	}, "additionalProperties": true}}]`
	s, err := Parse("a", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	a := s.Lookup("a")
	tests := []struct{ args, want string }{
		{`{"pair": ["a", 1, true, false]}`, ""},
		{`{"pair": [1, "a", "x"]}`, "pair[0]|type;pair[1]|type;pair[2]|type;"},
		{`{"old": ["a", 5]}`, ""},
		{`{"both": {"x": 1, "y": 2}}`, ""},
		{`{"both": {"x": 1}}`, "both.y|required;"},
		{`{"alt": {"k": 1}}`, ""},
		{`{"alt": []}`, ""},
		{`{"alt": {"k": "1"}}`, "alt.k|type;"},
		{`{"alt": "s"}`, "alt|type;"},
		{`{"extra": {"a": 1, "b": "x"}}`, "extra.b|type;"},
		{`{"none": 1}`, "none|type;"},
		{`{"open": 1}`, ""}, // additionalProperties true at the top
	}
	for _, tt := range tests {
		if got := render3(a.ValidateArgs(decode(t, tt.args))); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestEqualJSONAndTypeOf(t *testing.T) {
	n := func(s string) json.Number { return json.Number(s) }
	eq := []struct {
		a, b any
		want bool
	}{
		{n("1"), n("1.0"), true},
		{n("1"), 1.0, true},
		{n("10000000000000000001"), n("10000000000000000000"), false},
		{n("1"), true, false},
		{true, true, true},
		{nil, nil, true},
		{nil, "", false},
		{"a", "a", true},
		{[]any{n("1"), "x"}, []any{n("1.00"), "x"}, true},
		{[]any{n("1")}, []any{n("1"), n("2")}, false},
		{map[string]any{"a": n("1")}, map[string]any{"a": n("1e0")}, true},
		{map[string]any{"a": n("1")}, map[string]any{"b": n("1")}, false},
		{map[string]any{}, []any{}, false},
	}
	for _, tt := range eq {
		if got := EqualJSON(tt.a, tt.b); got != tt.want {
			t.Errorf("EqualJSON(%#v, %#v) = %v", tt.a, tt.b, got)
		}
	}
	types := map[Type][]any{
		Integer: {n("0"), n("-12"), 3, 2.0},
		Number:  {n("1.5"), n("1e3"), n("1.0"), 2.5},
		String:  {""},
		Boolean: {false},
		Null:    {nil},
		Array:   {[]any{}},
		Object:  {map[string]any{}},
		"":      {struct{}{}},
	}
	for want, vals := range types {
		for _, v := range vals {
			if got := TypeOf(v); got != want {
				t.Errorf("TypeOf(%#v) = %q, want %q", v, got, want)
			}
		}
	}
}

// TestValidateNested: every way a value can break its schema three levels
// down (arrays of arrays, arrays of objects holding arrays of objects, maps
// of arrays), each reported at its own path.
func TestValidateNested(t *testing.T) {
	tool := mustParseFile(t, "nested.json").Lookup("restock")
	ok := `"orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]`
	tests := []struct{ name, args, want string }{
		{"all good", `{` + ok + `, "table": [[1, 2], [3]], "matrix": [[0.5, 1.0]], "attrs": {"a": [1], "b": []}}`, ""},
		{"table not an array", `{` + ok + `, "table": 5}`, "table|type;"},
		{"row not an array", `{` + ok + `, "table": [[1], 2]}`, "table[1]|type;"},
		{"cell not an integer", `{` + ok + `, "table": [[1], [2, "3"]]}`, "table[1][1]|type;"},
		{"cell with a fraction", `{` + ok + `, "table": [[1.5]]}`, "table[0][0]|type;"},
		{"float cell an integer literal", `{` + ok + `, "matrix": [[0.5], [2]]}`, "matrix[1][0]|type;"},
		{"order not an object", `{"orders": ["x"]}`, "orders[0]|type;"},
		{"order without lines", `{"orders": [{"store": "A"}]}`, "orders[0].lines|required;"},
		{"line not an object", `{"orders": [{"lines": [1]}]}`, "orders[0].lines[0]|type;"},
		{"line qty a string", `{"orders": [{"lines": [{"sku": "x", "qty": "2"}]}]}`, "orders[0].lines[0].qty|type;"},
		{"line without sku", `{"orders": [{"lines": [{"qty": 2}]}]}`, "orders[0].lines[0].sku|required;"},
		{"line with an unknown key", `{"orders": [{"lines": [{"sku": "x", "qty": 2, "color": "red"}]}]}`, "orders[0].lines[0].color|unknown;"},
		{"line unit outside the enum", `{"orders": [{"lines": [{"sku": "x", "qty": 2, "unit": "crate"}]}]}`, "orders[0].lines[0].unit|enum;"},
		{"map value cell", `{` + ok + `, "attrs": {"a": [1, "2"]}}`, "attrs.a[1]|type;"},
		{"several at once", `{"orders": [{"lines": [{"sku": 1, "qty": 2.0}]}, 3], "table": [["a"]]}`,
			"orders[0].lines[0].qty|type;orders[0].lines[0].sku|type;orders[1]|type;table[0][0]|type;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := tool.ValidateArgs(decode(t, tt.args))
			if got := render3(vs); got != tt.want {
				t.Errorf("violations %q, want %q\n%v", got, tt.want, vs)
			}
			for _, v := range vs {
				if v.Want == "" || v.Rule != RuleRequired && v.Value == nil {
					t.Errorf("violation without the value or what was wanted: %+v", v)
				}
			}
		})
	}
}
