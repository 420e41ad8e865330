package bfcl

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/aem-dev/aem/tooldef"
)

// Perturbation names a way to derive a prediction from an entry's answer,
// for checking aem's verdicts against BFCL's checker (scripts/bench-bfcl).
type Perturbation string

// The perturbations. Each changes one thing of the gold prediction (the
// first acceptable value of every parameter); Perturb says where it does
// not apply.
const (
	Gold             Perturbation = "gold"                // the answer itself
	WrongType        Perturbation = "wrong_type"          // a number as a string, a boolean as a string, a string as a list
	MissingRequired  Perturbation = "missing_required"    // the first required parameter left out
	ExtraUnknown     Perturbation = "extra_unknown"       // a parameter the definition lacks added
	WrongEnum        Perturbation = "wrong_enum"          // another value of the enum
	CaseSpacing      Perturbation = "case_spacing"        // a string in upper case without the spaces after commas
	IntForFloat      Perturbation = "int_for_float"       // 3.0 written 3 where a float is declared
	IntForFloatItems Perturbation = "int_for_float_items" // the same inside an array of floats
	ItemsAsStrings   Perturbation = "items_as_strings"    // the numbers of an array of numbers written as strings
	FloatItemsForInt Perturbation = "float_items_for_int" // 3 written 3.0 inside an array of integers
	// DeclaredType writes the value of a parameter whose answer breaks the
	// declared type in the declared type instead (false as "False" for a
	// string, 2 as "2"): what a model that follows the schema writes.
	DeclaredType Perturbation = "declared_type"
	OmitOptional Perturbation = "omit_optional"       // every parameter the answer marks optional left out
	OmitDefault  Perturbation = "omit_default"        // a parameter the answer requires left out where its value is the schema default
	FloatForInt  Perturbation = "float_for_int"       // 3 written 3.0 where an integer is declared
	DefaultGiven Perturbation = "default_given"       // a parameter the answer omits given its default
	Reordered    Perturbation = "parallel_reordered"  // parallel calls in reverse order
	Underscored  Perturbation = "dots_as_underscores" // math.factorial called as math_factorial
	NotOffered   Perturbation = "not_offered"         // the first call renamed to a tool nobody offered
	NoCall       Perturbation = "no_call"             // no call at all
	Unparseable  Perturbation = "unparseable_args"    // the first call's arguments as JSON text cut short
	// For irrelevance entries (the right answer is no call) NoCall is the
	// right answer and IrrelevantCall calls the first offered function.
	IrrelevantCall Perturbation = "irrelevance_call"
)

// Perturbations lists every perturbation in a stable order.
var Perturbations = []Perturbation{
	Gold, WrongType, MissingRequired, ExtraUnknown, WrongEnum, CaseSpacing, IntForFloat, IntForFloatItems,
	FloatForInt, OmitOptional, OmitDefault, DefaultGiven, Reordered, Underscored, NotOffered, NoCall, Unparseable, IrrelevantCall,
	ItemsAsStrings, FloatItemsForInt, DeclaredType,
}

// UnknownParam and UnknownTool are the names ExtraUnknown and NotOffered
// add.
const (
	UnknownParam = "aem_unknown_param"
	UnknownTool  = "aem_not_offered_tool"
)

// Perturb returns the prediction for entry e under perturbation p, and
// false when p does not apply to e (no parameter of the kind it changes).
// It is deterministic: parameters are visited in name order, calls in
// order.
func Perturb(e Entry, p Perturbation) (Prediction, bool) {
	tools := e.Tools
	if tools == nil {
		return Prediction{}, false
	}
	if e.Answers == nil {
		return perturbIrrelevant(e, tools, p)
	}
	if p == IrrelevantCall {
		return Prediction{}, false
	}
	calls := make([]Call, len(e.Answers))
	for i, a := range e.Answers {
		tool := tools.Lookup(a.Name)
		if tool == nil || tool.Parameters == nil {
			return Prediction{}, false // the entry's answer cannot pass (Convert skips it)
		}
		calls[i] = Call{Name: a.Name, Args: goldChoice(a, tool)}
	}
	ok := true
	switch p {
	case Gold:
	case NoCall:
		calls = nil
	case Reordered:
		ok = len(calls) > 1
		slices.Reverse(calls)
	case Underscored:
		ok = false
		for i := range calls {
			if strings.Contains(calls[i].Name, ".") {
				calls[i].Name, ok = strings.ReplaceAll(calls[i].Name, ".", "_"), true
			}
		}
	case NotOffered:
		calls[0].Name = UnknownTool
	case Unparseable:
		text, err := json.Marshal(calls[0].Args)
		if err != nil {
			return Prediction{}, false
		}
		calls[0].Args, calls[0].ArgsText = nil, string(text[:len(text)-1])
	case ExtraUnknown:
		calls[0].Args[UnknownParam] = "x"
	case OmitOptional:
		ok = omitOptional(e, calls, tools)
	default:
		ok = changeOne(e, calls, tools, p)
	}
	return Prediction{Calls: calls}, ok
}

// perturbIrrelevant gives an irrelevance entry no call (NoCall) or a call
// to its first function with a placeholder for each required parameter
// (IrrelevantCall).
func perturbIrrelevant(e Entry, tools *tooldef.Set, p Perturbation) (Prediction, bool) {
	switch {
	case !e.Irrelevant():
		return Prediction{}, false
	case p == NoCall:
		return Prediction{}, true
	case p != IrrelevantCall || tools.Len() == 0:
		return Prediction{}, false
	}
	tool := tools.Tools()[0]
	args := map[string]any{}
	for _, k := range tool.Args().Required {
		args[k] = placeholder(tool.Param(k))
	}
	return Prediction{Calls: []Call{{Name: tool.Name, Args: args}}}, true
}

// placeholder is a value of the schema's type.
func placeholder(s *tooldef.Schema) any {
	if s != nil && len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch s.Type() {
	case tooldef.Integer:
		return json.Number("1")
	case tooldef.Number:
		return json.Number("1.5")
	case tooldef.Boolean:
		return true
	case tooldef.Array:
		return []any{}
	case tooldef.Object:
		return map[string]any{}
	}
	return "x"
}

// goldChoice picks the first acceptable value of every parameter, leaving
// out those whose only acceptable value is "" (unless required).
func goldChoice(a PossibleCall, tool *tooldef.Tool) map[string]any {
	args := map[string]any{}
	for k, alts := range a.Params {
		if v, ok := choose(alts, tool.IsRequired(k)); ok {
			args[k] = v
		}
	}
	return args
}

func choose(alts []any, required bool) (any, bool) {
	for _, a := range alts {
		if a != "" {
			return chosen(a), true
		}
	}
	if required {
		return "", true
	}
	return nil, false
}

// chosen resolves a dict answer to a dict value (first acceptable value per
// key), element by element in a list of them.
func chosen(a any) any {
	return mapDictAnswer(a, func(alts []any) (any, bool) { return choose(alts, false) })
}

// omitOptional leaves out every parameter that the answer marks optional
// and the definition does not require.
func omitOptional(e Entry, calls []Call, tools *tooldef.Set) bool {
	changed := false
	for i, a := range e.Answers {
		tool := tools.Lookup(a.Name)
		for _, k := range slices.Sorted(maps.Keys(a.Params)) {
			if _, given := calls[i].Args[k]; given && slices.Contains(a.Params[k], any("")) && !tool.IsRequired(k) {
				delete(calls[i].Args, k)
				changed = true
			}
		}
	}
	return changed
}

// changeOne applies a one-parameter perturbation to the first parameter
// (calls in order, names sorted) it applies to.
func changeOne(e Entry, calls []Call, tools *tooldef.Set, p Perturbation) bool {
	for i, a := range e.Answers {
		tool := tools.Lookup(a.Name)
		if p == MissingRequired {
			for _, r := range tool.Parameters.Required {
				if _, given := calls[i].Args[r]; given {
					delete(calls[i].Args, r)
					return true
				}
			}
			continue
		}
		if p == OmitDefault {
			for _, k := range slices.Sorted(maps.Keys(calls[i].Args)) {
				s := tool.Param(k)
				if s != nil && s.HasDefault && !tool.IsRequired(k) && !slices.Contains(a.Params[k], any("")) && tooldef.EqualJSON(calls[i].Args[k], s.Default) {
					delete(calls[i].Args, k)
					return true
				}
			}
			continue
		}
		if p == DeclaredType {
			for _, k := range slices.Sorted(maps.Keys(calls[i].Args)) {
				if v, ok := toDeclared(tool.Param(k), calls[i].Args[k]); ok {
					calls[i].Args[k] = v
					return true
				}
			}
			continue
		}
		if p == DefaultGiven {
			for _, k := range slices.Sorted(maps.Keys(tool.Parameters.Properties)) {
				s := tool.Param(k)
				if _, inAnswer := a.Params[k]; !inAnswer && s.HasDefault && !tool.IsRequired(k) {
					calls[i].Args[k] = s.Default
					return true
				}
			}
			continue
		}
		for _, k := range slices.Sorted(maps.Keys(calls[i].Args)) {
			if v, ok := change(p, tool.Param(k), calls[i].Args[k], a.Params[k]); ok {
				calls[i].Args[k] = v
				return true
			}
		}
	}
	return false
}

// change returns the perturbed value of one parameter, or false.
func change(p Perturbation, s *tooldef.Schema, v any, alts []any) (any, bool) {
	if s == nil || !tooldef.TypeFits(s.Types, v) || s.Enum != nil && !slices.ContainsFunc(s.Enum, func(e any) bool { return tooldef.EqualJSON(e, v) }) {
		return nil, false // leave values outside the declared type or enum (BFCL reads them by the answer's type) alone
	}
	switch p {
	case WrongType:
		return wrongType(s, v)
	case WrongEnum:
		return otherEnum(s, alts)
	case CaseSpacing:
		str, ok := v.(string)
		if !ok || s.Type() != tooldef.String {
			return nil, false
		}
		out := strings.ReplaceAll(strings.ToUpper(str), ", ", ",")
		return out, out != str && hasCase(str)
	case IntForFloat:
		return intForFloat(s, v)
	case FloatForInt:
		n, ok := v.(json.Number)
		if !ok || s.Type() != tooldef.Integer || tooldef.TypeOf(n) != tooldef.Integer {
			return nil, false
		}
		return json.Number(string(n) + ".0"), true
	case IntForFloatItems:
		return eachItem(s, v, tooldef.Number, func(el any) (any, bool) { return intForFloat(s.Items, el) })
	case ItemsAsStrings:
		return eachItem(s, v, "", func(el any) (any, bool) {
			n, ok := el.(json.Number)
			return string(n), ok && (s.Items.Type() == tooldef.Number || s.Items.Type() == tooldef.Integer)
		})
	case FloatItemsForInt:
		return eachItem(s, v, tooldef.Integer, func(el any) (any, bool) {
			n, ok := el.(json.Number)
			return json.Number(string(n) + ".0"), ok && tooldef.TypeOf(n) == tooldef.Integer
		})
	}
	return nil, false
}

// eachItem applies f to every element of an array parameter (whose items
// are of type items, when given), reporting whether any changed.
func eachItem(s *tooldef.Schema, v any, items tooldef.Type, f func(any) (any, bool)) (any, bool) {
	list, ok := v.([]any)
	if !ok || s.Type() != tooldef.Array || s.Items == nil || items != "" && s.Items.Type() != items {
		return nil, false
	}
	out := make([]any, len(list))
	changed := false
	for i, el := range list {
		out[i] = el
		if n, ok := f(el); ok {
			out[i], changed = n, true
		}
	}
	return out, changed
}

// toDeclared writes a value whose type the schema does not declare in the
// declared type, when it has one reading: a boolean as "True"/"False" (an
// enum value of that spelling in any case first), a number as its text, a
// numeric string as a number, "true"/"false" as a boolean.
func toDeclared(s *tooldef.Schema, v any) (any, bool) {
	if s == nil || tooldef.TypeFits(s.Types, v) {
		return nil, false
	}
	switch s.Type() {
	case tooldef.String:
		var text string
		switch x := v.(type) {
		case bool:
			text = strings.ToUpper(fmt.Sprint(x)[:1]) + fmt.Sprint(x)[1:]
		case json.Number:
			text = string(x)
		default:
			return nil, false
		}
		for _, e := range s.Enum {
			if es, ok := e.(string); ok && strings.EqualFold(es, text) {
				return es, true
			}
		}
		return text, true
	case tooldef.Integer, tooldef.Number:
		str, ok := v.(string)
		if _, err := strconv.ParseFloat(str, 64); !ok || err != nil {
			return nil, false
		}
		return json.Number(str), true
	case tooldef.Boolean:
		switch str, _ := v.(string); strings.ToLower(str) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return nil, false
}

func wrongType(s *tooldef.Schema, v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return string(x), true
	case bool:
		return fmt.Sprint(x), true
	case string:
		if s.Type() == tooldef.String {
			return []any{x}, true
		}
	}
	return nil, false
}

// otherEnum picks the first enum value that no acceptable value matches
// even after BFCL's string standardisation.
func otherEnum(s *tooldef.Schema, alts []any) (any, bool) {
	for _, cand := range s.Enum {
		match := false
		for _, a := range alts {
			if tooldef.EqualJSON(cand, a) || standardEqual(cand, a) {
				match = true
			}
		}
		if !match && cand != nil {
			return cand, true
		}
	}
	return nil, false
}

func standardEqual(a, b any) bool {
	as, aok := a.(string)
	bs, bok := b.(string)
	return aok && bok && standardize(as) == standardize(bs)
}

// standardize is BFCL's standardize_string: drop " ,./-_*^", lower-case,
// single quotes to double.
func standardize(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(" ,./-_*^", r) {
			return -1
		}
		return r
	}, s)
	return strings.ReplaceAll(strings.ToLower(s), "'", `"`)
}

func hasCase(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

// intForFloat writes an integral float (3.0) as an integer (3) where a
// float is declared.
func intForFloat(s *tooldef.Schema, v any) (any, bool) {
	n, ok := v.(json.Number)
	if !ok || s.Type() != tooldef.Number || tooldef.TypeOf(n) == tooldef.Integer {
		return nil, false
	}
	f, err := n.Float64()
	if err != nil || f != float64(int64(f)) {
		return nil, false
	}
	return json.Number(fmt.Sprint(int64(f))), true
}

// WriteResults writes predictions as a BFCL result file: one line
// {"id", "result": [{name: args}]} per id, in the order of ids.
func WriteResults(w io.Writer, ids []string, preds map[string]Prediction) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, id := range ids {
		p := preds[id]
		result := make([]map[string]any, 0, len(p.Calls))
		for _, c := range p.Calls {
			var args any = c.Args
			if c.Args == nil {
				args = c.ArgsText
			}
			result = append(result, map[string]any{c.Name: args})
		}
		if err := enc.Encode(map[string]any{"id": id, "result": result}); err != nil {
			return fmt.Errorf("writing the result of %s: %w", id, err)
		}
	}
	return nil
}
