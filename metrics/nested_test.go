package metrics

import (
	"os"
	"slices"
	"testing"
)

// TestNestedTypes: a predicted value's type and shape are checked three
// levels down (arrays of arrays, arrays of objects holding arrays of
// objects, maps of arrays), before its meaning, with the failing path in
// the verdict; values of the right type are then compared with gold.
func TestNestedTypes(t *testing.T) {
	text, err := os.ReadFile("testdata/nested_tools.json")
	if err != nil {
		t.Fatal(err)
	}
	tools := mustTools(t, string(text))
	const gold = `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
	  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`
	tests := []struct {
		name   string
		pred   string
		types  []string // paths failing with method "type"
		checks []Reason
	}{
		{"the same call", gold, nil, nil},
		{"a cell as a string", `{"table": [[1, 2], [3, "4"]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.table[1][1]"}, []Reason{ReasonInvalidType}},
		{"a float cell as an integer literal", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.matrix[0][1]"}, []Reason{ReasonInvalidType}},
		{"a row flattened", `{"table": [[1, 2], 3, 4], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.table[1]", "restock.call.table[2]"}, []Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"qty as a string three levels down", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": "1", "unit": "box"}]}]}`,
			[]string{"restock.call.orders[0].lines[1].qty"}, []Reason{ReasonInvalidType}},
		{"a required key left out three levels down", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.orders[0].lines[1].sku"}, []Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"a key the closed object lacks", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2, "color": "red"}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.orders[0].lines[0].color"}, []Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"an extra element of a bad type", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}, "x3"]}]}`,
			[]string{"restock.call.orders[0].lines[2]"}, []Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"a map value's cell", `{"table": [[1, 2], [3, 4]], "matrix": [[0.5, 2.0]], "attrs": {"a": ["1"]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			[]string{"restock.call.attrs.a[0]"}, []Reason{ReasonInvalidType}},
		{"right types, a wrong value", `{"table": [[1, 2], [3, 5]], "matrix": [[0.5, 2.0]], "attrs": {"a": [1]},
		  "orders": [{"store": "A", "lines": [{"sku": "x1", "qty": 2}, {"sku": "x2", "qty": 1, "unit": "box"}]}]}`,
			nil, []Reason{ReasonInconsistentValues}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pred := call(t, "restock", tt.pred)
			v, err := decideAction(t, tools, call(t, "restock", gold), &pred, false)
			if err != nil {
				t.Fatal(err)
			}
			var types []string
			for _, fs := range v.FieldScores {
				if fs.Method == MethodType {
					types = append(types, fs.Field)
				}
			}
			slices.Sort(types)
			if !slices.Equal(types, tt.types) || !slices.Equal(v.FailedChecks, tt.checks) {
				t.Errorf("type failures %q and checks %v, want %q and %v\n%+v", types, v.FailedChecks, tt.types, tt.checks, v.FieldScores)
			}
			if v.Pass != (tt.checks == nil) {
				t.Errorf("pass %v with checks %v", v.Pass, v.FailedChecks)
			}
		})
	}
}

// TestTypeFieldInReason: the dialog's reason names where a value broke its
// type.
func TestTypeFieldInReason(t *testing.T) {
	tools := mustTools(t, testTools)
	pred := call(t, "get_weather", `{"city": "P", "filter": {"region": "EU", "n": "2"}}`)
	tr := Turn{DialogID: "d", TurnNo: 1, Role: RoleTool, HasGold: true, Gold: call(t, "get_weather", `{"city": "P", "filter": {"region": "EU", "n": 2}}`),
		HasPredict: true, Predict: pred}
	res, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{{ID: "d", Turns: []Turn{tr}, Tools: tools}})
	if err != nil {
		t.Fatal(err)
	}
	const want = "1 of 1 turns failed: turn 1 invalid_parameter_type at get_weather.call.filter.n (root cause)"
	if res[0].Reason != want {
		t.Errorf("reason %q, want %q", res[0].Reason, want)
	}
}
