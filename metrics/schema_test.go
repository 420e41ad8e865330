package metrics

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/tooldef"
)

const testTools = `[
 {"name": "get_weather", "parameters": {"type": "object", "required": ["city"], "properties": {
   "city": {"type": "string"},
   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
   "days": {"type": "integer", "default": 1},
   "lat": {"type": "number"},
   "alerts": {"type": "boolean"},
   "note": {"type": "string"},
   "filter": {"type": "object", "properties": {"region": {"type": "string"}, "n": {"type": "integer"}}, "required": ["region"]}}}},
 {"name": "math.factorial", "parameters": {"type": "dict", "required": ["n"], "properties": {"n": {"type": "integer"}}}},
 {"name": "ping"}
]`

func mustTools(t testing.TB, text string) *tooldef.Set {
	t.Helper()
	s, err := tooldef.Parse("tools", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(t testing.TB, action, args string) Call {
	t.Helper()
	a, err := DecodeArgs([]byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return FunctionCall(action, a)
}

// decideAction decides one Tool turn; pred nil means no prediction.
func decideAction(t *testing.T, tools *tooldef.Set, gold Call, pred *Call, noCall bool) (Verdict, error) {
	t.Helper()
	tr := Turn{DialogID: "d", TurnNo: 1, Role: RoleTool, HasGold: true, Gold: gold, GoldNoCall: noCall}
	if pred != nil {
		tr.HasPredict, tr.Predict = true, *pred
	}
	res, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{{ID: "d", Turns: []Turn{tr}, Tools: tools}})
	if err != nil {
		return Verdict{}, err
	}
	return res[0].Turns[0], nil
}

// TestSchemaChecks has one case per schema rule of the action checks, each
// passing and failing.
func TestSchemaChecks(t *testing.T) {
	tools := mustTools(t, testTools)
	gw := func(args string) Call { return call(t, "get_weather", args) }
	tests := []struct {
		name     string
		gold     Call
		pred     Call
		checks   []Reason
		missing  []string
		extra    []string
		method   string   // a FieldScore method the verdict must hold
		plain    []Reason // the checks without tool definitions
		wantPass bool
	}{
		{name: "same call", gold: gw(`{"city": "Paris"}`), pred: gw(`{"city": "Paris"}`), wantPass: true},
		{name: "integer for number", gold: gw(`{"city": "P", "lat": 48.0}`), pred: gw(`{"city": "P", "lat": 48}`), wantPass: true},
		{name: "string for integer is a type error", gold: gw(`{"city": "P", "days": 3}`), pred: gw(`{"city": "P", "days": "3"}`),
			checks: []Reason{ReasonInvalidType}, method: MethodType},
		{name: "float literal for integer", gold: gw(`{"city": "P", "days": 3}`), pred: gw(`{"city": "P", "days": 3.0}`),
			checks: []Reason{ReasonInvalidType}, method: MethodType},
		{name: "string for boolean", gold: gw(`{"city": "P", "alerts": true}`), pred: gw(`{"city": "P", "alerts": "true"}`),
			checks: []Reason{ReasonInvalidType}, method: MethodType},
		{name: "nested type", gold: gw(`{"city": "P", "filter": {"region": "EU", "n": 2}}`), pred: gw(`{"city": "P", "filter": {"region": "EU", "n": "2"}}`),
			checks: []Reason{ReasonInvalidType}, method: MethodType},
		{name: "type and value errors in order", gold: gw(`{"city": "Paris", "days": 3}`), pred: gw(`{"city": "zzz qqq", "days": "3"}`),
			checks: []Reason{ReasonInvalidType, ReasonInconsistentValues}, plain: []Reason{ReasonInconsistentValues}},
		{name: "required left out", gold: gw(`{"city": "Paris"}`), pred: gw(`{}`),
			checks: []Reason{ReasonMissingParameters}, missing: []string{"city"}, plain: []Reason{ReasonMissingParameters}},
		{name: "optional left out, gold is its default", gold: gw(`{"city": "P", "unit": "celsius"}`), pred: gw(`{"city": "P"}`), wantPass: true,
			plain: []Reason{ReasonMissingParameters}},
		{name: "optional left out, gold is not its default", gold: gw(`{"city": "P", "unit": "fahrenheit"}`), pred: gw(`{"city": "P"}`),
			checks: []Reason{ReasonMissingParameters}, missing: []string{"unit"}, plain: []Reason{ReasonMissingParameters}},
		{name: "optional without default left out", gold: gw(`{"city": "P", "note": "x"}`), pred: gw(`{"city": "P"}`),
			checks: []Reason{ReasonMissingParameters}, missing: []string{"note"}, plain: []Reason{ReasonMissingParameters}},
		{name: "optional left out, $any holds the default", gold: gw(`{"city": "P", "days": {"$any": [1, 2]}}`), pred: gw(`{"city": "P"}`), wantPass: true,
			plain: []Reason{ReasonMissingParameters}},
		{name: "$optional left out", gold: gw(`{"city": "P", "note": {"$any": ["x"], "$optional": true}}`), pred: gw(`{"city": "P"}`), wantPass: true},
		{name: "default given, gold leaves it out", gold: gw(`{"city": "P"}`), pred: gw(`{"city": "P", "unit": "celsius"}`), wantPass: true,
			plain: []Reason{ReasonExtraParameters}},
		{name: "non-default given, gold leaves it out", gold: gw(`{"city": "P"}`), pred: gw(`{"city": "P", "unit": "fahrenheit"}`),
			checks: []Reason{ReasonExtraParameters}, extra: []string{"unit"}, plain: []Reason{ReasonExtraParameters}},
		{name: "unknown parameter", gold: gw(`{"city": "P"}`), pred: gw(`{"city": "P", "country": "FR"}`),
			checks: []Reason{ReasonExtraParameters}, extra: []string{"country"}, plain: []Reason{ReasonExtraParameters}},
		{name: "tool not offered", gold: gw(`{"city": "P"}`), pred: call(t, "get_forecast", `{"city": "P"}`),
			checks: []Reason{ReasonToolMismatch}, method: MethodNotOffered, plain: []Reason{ReasonToolMismatch}},
		{name: "another offered tool", gold: gw(`{"city": "P"}`), pred: call(t, "ping", `{}`),
			checks: []Reason{ReasonToolMismatch, ReasonMissingParameters}, missing: []string{"city"}, plain: []Reason{ReasonToolMismatch, ReasonMissingParameters}},
		{name: "underscore for dot", gold: call(t, "math.factorial", `{"n": 5}`), pred: call(t, "math_factorial", `{"n": 5}`), wantPass: true,
			plain: []Reason{ReasonToolMismatch}},
		{name: "tool.action form", gold: call(t, "math.factorial", `{"n": 5}`), pred: Call{ToolID: "math", Action: "factorial", Args: map[string]any{"n": jsonNum("5")}}, wantPass: true,
			plain: []Reason{ReasonToolMismatch, ReasonActionMismatch}},
		{name: "unparseable arguments", gold: gw(`{"city": "P"}`), pred: Call{ToolID: "get_weather", Action: CallAction, UnparsedArgs: `{"city": "P"`},
			checks: []Reason{ReasonUnparseableArguments}, method: MethodUnparseable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decideAction(t, tools, tt.gold, &tt.pred, false)
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass != tt.wantPass || !slices.Equal(v.FailedChecks, tt.checks) {
				t.Errorf("pass %v checks %v, want pass %v checks %v (%+v)", v.Pass, v.FailedChecks, tt.wantPass, tt.checks, v.FieldScores)
			}
			if !slices.Equal(v.MissingKeys, tt.missing) || !slices.Equal(v.ExtraKeys, tt.extra) {
				t.Errorf("missing %v extra %v, want %v %v", v.MissingKeys, v.ExtraKeys, tt.missing, tt.extra)
			}
			if tt.method != "" && !slices.ContainsFunc(v.FieldScores, func(f FieldScore) bool { return f.Method == tt.method && !f.Pass }) {
				t.Errorf("no failing %q field score: %+v", tt.method, v.FieldScores)
			}
			if tt.checks != nil && v.FailureReason != tt.checks[0] {
				t.Errorf("failure reason %q, want %q", v.FailureReason, tt.checks[0])
			}
			// Without tool definitions the old rules apply.
			if tt.pred.UnparsedArgs != "" {
				return
			}
			plain, err := decideAction(t, nil, tt.gold, &tt.pred, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(plain.FailedChecks, tt.plain) {
				t.Errorf("without tools: checks %v, want %v", plain.FailedChecks, tt.plain)
			}
		})
	}
}

func jsonNum(s string) any {
	a, _ := DecodeArgs([]byte(`{"n": ` + s + `}`))
	return a["n"]
}

func TestNoCall(t *testing.T) {
	tools := mustTools(t, testTools)
	for _, ts := range []*tooldef.Set{tools, nil} {
		v, err := decideAction(t, ts, Call{}, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Pass || v.Structure != OutcomePass || v.Truthfulness != OutcomePass {
			t.Errorf("no call expected, none made: %+v", v)
		}
		pred := call(t, "get_weather", `{"city": "P"}`)
		v, err = decideAction(t, ts, Call{}, &pred, true)
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass || v.FailureReason != ReasonUnexpectedTurn {
			t.Errorf("no call expected, one made: %+v", v)
		}
	}
	bad := []struct {
		name string
		turn Turn
	}{
		{"no call with a gold call", Turn{TurnNo: 1, Role: RoleTool, HasGold: true, GoldNoCall: true, Gold: Call{Action: "x"}}},
		{"no call on an Agent turn", Turn{TurnNo: 1, Role: RoleAgent, HasGold: true, GoldNoCall: true}},
		{"no call in a block", Turn{TurnNo: 1, Role: RoleTool, HasGold: true, GoldNoCall: true, Tags: []string{"OrderInvariant_a"}}},
		{"gold args unparsed", Turn{TurnNo: 1, Role: RoleTool, HasGold: true, Gold: Call{Action: "x", UnparsedArgs: "{"}}},
	}
	for _, b := range bad {
		_, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{{ID: "d", Turns: []Turn{b.turn}}})
		if !errors.Is(err, ErrBadDialog) {
			t.Errorf("%s: got %v, want ErrBadDialog", b.name, err)
		}
	}
}

// TestGoldConflicts: every way a gold call breaks its definition is
// listed, several per call, with the field, rule, value and what the
// schema wanted; none is an error, and the gold itself as the prediction
// passes (the gold wins).
func TestGoldConflicts(t *testing.T) {
	tools := mustTools(t, testTools)
	tests := []struct {
		name string
		gold Call
		want string // "field|rule|value|want;" per conflict, in order
	}{
		{"fits", call(t, "get_weather", `{"city": {"$any": ["Paris", "Paris, FR"]}, "unit": {"$any": ["celsius"], "$optional": true}}`), ""},
		{"fits, nested specs", call(t, "get_weather", `{"city": "P", "filter": {"region": {"$any": ["EU", "US"]}, "n": {"$any": [1], "$optional": true}}}`), ""},
		{"fits by a loose name", call(t, "math_factorial", `{"n": 3}`), ""},
		{"not offered", call(t, "get_forecast", `{"x": 1}`), "|offered|<nil>|an offered tool;"},
		{"required missing and marked optional", call(t, "get_weather", `{"unit": "celsius", "filter": {"region": {"$any": ["EU"], "$optional": true}}}`),
			"city|required|<nil>|present;filter.region|required|<nil>|present;"},
		{"unknown, type and enum at once", call(t, "get_weather", `{"city": "P", "country": "FR", "days": "3", "unit": "kelvin"}`),
			`country|unknown|FR|no such parameter (it has alerts, city, days, filter, lat, note, unit);days|type|3|integer;unit|enum|kelvin|one of ["celsius","fahrenheit"];`},
		{"every bad alternative", call(t, "get_weather", `{"city": "P", "days": {"$any": [3, "three", 2.5]}}`), "days|type|three|integer;days|type|2.5|integer;"},
		{"nested", call(t, "get_weather", `{"city": "P", "filter": {"n": {"$any": [1, "x"]}}}`), "filter.region|required|<nil>|present;filter.n|type|x|integer;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			for _, c := range GoldConflicts(tools, tt.gold) {
				fmt.Fprintf(&got, "%s|%s|%v|%s;", c.Field, c.Rule, c.Value, c.Want)
				if c.Tool != tt.gold.FunctionName() || c.Detail == "" {
					t.Errorf("conflict %+v: want tool %s and a detail", c, tt.gold.FunctionName())
				}
			}
			if got.String() != tt.want {
				t.Errorf("conflicts\n %s\nwant\n %s", got.String(), tt.want)
			}
			pred := firstAlternativesCall(tt.gold)
			v, err := decideAction(t, tools, tt.gold, &pred, false)
			if err != nil || !v.Pass {
				t.Errorf("the gold as the prediction: %v, %+v", err, v)
			}
		})
	}
	if GoldConflicts(nil, call(t, "x", `{"a": 1}`)) != nil {
		t.Error("conflicts without tool definitions")
	}
}

// firstAlternativesCall is the call that gives every gold parameter its
// first alternative and leaves $optional ones out.
func firstAlternativesCall(g Call) Call {
	g.Args = firstAlternatives(g.Args).(map[string]any)
	return g
}

// TestGoldWins: where the gold breaks a rule, the prediction is not held to
// it at that field; every other rule still applies, and values are
// compared with the gold's.
func TestGoldWins(t *testing.T) {
	tools := mustTools(t, `[
	 {"name": "get_ticket", "parameters": {"type": "object", "required": ["ticket_id"], "properties": {
	   "ticket_id": {"type": "integer"}, "diet": {"type": "string", "enum": ["Gluten Free", "Vegan"]},
	   "days": {"type": "integer"}, "city": {"type": "string"},
	   "table": {"type": "array", "items": {"type": "integer"}}, "floats": {"type": "array", "items": {"type": "float"}},
	   "filter": {"type": "object", "properties": {"region": {"type": "string"}, "n": {"type": "integer"}}, "required": ["region"], "additionalProperties": false}}}}]`)
	gt := func(args string) Call { return call(t, "get_ticket", args) }
	tests := []struct {
		name       string
		gold, pred Call
		checks     []Reason
	}{
		{"type: the gold's string passes", gt(`{"ticket_id": "ticket_001"}`), gt(`{"ticket_id": "ticket_001"}`), nil},
		{"type: another string is a wrong value", gt(`{"ticket_id": "ticket_001"}`), gt(`{"ticket_id": "ticket_002"}`), []Reason{ReasonInconsistentValues}},
		{"type: the gold's type is the field's", gt(`{"ticket_id": "ticket_001"}`), gt(`{"ticket_id": 1}`), []Reason{ReasonInvalidType}},
		{"type: the declared type is not the gold's", gt(`{"ticket_id": 1, "city": false}`), gt(`{"ticket_id": 1, "city": "False"}`), []Reason{ReasonInvalidType}},
		{"type: the gold's type passes", gt(`{"ticket_id": 1, "city": false}`), gt(`{"ticket_id": 1, "city": false}`), nil},
		{"type: any alternative's type", gt(`{"ticket_id": {"$any": ["5", 5]}}`), gt(`{"ticket_id": 5}`), nil},
		{"type: numbers of either kind alike", gt(`{"ticket_id": 1, "floats": [90000, 50000]}`), gt(`{"ticket_id": 1, "floats": [90000.0, 50000]}`), nil},
		{"type: other fields keep their rules", gt(`{"ticket_id": "ticket_001", "days": 2}`), gt(`{"ticket_id": "ticket_001", "days": "2"}`), []Reason{ReasonInvalidType}},
		{"enum: the gold's value passes", gt(`{"ticket_id": 1, "diet": "GF"}`), gt(`{"ticket_id": 1, "diet": "gf"}`), nil},
		{"enum: the enum's value is compared exactly", gt(`{"ticket_id": 1, "diet": "GF"}`), gt(`{"ticket_id": 1, "diet": "Gluten Free"}`), []Reason{ReasonInconsistentValues}},
		{"unknown: giving it passes", gt(`{"ticket_id": 1, "seat": "12A"}`), gt(`{"ticket_id": 1, "seat": "12A"}`), nil},
		{"unknown: leaving it out is missing", gt(`{"ticket_id": 1, "seat": "12A"}`), gt(`{"ticket_id": 1}`), []Reason{ReasonMissingParameters}},
		{"unknown: another unknown is extra", gt(`{"ticket_id": 1, "seat": "12A"}`), gt(`{"ticket_id": 1, "seat": "12A", "row": 3}`), []Reason{ReasonExtraParameters}},
		{"required: leaving it out as the gold does", gt(`{"days": 1}`), gt(`{"days": 1}`), nil},
		{"required: giving it is extra to the gold", gt(`{"days": 1}`), gt(`{"days": 1, "ticket_id": 4}`), []Reason{ReasonExtraParameters}},
		{"nested: the gold's shape passes", gt(`{"ticket_id": 1, "table": [[10, 20], [30, 40]]}`), gt(`{"ticket_id": 1, "table": [[10, 20], [30, 40]]}`), nil},
		{"nested: flattened is not the gold's type", gt(`{"ticket_id": 1, "table": [[10, 20], [30, 40]]}`), gt(`{"ticket_id": 1, "table": [10, 20, 30, 40]}`),
			[]Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"nested: an element beyond the gold's keeps the rule", gt(`{"ticket_id": 1, "table": [[10, 20]]}`), gt(`{"ticket_id": 1, "table": [[10, 20], [30]]}`),
			[]Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"nested required: left out as the gold does", gt(`{"ticket_id": 1, "filter": {"n": 2}}`), gt(`{"ticket_id": 1, "filter": {"n": 2}}`), nil},
		{"nested unknown: given as the gold does", gt(`{"ticket_id": 1, "filter": {"region": "EU", "x": 1}}`), gt(`{"ticket_id": 1, "filter": {"region": "EU", "x": 1}}`), nil},
		{"nested unknown: another is a bad shape", gt(`{"ticket_id": 1, "filter": {"region": "EU", "x": 1}}`), gt(`{"ticket_id": 1, "filter": {"region": "EU", "x": 1, "y": 2}}`),
			[]Reason{ReasonInvalidType, ReasonInconsistentValues}},
		{"offered: the gold's own tool", call(t, "get_forecast", `{"city": "P"}`), call(t, "get_forecast", `{"city": "P"}`), nil},
		{"offered: another tool nobody offers", call(t, "get_forecast", `{"city": "P"}`), call(t, "get_weather", `{"city": "P"}`), []Reason{ReasonToolMismatch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(GoldConflicts(tools, tt.gold)) == 0 && !strings.Contains(tt.name, "other fields") {
				t.Fatalf("the gold %v fits: not a test of conflicts", tt.gold)
			}
			v, err := decideAction(t, tools, tt.gold, &tt.pred, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.FailedChecks, tt.checks) {
				t.Errorf("checks %v, want %v\n%+v", v.FailedChecks, tt.checks, v.FieldScores)
			}
		})
	}
}

// FuzzToolChecks: checking a call against tool definitions never panics,
// gives the same verdict twice, and a verdict passes exactly when no check
// failed. A gold call that breaks its definitions is checked like any.
func FuzzToolChecks(f *testing.F) {
	f.Add(testTools, "get_weather", `{"city": "Paris", "unit": "celsius"}`, "get_weather", `{"city": "paris", "days": "3"}`)
	f.Add(testTools, "math.factorial", `{"n": {"$any": [1, 2]}}`, "math_factorial", `{"n": 2.0}`)
	f.Add(`[{"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "array", "items": {"enum": ["x", "y"]}}, "o": {"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": false}}}}]`,
		"f", `{"a": ["x"], "o": {"id": "A-1"}}`, "f", `{"a": ["X", "z"], "o": {"id": "a1", "k": 1}}`)
	f.Add(testTools, "ping", `{}`, "ping", `{"x": `)
	f.Fuzz(func(t *testing.T, tools, goldName, goldArgs, predName, predArgs string) {
		set, err := tooldef.Parse("fuzz", []byte(tools))
		if err != nil {
			return
		}
		gold, err := DecodeArgs([]byte(goldArgs))
		if err != nil || ValidateGoldArgs(gold) != nil {
			return
		}
		pred := Call{Action: predName}
		if pred.Args, err = DecodeArgs([]byte(predArgs)); err != nil {
			pred.UnparsedArgs = predArgs
		}
		d := Dialog{ID: "d", Tools: set, Turns: []Turn{{DialogID: "d", TurnNo: 1, Role: RoleTool, HasGold: true, HasPredict: true,
			Gold: Call{Action: goldName, Args: gold}, Predict: pred}}}
		first, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{d})
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		second, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		v := first[0].Turns[0]
		if !reflect.DeepEqual(v, second[0].Turns[0]) {
			t.Fatalf("not deterministic:\n%+v\n%+v", v, second[0].Turns[0])
		}
		if v.Pass != (len(v.FailedChecks) == 0) {
			t.Fatalf("pass %v with checks %v", v.Pass, v.FailedChecks)
		}
	})
}
