package metrics

import (
	"slices"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/tooldef"
)

// RuleOffered is the Conflict rule of a gold call to a tool the dialog's
// definitions do not offer. The other rules are tooldef's.
const RuleOffered tooldef.Rule = "offered"

// Conflict is one way a gold call breaks the tool definitions of its
// dialog. Public tool schemas are written loosely and the gold is what the
// dataset's authors trust, so a conflict is a finding to report, not bad
// input: the gold wins for that field (see GoldConflicts).
type Conflict struct {
	Tool string // the gold call's name (FunctionName)
	// Field is the path inside the arguments ("unit", "table[1][0]");
	// empty for the call itself (RuleOffered).
	Field  string
	Rule   tooldef.Rule
	Detail string // what is wrong, e.g. `expected integer, got a string "ticket_001"`
	// Value is the gold value at Field (decoded JSON; an $any
	// alternative's), nil for a required parameter left out and for
	// RuleOffered.
	Value any
	// Want is what the definition wanted there: "integer", `one of
	// ["Gluten Free","Vegan"]`, "present", "an offered tool".
	Want string
}

// GoldConflicts lists every way the gold call c breaks the tool
// definitions: a tool not offered; a required parameter left out (or
// marked $optional); a parameter the schema does not allow; a value, or an
// $any alternative, of the wrong type or shape at any depth, or outside its
// enum. Nil when c fits or tools is nil.
//
// Deciding lets the gold win where it conflicts: the rule the gold breaks
// is not applied to the prediction at that field (a prediction may call
// the same tool that is not offered, leave out the same required key, give
// the same unknown key), while every other rule still is, and the values
// are compared with the gold's; where the gold breaks the type, the gold's
// type is the field's (goldWins.goldTypeErrors).
func GoldConflicts(tools *tooldef.Set, c Call) []Conflict {
	if tools == nil {
		return nil
	}
	tool := tools.Resolve(c.DefinitionNames()...)
	if tool == nil {
		return []Conflict{{Tool: c.FunctionName(), Rule: RuleOffered,
			Detail: "the dialog's tool definitions do not offer this tool", Want: "an offered tool"}}
	}
	vs := goldArgViolations(tool.Args(), c.Args)
	out := make([]Conflict, len(vs))
	for i, v := range vs {
		out[i] = Conflict{Tool: c.FunctionName(), Field: v.Field, Rule: v.Rule, Detail: v.Detail, Value: v.Value, Want: v.Want}
	}
	return out
}

// goldWins holds the rules a gold call breaks, by field ("field|rule"):
// the prediction is not held to them there.
type goldWins map[string]bool

func goldWinsOf(cs []Conflict) goldWins {
	if len(cs) == 0 {
		return nil
	}
	w := make(goldWins, len(cs))
	for _, c := range cs {
		w[c.Field+"|"+string(c.Rule)] = true
	}
	return w
}

// waives reports whether the gold breaks rule at field itself.
func (w goldWins) waives(field string, rule tooldef.Rule) bool { return w[field+"|"+string(rule)] }

// goldTypeErrors holds the prediction to the gold's type where the gold
// breaks the schema's (the gold wins: its type is the field's type there,
// as BFCL's checker reads an answer of another type than declared): a
// predicted value there whose type no gold value there has (an integer
// and a number are one kind) is a type error, mapped by its field to the
// detail.
func (w goldWins) goldTypeErrors(gold, pred map[string]any) map[string]string {
	var out map[string]string
	for key := range w {
		field, rule, _ := strings.Cut(key, "|")
		if tooldef.Rule(rule) != tooldef.RuleType {
			continue
		}
		pv, ok := valueAt(pred, field)
		if !ok {
			continue
		}
		kinds := map[tooldef.Type]bool{}
		var names []string
		for _, g := range goldValuesAt(gold, field) {
			if k := valueKind(g); !kinds[k] {
				kinds[k] = true
				names = append(names, string(k))
			}
		}
		if len(kinds) == 0 || kinds[valueKind(pv)] {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		slices.Sort(names)
		out[field] = "expected " + strings.Join(names, " or ") + " as the gold gives there (its definition's type does not fit the gold), got " + string(valueKind(pv))
	}
	return out
}

// valueKind is a value's JSON type, integers and other numbers alike.
func valueKind(v any) tooldef.Type {
	if t := tooldef.TypeOf(v); t != tooldef.Integer {
		return t
	}
	return tooldef.Number
}

// valueAt returns the value at rel ("unit", "filters.region[1]") inside
// args; false when there is none.
func valueAt(args map[string]any, rel string) (any, bool) {
	var v any = args
	for _, step := range pathSteps(rel) {
		switch x := v.(type) {
		case map[string]any:
			if step.index >= 0 {
				return nil, false
			}
			var ok bool
			if v, ok = x[step.key]; !ok {
				return nil, false
			}
		case []any:
			if step.index < 0 || step.index >= len(x) {
				return nil, false
			}
			v = x[step.index]
		default:
			return nil, false
		}
	}
	return v, true
}

// goldValuesAt returns every value gold args may have at rel: each $any
// alternative, at any level.
func goldValuesAt(args map[string]any, rel string) []any {
	vals := []any{any(args)}
	for _, step := range pathSteps(rel) {
		var next []any
		for _, v := range expandSpecs(vals) {
			switch x := v.(type) {
			case map[string]any:
				if e, ok := x[step.key]; ok && step.index < 0 {
					next = append(next, e)
				}
			case []any:
				if step.index >= 0 && step.index < len(x) {
					next = append(next, x[step.index])
				}
			}
		}
		vals = next
	}
	return expandSpecs(vals)
}

// expandSpecs replaces each $any spec among vals by its alternatives.
func expandSpecs(vals []any) []any {
	var out []any
	for _, v := range vals {
		if sp, ok := specOf(v); ok {
			out = append(out, expandSpecs(sp.alts)...)
			continue
		}
		out = append(out, v)
	}
	return out
}

// pathStep is one step of a field path: an object key, or (index >= 0) an
// array element.
type pathStep struct {
	key   string
	index int
}

// pathSteps splits a path inside a call's arguments ("filters.region[1]").
func pathSteps(rel string) []pathStep {
	var out []pathStep
	for rel != "" {
		if rel[0] == '[' {
			end := strings.IndexByte(rel, ']')
			i, err := strconv.Atoi(rel[1:max(end, 1)])
			if end < 0 || err != nil {
				return append(out, pathStep{key: rel, index: -1})
			}
			out, rel = append(out, pathStep{index: i}), rel[end+1:]
			continue
		}
		rel = strings.TrimPrefix(rel, ".")
		end := strings.IndexAny(rel, ".[")
		if end < 0 {
			end = len(rel)
		}
		out, rel = append(out, pathStep{key: rel[:end], index: -1}), rel[end:]
	}
	return out
}

// goldArgViolations is Tool.ValidateArgs for gold args, which may hold
// $any / $optional specs.
func goldArgViolations(args *tooldef.Schema, gold map[string]any) []tooldef.Violation {
	return goldObject(args, "", gold, !args.OpenObject)
}

// goldViolations checks a gold value against s: each $any alternative in
// its place, objects and arrays holding specs part by part, the rest with
// Schema.Validate (ValidateItem for an element of an array: elem).
func goldViolations(s *tooldef.Schema, path string, v any, elem bool) []tooldef.Violation {
	if sp, ok := specOf(v); ok {
		var out []tooldef.Violation
		for _, a := range sp.alts {
			out = append(out, goldViolations(s, path, a, elem)...)
		}
		return out
	}
	validate := s.Validate
	if elem {
		validate = s.ValidateItem
	}
	if s == nil || !holdsSpec(v) {
		return validate(path, v)
	}
	if !tooldef.TypeFits(s.Types, v) || len(s.AnyOf) > 0 || len(s.AllOf) > 0 || s.Ref != nil {
		// Rare: decide with the first alternative of every spec.
		return validate(path, firstAlternatives(v))
	}
	switch x := v.(type) {
	case map[string]any:
		return goldObject(s, path, x, s.ClosedObject)
	case []any:
		var out []tooldef.Violation
		for i, e := range x {
			out = append(out, goldViolations(s.Item(i), path+"["+strconv.Itoa(i)+"]", e, true)...)
		}
		return out
	}
	return nil
}

// goldObject checks required keys (present, not $optional), allowed keys
// and every value.
func goldObject(s *tooldef.Schema, path string, m map[string]any, closed bool) []tooldef.Violation {
	var out []tooldef.Violation
	for _, r := range s.Required {
		v, given := m[r]
		if sp, isSpec := specOf(v); !given || isSpec && sp.optional {
			detail := "required parameter is missing"
			if given {
				detail = "required parameter is marked $optional"
			}
			out = append(out, tooldef.Violation{Field: joinPath(path, r), Rule: tooldef.RuleRequired, Detail: detail, Want: "present"})
		}
	}
	for _, k := range sortedKeys(m) {
		ps, allowed := s.Property(k, closed)
		if !allowed {
			out = append(out, tooldef.Violation{Field: joinPath(path, k), Rule: tooldef.RuleUnknown, Detail: "the tool definition has no such parameter",
				Value: firstAlternatives(m[k]), Want: "no such parameter" + listing(s)})
			continue
		}
		out = append(out, goldViolations(ps, joinPath(path, k), m[k], false)...)
	}
	return out
}

// listing names the parameters an object schema has, for messages.
func listing(s *tooldef.Schema) string {
	if s == nil || len(s.Properties) == 0 {
		return " (it takes none)"
	}
	return " (it has " + strings.Join(sortedKeys(s.Properties), ", ") + ")"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// holdsSpec reports whether v is or contains a $any / $optional spec.
func holdsSpec(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if isSpecObject(x) {
			return true
		}
		for _, e := range x {
			if holdsSpec(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if holdsSpec(e) {
				return true
			}
		}
	}
	return false
}

// firstAlternatives replaces every spec by its first alternative (an
// $optional one by nothing).
func firstAlternatives(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if sp, ok := specOf(x); ok {
			return firstAlternatives(sp.alts[0])
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			if sp, ok := specOf(e); ok && sp.optional {
				continue
			}
			out[k] = firstAlternatives(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = firstAlternatives(e)
		}
		return out
	}
	return v
}

// shapeRule reports whether a violation of a predicted value is checked
// invalid_parameter_type: a type the schema does not allow, at any depth,
// and below the top level a required key left out or a key the object does
// not allow. (Enum membership is a value's meaning, checked against gold.)
func shapeRule(v tooldef.Violation) bool {
	switch v.Rule {
	case tooldef.RuleType:
		return true
	case tooldef.RuleRequired, tooldef.RuleUnknown:
		return strings.ContainsAny(v.Field, ".[")
	}
	return false
}

// typesUnvisited records a "type" FieldScore for every predicted value of
// a bad type or shape that comparing with gold did not reach (an array
// element or a key gold does not have, a value below one compared as a
// whole): a value's type is checked before its meaning, wherever it sits.
func (c *comparer) typesUnvisited() {
	for _, path := range sortedKeys(c.badType) {
		if !slices.ContainsFunc(c.scores, func(s FieldScore) bool { return s.Field == path && s.Method == MethodType }) {
			c.scores = append(c.scores, FieldScore{Field: path, Method: MethodType})
		}
	}
}

// MethodDefault is the FieldScore method of a parameter one side leaves
// out and the other gives its schema default: the same call, stated in the
// verdict (it passes).
const MethodDefault = "default"

// omittable reports whether a prediction may leave out gold parameter k:
// gold marks it $optional, or its default is the gold value (defaulted).
func omittable(tool *tooldef.Tool, k string, gold any) bool {
	sp, isSpec := specOf(gold)
	return isSpec && sp.optional || defaulted(tool.Args(), k, gold)
}

// defaulted reports whether key k of an object with schema obj may be left
// out where gold gives it: k is optional there and its default is the gold
// value (or one of its $any alternatives), so leaving it out means the
// same.
func defaulted(obj *tooldef.Schema, k string, gold any) bool {
	d, ok := optionalDefault(obj, k)
	if !ok {
		return false
	}
	alts := []any{gold}
	if sp, isSpec := specOf(gold); isSpec {
		alts = sp.alts
	}
	return slices.ContainsFunc(alts, func(a any) bool { return tooldef.EqualJSON(a, d) })
}

// givenDefault reports whether a predicted key k that gold leaves out is
// fine: an optional key of the object with schema obj, given its default.
func givenDefault(obj *tooldef.Schema, k string, pred any) bool {
	d, ok := optionalDefault(obj, k)
	return ok && tooldef.EqualJSON(pred, d)
}

// optionalDefault is the default of key k of an object with schema obj,
// when k is optional there and declares one.
func optionalDefault(obj *tooldef.Schema, k string) (any, bool) {
	for obj != nil && obj.Ref != nil && obj.Properties == nil {
		obj = obj.Ref
	}
	if obj == nil || slices.Contains(obj.Required, k) {
		return nil, false
	}
	ps := obj.Properties[k]
	if ps == nil || !ps.HasDefault {
		return nil, false
	}
	return ps.Default, true
}

// defaultScore records that the key at path was left out on one side and
// given its default on the other.
func defaultScore(path string) FieldScore {
	return FieldScore{Field: path, Method: MethodDefault, Score: 1, Pass: true}
}

// nestedDefault records, for key k of the nested object at path that one
// side leaves out, whether the other side gives its default (gold the
// value: left out by the prediction; pred: given where gold leaves it out).
func (c *comparer) nestedDefault(path, k string, gold, pred any, goldSide bool) bool {
	obj := c.schemaOf(path)
	ok := goldSide && defaulted(obj, k, gold) || !goldSide && givenDefault(obj, k, pred)
	if ok {
		c.scores = append(c.scores, defaultScore(path+"."+k))
	}
	return ok
}

// schemaAt returns the schema of the value at rel, a path inside a call's
// arguments ("unit", "filters.region[1]"), or nil when the tool is nil or
// the path leaves what its schema describes.
func schemaAt(tool *tooldef.Tool, rel string) *tooldef.Schema {
	if tool == nil {
		return nil
	}
	s := tool.Args()
	for rel != "" && s != nil {
		for s.Ref != nil && s.Properties == nil && s.Items == nil {
			s = s.Ref
		}
		if rel[0] == '[' {
			end := strings.IndexByte(rel, ']')
			i, err := strconv.Atoi(rel[1:max(end, 1)])
			if end < 0 || err != nil {
				return nil
			}
			s, rel = s.Item(i), rel[end+1:]
			continue
		}
		rel = strings.TrimPrefix(rel, ".")
		end := strings.IndexAny(rel, ".[")
		if end < 0 {
			end = len(rel)
		}
		s, _ = s.Property(rel[:end], false)
		rel = rel[end:]
	}
	return s
}

// lastKey is the last object key of a value path ("a.b[2]" -> "b").
func lastKey(path string) string {
	for strings.HasSuffix(path, "]") {
		path = path[:strings.LastIndexByte(path, '[')]
	}
	return path[strings.LastIndexByte(path, '.')+1:]
}
