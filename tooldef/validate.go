package tooldef

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rule names the schema rule a violation breaks.
type Rule string

// Schema rules, as Violation.Rule reports them.
const (
	RuleRequired Rule = "required" // a required key is absent
	RuleUnknown  Rule = "unknown"  // a key the schema does not allow
	RuleType     Rule = "type"     // a value of a type the schema does not allow
	RuleEnum     Rule = "enum"     // a value outside enum / const
)

// Violation is one way a value breaks its schema.
type Violation struct {
	// Field is the path from the arguments' root: "unit",
	// "filters.region[1]"; empty for the arguments object itself.
	Field  string
	Rule   Rule
	Detail string // what is wrong, e.g. `expected integer, got a string "5"`
	// Value is the offending value (decoded JSON); nil for a required key
	// that is absent.
	Value any
	// Want is what the schema wanted there, in words: "integer",
	// `one of ["celsius","fahrenheit"]`, "one of the parameters a, b",
	// "present".
	Want string
}

// String renders the violation as "FIELD: DETAIL (rule RULE)".
func (v Violation) String() string {
	return fmt.Sprintf("%s: %s (rule %s)", v.Field, v.Detail, v.Rule)
}

// Validate checks v against the schema and returns every violation, in a
// stable order; none means v fits. path prefixes the fields reported. A nil
// schema accepts everything.
//
// Elements of arrays are judged like any value, with one rule of BFCL's
// (Python's) dialect: where the items are declared float (or double), an
// integer literal is not one. BFCL's checker converts an integer to a float
// for a parameter's own value, as Python does in a call, but not inside a
// list ([133, 34] is not a list of floats); JSON Schema's number takes
// integers at any depth.
func (s *Schema) Validate(path string, v any) []Violation {
	c := &checker{budget: maxSteps}
	s.validate(c, path, v, false)
	return c.out
}

// ValidateItem is Validate for an element of an array (the float rule
// above applies to v itself).
func (s *Schema) ValidateItem(path string, v any) []Violation {
	c := &checker{budget: maxSteps}
	s.validate(c, path, v, true)
	return c.out
}

// maxSteps bounds the schema nodes one validation visits. Parse bounds the
// fan-out per value; this bounds its product over nested values (anyOf of
// objects whose properties are anyOfs...), so a hostile schema cannot make
// validation slow. Real tool schemas need a few hundred steps.
const maxSteps = 1_000_000

// checker collects violations and counts the steps left.
type checker struct {
	out       []Violation
	budget    int
	exhausted bool
}

func (c *checker) add(v Violation) {
	if !c.exhausted {
		c.out = append(c.out, v)
	}
}

// step spends one step; false (with one violation recorded) when none is left.
func (c *checker) step(path string) bool {
	if c.budget > 0 {
		c.budget--
		return true
	}
	if !c.exhausted {
		c.out = append(c.out, Violation{Field: path, Rule: RuleType,
			Detail: "the schema is too complex to check (it needs more than a million steps for this value)"})
		c.exhausted = true
	}
	return false
}

// validate checks v at path; elem is true for an element of an array.
func (s *Schema) validate(c *checker, path string, v any, elem bool) {
	if s == nil || !c.step(path) {
		return
	}
	if s.HasDefault && TypeOf(v) == TypeOf(s.Default) && EqualJSON(v, s.Default) {
		return // the default itself (3.0 is not the default 3 of an integer)
	}
	if s.Never {
		c.add(Violation{Field: path, Rule: RuleType, Detail: "the schema allows no value here", Value: v, Want: "no value"})
		return
	}
	if !s.fits(v, elem) {
		detail := fmt.Sprintf("expected %s, got %s", s.declared(), describe(v))
		if TypeFits(s.Types, v) {
			detail += " (an integer is not a float inside a list: write it with a fraction, e.g. 3.0)"
		}
		c.add(Violation{Field: path, Rule: RuleType, Detail: detail, Value: v, Want: s.declared()})
		return
	}
	if s.Enum != nil && !containsJSON(s.Enum, v) {
		c.add(Violation{Field: path, Rule: RuleEnum, Detail: fmt.Sprintf("%s is not one of %s", describe(v), render(s.Enum)),
			Value: v, Want: "one of " + render(s.Enum)})
	}
	switch x := v.(type) {
	case map[string]any:
		s.object(c, path, x, s.ClosedObject)
	case []any:
		s.array(c, path, x)
	}
	if len(s.AnyOf) > 0 {
		s.anyOf(c, path, v, elem)
	}
	for _, a := range s.AllOf {
		a.validate(c, path, v, elem)
	}
	s.Ref.validate(c, path, v, elem)
}

// fits reports whether v has a type s allows; elem is true for an element
// of an array, where an integer literal is not a float of BFCL's dialect
// (Schema.Float).
func (s *Schema) fits(v any, elem bool) bool {
	if !TypeFits(s.Types, v) {
		return false
	}
	return !elem || !s.Float || TypeOf(v) != Integer || slices.Contains(s.Types, Integer)
}

// declared names the allowed types for messages.
func (s *Schema) declared() string {
	if s.Declared != "" {
		return s.Declared
	}
	return joinTypes(s.Types)
}

// object checks required keys, then every key in sorted order; closed
// makes a key outside Properties (and without an Additional schema) a
// violation.
func (s *Schema) object(c *checker, path string, m map[string]any, closed bool) {
	for _, k := range s.Required {
		if _, ok := m[k]; !ok {
			c.add(Violation{Field: join(path, k), Rule: RuleRequired, Detail: "required parameter is missing", Want: "present"})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		at := join(path, k)
		ps, allowed := s.Property(k, closed)
		if !allowed {
			c.add(Violation{Field: at, Rule: RuleUnknown, Detail: "the schema has no such parameter" + s.listing(), Value: m[k], Want: "no such key" + s.listing()})
			continue
		}
		ps.validate(c, at, m[k], false)
	}
}

// listing names the known properties for an "unknown key" message.
func (s *Schema) listing() string {
	if len(s.Properties) == 0 {
		return " (it takes none)"
	}
	return " (it has " + strings.Join(slices.Sorted(maps.Keys(s.Properties)), ", ") + ")"
}

func (s *Schema) array(c *checker, path string, list []any) {
	for i, e := range list {
		s.Item(i).validate(c, path+"["+strconv.Itoa(i)+"]", e, true)
	}
}

// anyOf accepts v when one alternative has no violation. Otherwise it
// reports the violations of the first alternative whose type fits v, or a
// type violation naming every alternative's type.
func (s *Schema) anyOf(c *checker, path string, v any, elem bool) {
	var first []Violation
	fitting := false
	var names []string
	for _, a := range s.AnyOf {
		sub := &checker{budget: c.budget}
		a.validate(sub, path, v, elem)
		c.budget = sub.budget
		if sub.exhausted {
			c.step(path)
			return
		}
		vs := sub.out
		if len(vs) == 0 {
			return
		}
		names = append(names, a.declaredOrAny())
		if !fitting && a.fits(v, elem) {
			first, fitting = vs, true
		}
	}
	if fitting {
		for _, f := range first {
			c.add(f)
		}
		return
	}
	c.add(Violation{Field: path, Rule: RuleType,
		Detail: fmt.Sprintf("expected one of anyOf's alternatives (%s), got %s", strings.Join(names, ", "), describe(v)),
		Value:  v, Want: "one of " + strings.Join(names, ", ")})
}

func (s *Schema) declaredOrAny() string {
	if d := s.declared(); d != "" {
		return d
	}
	return "schema"
}

// ValidateArgs checks a call's arguments against the tool's parameters:
// required parameters present, no parameter the schema does not list
// (unless it sets additionalProperties), every value fitting its schema.
func (t *Tool) ValidateArgs(args map[string]any) []Violation {
	return t.validateArgs(args, maxSteps)
}

func (t *Tool) validateArgs(args map[string]any, budget int) []Violation {
	c := &checker{budget: budget}
	p := t.Args()
	p.object(c, "", args, !p.OpenObject)
	for _, a := range p.AllOf {
		a.validate(c, "", args, false)
	}
	return c.out
}

// Args returns the schema of the arguments object: Parameters, through a
// top-level $ref ({"$ref": "#/$defs/Args", "$defs": ...}); an empty schema
// when the tool takes no parameters. Its keys are closed unless it sets
// OpenObject.
func (t *Tool) Args() *Schema {
	if t == nil {
		return &Schema{}
	}
	p := t.Parameters
	for p != nil && p.Ref != nil && p.Properties == nil {
		p = p.Ref
	}
	if p == nil {
		return &Schema{}
	}
	return p
}

// Param returns the schema of the named top-level parameter, or nil.
func (t *Tool) Param(name string) *Schema {
	if t == nil {
		return nil
	}
	return t.Args().Properties[name]
}

// IsRequired reports whether the tool's schema lists the parameter in
// required.
func (t *Tool) IsRequired(name string) bool {
	return t != nil && slices.Contains(t.Args().Required, name)
}

// Property returns the schema for key k of an object the schema describes:
// its property schema, else the additionalProperties schema (nil when that
// is absent or true). allowed is false when the object is closed to k;
// closed says whether keys the schema does not list are refused (true for
// a tool's arguments unless OpenObject, for nested objects when
// additionalProperties is false).
func (s *Schema) Property(k string, closed bool) (ps *Schema, allowed bool) {
	if s == nil {
		return nil, !closed
	}
	if ps, ok := s.Properties[k]; ok {
		return ps, true
	}
	if s.Additional != nil {
		return s.Additional, true
	}
	return nil, !closed
}

// Item returns the schema of element i of an array the schema describes.
func (s *Schema) Item(i int) *Schema {
	if s == nil {
		return nil
	}
	if i < len(s.Positional) {
		return s.Positional[i]
	}
	return s.Items
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// TypeFits reports whether v, a decoded JSON value (numbers as
// json.Number), has one of the types; an empty list allows every type. An
// integer fits number; an integer is a number written without fraction or
// exponent (5 fits integer, 5.0 does not), as BFCL's checker reads JSON.
func TypeFits(types []Type, v any) bool {
	if len(types) == 0 {
		return true
	}
	vt := TypeOf(v)
	for _, t := range types {
		if t == vt || t == Number && vt == Integer {
			return true
		}
	}
	return false
}

// TypeOf returns the JSON type of a decoded value: integer for json.Number
// literals without fraction or exponent (and Go integers), number for other
// numbers; "" for a value that is not JSON.
func TypeOf(v any) Type {
	switch x := v.(type) {
	case nil:
		return Null
	case bool:
		return Boolean
	case string:
		return String
	case json.Number:
		if isIntegerLiteral(x) {
			return Integer
		}
		return Number
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return Integer
		}
		return Number
	case float32:
		return TypeOf(float64(x))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return Integer
	case []any:
		return Array
	case map[string]any:
		return Object
	}
	return ""
}

func isIntegerLiteral(n json.Number) bool {
	return n != "" && !strings.ContainsAny(string(n), ".eE")
}

// EqualJSON reports whether two decoded JSON values are equal: numbers by
// value (1 equals 1.0), strings and booleans exactly, arrays in order,
// objects key by key. A boolean never equals a number.
func EqualJSON(a, b any) bool {
	if an, ok := number(a); ok {
		bn, ok := number(b)
		return ok && an.Cmp(bn) == 0
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !EqualJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !EqualJSON(xv, yv) {
				return false
			}
		}
		return true
	case nil, bool, string:
		return a == b
	}
	return false
}

// number reads a JSON or Go number exactly.
func number(v any) (*big.Float, bool) {
	switch x := v.(type) {
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		return f, err == nil
	case float64:
		if math.IsNaN(x) {
			return nil, false
		}
		return big.NewFloat(x), true
	case float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		f, _ := number(reflect.ValueOf(x).Convert(reflect.TypeFor[float64]()).Float())
		return f, true
	}
	return nil, false
}

func containsJSON(list []any, v any) bool {
	for _, e := range list {
		if EqualJSON(e, v) {
			return true
		}
	}
	return false
}

// describe renders a value with its kind for messages, cut at 60 bytes.
func describe(v any) string {
	return kindOf(v) + " " + render(v)
}

func render(v any) string {
	b, err := json.Marshal(v)
	s := string(b)
	if err != nil {
		s = fmt.Sprint(v)
	}
	if len(s) > 60 {
		n := 57
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n] + "..."
	}
	return s
}
