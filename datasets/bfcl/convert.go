package bfcl

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/tooldef"
)

// Converted is one BFCL entry as a golden dialog (Dialog.Tools holds the
// definitions it offers, as BFCL wrote them) and what the converter left
// out of its gold calls.
type Converted struct {
	Dialog  metrics.Dialog
	Repairs []Repair
}

// Repair is a change the converter made to an entry's possible answer so
// that aem reads it as BFCL's checker does.
type Repair struct {
	Field  string // "function.param"
	Kind   string // RepairDropped
	Detail string
}

// RepairDropped is the kind of Repair of a parameter the answer names but
// the definition lacks, listing "" among its values: BFCL's checker fails
// every call that gives such a parameter and passes calls that leave it
// out, so the converter leaves it out of the gold call (a call that gives
// it is then an extra parameter).
//
// Where an answer's value breaks the definition otherwise (a type other
// than the declared one, a value outside the enum), the converter keeps
// both as BFCL wrote them: aem run reports the conflict and lets the gold
// win for that field (metrics.GoldConflicts), which is how BFCL's checker
// reads them (it accepts the answer's type, and does not read enums).
const RepairDropped = "dropped"

// ErrSkipped is wrapped by *SkipError.
var ErrSkipped = errors.New("BFCL entry left out")

// SkipError says why an entry cannot become a golden dialog: its possible
// answer can never pass BFCL's own checker (it names a function that is not
// offered, a parameter the definition lacks without marking it optional,
// leaves out a required parameter, or lists no acceptable value for one).
type SkipError struct {
	ID     string
	Reason string
}

// Error implements error.
func (e *SkipError) Error() string { return fmt.Sprintf("entry %s left out: %s", e.ID, e.Reason) }

// Unwrap returns ErrSkipped.
func (e *SkipError) Unwrap() error { return ErrSkipped }

// OrderTag marks the tool turns of a parallel entry as one order-invariant
// block: BFCL's checker accepts parallel calls in any order.
const OrderTag = "OrderInvariant_calls"

// Convert turns an entry (with its Answers attached) and, when pred is not
// nil, a model's prediction into a golden dialog: the question's messages
// as User turns, then one Tool turn per expected call (action = function
// name, no tool id; gold args with $any/$optional for BFCL's acceptable
// values, "" meaning optional), predicted calls paired with them in order
// (extra ones are unexpected turns). An irrelevance entry (no answer: the
// right answer is no call) has one Tool turn whose gold says no call
// (metrics.Turn.GoldNoCall), any predicted call on it or after it. The
// definitions are kept as given (see RepairDropped for what the gold calls
// leave out); an entry that cannot pass BFCL's own checker is a
// *SkipError.
func Convert(e Entry, pred *Prediction) (Converted, error) {
	defs, err := decodeDefs(e)
	if err != nil {
		return Converted{}, err
	}
	if e.Tools == nil {
		return Converted{}, rowErr("", badinput.NoRow, e.Line, e.ID, "function", "the entry offers no readable function definitions", "", nil)
	}
	if e.Answers == nil {
		if !e.Irrelevant() {
			return Converted{}, &SkipError{ID: e.ID, Reason: "the entry has no possible answer"}
		}
		return Converted{Dialog: dialog(e, nil, pred, e.Tools)}, nil
	}
	var repairs []Repair
	golds := make([]metrics.Call, len(e.Answers))
	for i, ans := range e.Answers {
		def := findDef(defs, ans.Name)
		if def == nil {
			return Converted{}, &SkipError{ID: e.ID, Reason: fmt.Sprintf("the answer calls %q, which the entry does not offer", ans.Name)}
		}
		if k := noAcceptable(ans); k != "" {
			return Converted{}, &SkipError{ID: e.ID, Reason: fmt.Sprintf("the answer to %s lists no acceptable value for %q (BFCL's checker fails every call then)", ans.Name, k)}
		}
		ans, dropped, reason := dropUnknown(def, ans)
		if reason != "" {
			return Converted{}, &SkipError{ID: e.ID, Reason: reason}
		}
		repairs = append(repairs, dropped...)
		golds[i] = metrics.FunctionCall(ans.Name, goldArgs(ans, def))
	}
	for _, g := range golds {
		if missing := missingRequired(e.Tools.Lookup(g.FunctionName()), g.Args); missing != "" {
			return Converted{}, &SkipError{ID: e.ID, Reason: fmt.Sprintf("the answer to %s leaves out the required parameter %q", g.FunctionName(), missing)}
		}
	}
	return Converted{Dialog: dialog(e, golds, pred, e.Tools), Repairs: repairs}, nil
}

// decodeDefs decodes the entry's definitions as JSON objects.
func decodeDefs(e Entry) ([]map[string]any, error) {
	defs := make([]map[string]any, len(e.Functions))
	for i, raw := range e.Functions {
		if err := decode(raw, &defs[i]); err != nil || defs[i] == nil {
			return nil, rowErr("", badinput.NoRow, e.Line, e.ID, fmt.Sprintf("function[%d]", i), "a function definition must be a JSON object", "", err)
		}
	}
	return defs, nil
}

func findDef(defs []map[string]any, name string) map[string]any {
	for _, d := range defs {
		if d["name"] == name {
			return d
		}
	}
	return nil
}

// noAcceptable returns the first parameter whose list of acceptable values
// is empty: BFCL's checker fails a call that gives it and one that leaves
// it out ("" is not listed).
func noAcceptable(ans PossibleCall) string {
	for _, k := range slices.Sorted(maps.Keys(ans.Params)) {
		if len(ans.Params[k]) == 0 {
			return k
		}
	}
	return ""
}

// properties returns the raw properties object of a definition's parameters.
func properties(def map[string]any) map[string]any {
	params, _ := def["parameters"].(map[string]any)
	props, _ := params["properties"].(map[string]any)
	return props
}

// dropUnknown removes answer parameters the definition lacks when "" marks
// them optional; reason is set when one is not optional.
func dropUnknown(def map[string]any, ans PossibleCall) (PossibleCall, []Repair, string) {
	props := properties(def)
	out := PossibleCall{Name: ans.Name, Params: map[string][]any{}}
	var repairs []Repair
	for _, k := range slices.Sorted(maps.Keys(ans.Params)) {
		alts := ans.Params[k]
		if _, known := props[k]; known {
			out.Params[k] = alts
			continue
		}
		if !slices.Contains(alts, any("")) {
			return PossibleCall{}, nil, fmt.Sprintf("the answer to %s gives %q, a parameter its definition lacks, without marking it optional", ans.Name, k)
		}
		repairs = append(repairs, Repair{Field: ans.Name + "." + k, Kind: RepairDropped,
			Detail: "the definition has no such parameter; the answer lists \"\" (may be left out), so the gold call leaves it out"})
	}
	return out, repairs, ""
}

func missingRequired(tool *tooldef.Tool, args map[string]any) string {
	if tool == nil || tool.Parameters == nil {
		return ""
	}
	for _, r := range tool.Parameters.Required {
		if _, ok := args[r]; !ok {
			return r
		}
	}
	return ""
}

// isAltDict reports whether every value of m is a list (of acceptable
// values): a dict in BFCL's possible-answer form.
func isAltDict(m map[string]any) bool {
	for _, v := range m {
		if _, ok := v.([]any); !ok {
			return false
		}
	}
	return true
}

func isAltDictList(list []any) bool {
	for _, el := range list {
		m, ok := el.(map[string]any)
		if !ok || !isAltDict(m) {
			return false
		}
	}
	return len(list) > 0
}

// goldArgs turns an answer's parameters into gold args: a single
// acceptable value as itself, several as {"$any": [...]}, "" among them as
// "$optional": true, except for parameters the definition requires (BFCL's
// checker requires them whatever the answer lists). A parameter whose only
// acceptable value is "" is left out of the gold call: BFCL's checker
// passes a call that leaves it out and fails one that gives a value
// (except, for a string, one that standardises to "").
func goldArgs(ans PossibleCall, def map[string]any) map[string]any {
	params, _ := def["parameters"].(map[string]any)
	required, _ := params["required"].([]any)
	args := make(map[string]any, len(ans.Params))
	for k, alts := range ans.Params {
		req := slices.Contains(required, any(k))
		if !req && !slices.ContainsFunc(alts, func(a any) bool { return a != "" }) {
			continue // "" alone: the parameter is to be left out (see goldValue)
		}
		args[k] = goldValue(alts, req)
	}
	return args
}

func goldValue(alts []any, required bool) any {
	var vals []any
	optional := false
	for _, a := range alts {
		if a == "" {
			optional = true
			continue
		}
		vals = append(vals, nested(a))
	}
	if len(vals) == 0 {
		vals = []any{""}
	}
	optional = optional && !required
	if len(vals) == 1 && !optional {
		return vals[0]
	}
	spec := map[string]any{metrics.SpecAny: vals}
	if optional {
		spec[metrics.SpecOptional] = true
	}
	return spec
}

// nested turns a BFCL dict answer ({key: [acceptable values]}) into an
// object of gold values, and a list of them element by element.
func nested(a any) any {
	return mapDictAnswer(a, func(alts []any) (any, bool) { return goldValue(alts, false), true })
}

// mapDictAnswer rebuilds a BFCL dict answer with value(acceptable values)
// for each key (a key is left out when value says so), and a list of dict
// answers element by element; any other value is returned as it is.
func mapDictAnswer(a any, value func([]any) (any, bool)) any {
	switch x := a.(type) {
	case map[string]any:
		if !isAltDict(x) {
			return x
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			if c, ok := value(v.([]any)); ok {
				out[k] = c
			}
		}
		return out
	case []any:
		if !isAltDictList(x) {
			return x
		}
		out := make([]any, len(x))
		for i, el := range x {
			out[i] = mapDictAnswer(el, value)
		}
		return out
	}
	return a
}

// dialog builds the golden dialog: messages as User turns, then the calls.
func dialog(e Entry, golds []metrics.Call, pred *Prediction, tools *tooldef.Set) metrics.Dialog {
	d := metrics.Dialog{ID: e.ID, Tools: tools}
	add := func(t metrics.Turn) {
		t.DialogID, t.TurnNo = e.ID, len(d.Turns)+1
		d.Turns = append(d.Turns, t)
	}
	for _, m := range e.Messages {
		var tags []string
		if m.Role != "user" {
			tags = []string{m.Role}
		}
		add(metrics.Turn{Role: metrics.RoleUser, HasGold: true, HasPredict: true, GoldResponse: m.Content, PredictResponse: m.Content, Tags: tags})
	}
	var tags []string
	if e.Parallel() && len(golds) > 1 {
		tags = []string{OrderTag}
	}
	var calls []Call
	if pred != nil {
		calls = pred.Calls
	}
	slots := len(golds)
	if golds == nil {
		slots = 1 // the gold "no call"
	}
	for i := range max(slots, len(calls)) {
		t := metrics.Turn{Role: metrics.RoleTool, Tags: tags}
		switch {
		case golds == nil && i == 0:
			t.HasGold, t.GoldNoCall = true, true
		case i < len(golds):
			t.HasGold, t.Gold = true, golds[i]
		}
		if i < len(calls) {
			c := calls[i]
			t.HasPredict, t.Predict = true, metrics.FunctionCall(c.Name, c.Args)
			if c.Args == nil {
				t.Predict.UnparsedArgs = c.ArgsText
			}
		}
		add(t)
	}
	return d
}
