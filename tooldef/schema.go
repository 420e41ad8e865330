package tooldef

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Type is a JSON Schema type after the dialect's name has been mapped.
type Type string

// The JSON Schema types.
const (
	Object  Type = "object"
	Array   Type = "array"
	String  Type = "string"
	Number  Type = "number"
	Integer Type = "integer"
	Boolean Type = "boolean"
	Null    Type = "null"
)

// typeNames maps every accepted type name to its JSON Schema type; "" means
// any type. It holds JSON Schema's names, BFCL's dialect and the rest of
// BFCL's GORILLA_TO_OPENAPI table, and Python's int and str.
var typeNames = map[string]Type{
	"object": Object, "array": Array, "string": String, "number": Number,
	"integer": Integer, "boolean": Boolean, "null": Null,
	"dict": Object, "float": Number, "tuple": Array, "any": "",
	"bool": Boolean, "list": Array, "byte": Integer, "short": Integer, "long": Integer,
	"double": Number, "char": String, "String": String, "Bigint": Integer,
	"ArrayList": Array, "Array": Array, "Queue": Array, "Stack": Array,
	"HashMap": Object, "Hashtable": Object, "Any": "",
	"int": Integer, "str": String,
}

// Schema is one JSON Schema node, normalised across dialects.
type Schema struct {
	// Types lists the allowed types, sorted; empty means every type.
	Types []Type
	// Declared is the type as written ("dict", "float", "string|null"),
	// for messages; empty when the schema gives none.
	Declared    string
	Description string
	// Enum lists the allowed values (from enum or const; JSON numbers are
	// json.Number); nil means any value.
	Enum       []any
	Default    any
	HasDefault bool

	Properties map[string]*Schema
	Required   []string
	// ClosedObject is true when additionalProperties is false: a key not in
	// Properties is a violation. OpenObject is true when it is true or a
	// schema (Additional, which extra keys' values must fit). A nested
	// object is open unless closed; a tool's parameters are closed unless
	// open.
	ClosedObject bool
	OpenObject   bool
	Additional   *Schema

	// Items is the schema of array elements (after Positional ones).
	Items *Schema
	// Positional holds per-position schemas (prefixItems, or items given as
	// a list).
	Positional []*Schema

	// AnyOf holds alternatives (anyOf, and oneOf read as anyOf) that are not
	// plain types; a value must fit one. Alternatives that are plain types
	// are folded into Types.
	AnyOf []*Schema
	// AllOf holds schemas the value must fit as well.
	AllOf []*Schema
	// Ref is the local $ref target; the value must fit it as well.
	Ref *Schema

	// Never is true for the schema `false`: no value fits.
	Never bool

	// Float is true when the type is declared in BFCL's (Python's)
	// dialect as float or double and not also as an integer: inside an
	// array, an integer literal is not one (see Validate).
	Float bool

	// Format and Pattern are the string keywords as given; they are not
	// checked, but they mark a value compared exactly (see package
	// metrics).
	Format  string
	Pattern string
}

// Type returns the schema's one declared type, or "" when it allows any
// type or several.
func (s *Schema) Type() Type {
	if s == nil {
		return ""
	}
	if len(s.Types) == 1 {
		return s.Types[0]
	}
	if len(s.Types) == 0 && s.Ref != nil {
		return s.Ref.Type()
	}
	return ""
}

// schemaParser turns decoded JSON into Schemas, resolving local $refs
// against the root's $defs / definitions.
type schemaParser struct {
	defs map[string]*Schema // "#/$defs/X" -> schema (filled after allocation, so refs may point forward)
	raw  map[string]any     // "#/$defs/X" -> its JSON
}

// parseRoot parses a definition's parameter schema. at is the JSON path of
// raw inside the definition, for errors.
func parseRoot(at string, raw any) (*Schema, error) {
	p := &schemaParser{defs: map[string]*Schema{}, raw: map[string]any{}}
	if m, ok := raw.(map[string]any); ok {
		for _, kw := range []string{"$defs", "definitions"} {
			defs, ok := m[kw]
			if !ok {
				continue
			}
			dm, ok := defs.(map[string]any)
			if !ok {
				return nil, fieldErr(at+"."+kw, kw+" must be an object of schemas", "")
			}
			for name, d := range dm {
				ref := "#/" + kw + "/" + pointerEscape.Replace(name)
				p.defs[ref], p.raw[ref] = &Schema{}, d
			}
		}
	}
	refs := slices.Sorted(maps.Keys(p.raw))
	for _, ref := range refs {
		s, err := p.parse(at+"."+refPath(ref), p.raw[ref])
		if err != nil {
			return nil, err
		}
		*p.defs[ref] = *s
	}
	root, err := p.parse(at, raw)
	if err != nil {
		return nil, err
	}
	w := &expansion{size: map[*Schema]int{}, onPath: map[*Schema]bool{}}
	for _, ref := range refs {
		if err := w.check(p.defs[ref]); err != nil {
			return nil, fieldErr(at+"."+refPath(ref), err.Error(), expansionFix)
		}
	}
	if err := w.check(root); err != nil {
		return nil, fieldErr(at, err.Error(), expansionFix)
	}
	return root, nil
}

const expansionFix = "give a circular $ref an object or array level in between, and keep anyOf/allOf/$ref nesting shallow"

// maxExpansion bounds how many schemas one value may be checked against
// without descending into it (through $ref, anyOf and allOf, counted with
// repetition), so that validation stays cheap whatever the input.
const maxExpansion = 10000

// expansion walks the $ref / anyOf / allOf edges of schemas: a schema that
// reaches itself through them alone would make validation endless, and one
// that fans out too far would make it slow. Sizes are memoised, so the walk
// is linear in the number of schemas.
type expansion struct {
	size   map[*Schema]int
	onPath map[*Schema]bool
}

func (w *expansion) check(s *Schema) error {
	_, err := w.walk(s)
	return err
}

// walk returns how many schemas s expands to (itself included), capped
// just above maxExpansion.
func (w *expansion) walk(s *Schema) (int, error) {
	if s == nil {
		return 0, nil
	}
	if n, done := w.size[s]; done {
		return n, nil
	}
	if w.onPath[s] {
		return 0, fmt.Errorf("circular $ref: the schema refers to itself without an object or array level in between")
	}
	w.onPath[s] = true
	defer delete(w.onPath, s)
	n := 1
	for _, c := range append(append([]*Schema{s.Ref}, s.AnyOf...), s.AllOf...) {
		k, err := w.walk(c)
		if err != nil {
			return 0, err
		}
		n = min(n+k, maxExpansion+1)
	}
	if n > maxExpansion {
		return 0, fmt.Errorf("the schema expands to more than %d alternatives through $ref, anyOf and allOf", maxExpansion)
	}
	w.size[s] = n
	return n, nil
}

// parse parses one schema node.
func (p *schemaParser) parse(at string, raw any) (*Schema, error) {
	switch v := raw.(type) {
	case bool:
		return &Schema{Never: !v}, nil
	case map[string]any:
		return p.object(at, v)
	}
	return nil, fieldErr(at, fmt.Sprintf("a schema must be a JSON object, got %s", kindOf(raw)), `write e.g. {"type": "string"}`)
}

func (p *schemaParser) object(at string, m map[string]any) (*Schema, error) {
	s := &Schema{}
	s.Description, _ = m["description"].(string)
	s.Format, _ = m["format"].(string)
	s.Pattern, _ = m["pattern"].(string)
	steps := []func(string, map[string]any, *Schema) error{
		p.types, p.enum, p.properties, p.items, p.combinators, p.ref,
	}
	for _, step := range steps {
		if err := step(at, m, s); err != nil {
			return nil, err
		}
	}
	if d, ok := m["default"]; ok {
		s.Default, s.HasDefault = d, true
	}
	return s, nil
}

func (p *schemaParser) types(at string, m map[string]any, s *Schema) error {
	raw, ok := m["type"]
	if !ok {
		return nil
	}
	var names []string
	switch v := raw.(type) {
	case string:
		names = []string{v}
	case []any:
		for i, e := range v {
			n, ok := e.(string)
			if !ok {
				return fieldErr(fmt.Sprintf("%s.type[%d]", at, i), "a type name must be a string", `write e.g. "type": ["string", "null"]`)
			}
			names = append(names, n)
		}
	default:
		return fieldErr(at+".type", "type must be a name or a list of names", `write e.g. "type": "string"`)
	}
	anyType := false
	for _, n := range names {
		t, known := typeNames[n]
		if !known {
			return fieldErr(at+".type", fmt.Sprintf("unknown type %q", n),
				"use object, array, string, number, integer, boolean or null (or BFCL's dict, float, tuple, any)")
		}
		if t == "" {
			anyType = true
		}
		s.Types = appendType(s.Types, t)
	}
	s.Declared = strings.Join(names, "|")
	s.Float = !anyType && !slices.Contains(s.Types, Integer) &&
		slices.ContainsFunc(names, func(n string) bool { return n == "float" || n == "double" })
	if anyType {
		s.Types = nil
	} else if n, _ := m["nullable"].(bool); n {
		s.Types = appendType(s.Types, Null)
	}
	return nil
}

func appendType(ts []Type, t Type) []Type {
	if t == "" || slices.Contains(ts, t) {
		return ts
	}
	ts = append(ts, t)
	slices.Sort(ts)
	return ts
}

func (p *schemaParser) enum(at string, m map[string]any, s *Schema) error {
	if raw, ok := m["enum"]; ok {
		vals, isList := raw.([]any)
		if !isList {
			return fieldErr(at+".enum", "enum must be a JSON array of the allowed values", `write e.g. "enum": ["celsius", "fahrenheit"]`)
		}
		s.Enum = append([]any{}, vals...)
	}
	if c, ok := m["const"]; ok {
		if s.Enum != nil && !containsJSON(s.Enum, c) {
			s.Enum = []any{}
		} else {
			s.Enum = []any{c}
		}
	}
	return nil
}

func (p *schemaParser) properties(at string, m map[string]any, s *Schema) error {
	if raw, ok := m["properties"]; ok {
		pm, isObj := raw.(map[string]any)
		if !isObj {
			return fieldErr(at+".properties", "properties must be an object of parameter schemas", `write e.g. "properties": {"city": {"type": "string"}}`)
		}
		s.Properties = make(map[string]*Schema, len(pm))
		for _, k := range slices.Sorted(maps.Keys(pm)) {
			ps, err := p.parse(at+".properties."+k, pm[k])
			if err != nil {
				return err
			}
			s.Properties[k] = ps
		}
	}
	if raw, ok := m["required"]; ok {
		list, isList := raw.([]any)
		if !isList {
			return fieldErr(at+".required", "required must be a JSON array of parameter names", `write e.g. "required": ["city"]`)
		}
		for i, e := range list {
			name, isStr := e.(string)
			if !isStr {
				return fieldErr(fmt.Sprintf("%s.required[%d]", at, i), "a required name must be a string", "")
			}
			if !slices.Contains(s.Required, name) {
				s.Required = append(s.Required, name)
			}
		}
		sort.Strings(s.Required)
	}
	switch v := m["additionalProperties"].(type) {
	case bool:
		s.ClosedObject, s.OpenObject = !v, v
	case map[string]any:
		as, err := p.parse(at+".additionalProperties", v)
		if err != nil {
			return err
		}
		s.Additional, s.OpenObject = as, true
	}
	return nil
}

func (p *schemaParser) items(at string, m map[string]any, s *Schema) error {
	if raw, ok := m["prefixItems"]; ok {
		list, err := p.list(at+".prefixItems", raw)
		if err != nil {
			return err
		}
		s.Positional = list
	}
	raw, ok := m["items"]
	if !ok {
		return nil
	}
	if _, isList := raw.([]any); isList {
		list, err := p.list(at+".items", raw)
		if err != nil {
			return err
		}
		s.Positional = list
		return nil
	}
	is, err := p.parse(at+".items", raw)
	if err != nil {
		return err
	}
	s.Items = is
	return nil
}

func (p *schemaParser) list(at string, raw any) ([]*Schema, error) {
	list, ok := raw.([]any)
	if !ok {
		return nil, fieldErr(at, "must be a JSON array of schemas", "")
	}
	out := make([]*Schema, len(list))
	for i, e := range list {
		s, err := p.parse(at+"["+strconv.Itoa(i)+"]", e)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// combinators reads anyOf/oneOf (alternatives that are bare types fold into
// Types) and allOf.
func (p *schemaParser) combinators(at string, m map[string]any, s *Schema) error {
	for _, kw := range []string{"anyOf", "oneOf"} {
		raw, ok := m[kw]
		if !ok {
			continue
		}
		alts, err := p.list(at+"."+kw, raw)
		if err != nil {
			return err
		}
		if len(alts) == 0 {
			return fieldErr(at+"."+kw, kw+" must list at least one schema", "")
		}
		if folded, ok := foldTypes(alts); ok && len(s.Types) == 0 && s.Declared == "" {
			s.Types = folded
			s.Declared = joinTypes(folded)
			s.Float = !slices.Contains(folded, Integer) && slices.ContainsFunc(alts, func(a *Schema) bool { return a.Float })
			continue
		}
		s.AnyOf = append(s.AnyOf, alts...)
	}
	if raw, ok := m["allOf"]; ok {
		all, err := p.list(at+".allOf", raw)
		if err != nil {
			return err
		}
		s.AllOf = all
	}
	return nil
}

// foldTypes returns the union of the alternatives' types when every one is
// a bare type (nothing but type and description).
func foldTypes(alts []*Schema) ([]Type, bool) {
	var ts []Type
	for _, a := range alts {
		if len(a.Types) == 0 || a.Enum != nil || a.Format != "" || a.Pattern != "" || a.Properties != nil || len(a.Required) > 0 || a.ClosedObject || a.OpenObject ||
			a.Additional != nil || a.Items != nil || a.Positional != nil || a.AnyOf != nil || a.AllOf != nil ||
			a.Ref != nil || a.Never {
			return nil, false
		}
		for _, t := range a.Types {
			ts = appendType(ts, t)
		}
	}
	return ts, true
}

func joinTypes(ts []Type) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return strings.Join(names, "|")
}

func (p *schemaParser) ref(at string, m map[string]any, s *Schema) error {
	raw, ok := m["$ref"]
	if !ok {
		return nil
	}
	ref, isStr := raw.(string)
	if !isStr {
		return fieldErr(at+".$ref", "$ref must be a string", `write e.g. "$ref": "#/$defs/Address"`)
	}
	target, known := p.defs[ref]
	if !known {
		return fieldErr(at+".$ref", fmt.Sprintf("$ref %q does not name a schema under the root's $defs or definitions", ref),
			`only local references are read: put the schema under "$defs" in the parameters object and write "#/$defs/Name"`)
	}
	s.Ref = target
	return nil
}

// pointerEscape escapes a key for a JSON Pointer (RFC 6901).
var pointerEscape = strings.NewReplacer("~", "~0", "/", "~1")

// refPath turns "#/$defs/X" into the field path "$defs.X".
func refPath(ref string) string {
	return strings.ReplaceAll(strings.TrimPrefix(ref, "#/"), "/", ".")
}

// kindOf names the JSON kind of a decoded value, for messages.
func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		if isIntegerLiteral(x) {
			return "an integer"
		}
		return "a number"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}
