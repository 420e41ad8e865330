package tooldef

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
)

// Tool is one function definition.
type Tool struct {
	Name        string
	Description string
	// Parameters is the schema of the arguments object; nil when the tool
	// takes no parameters.
	Parameters *Schema
	// ReadOnly is MCP's annotations.readOnlyHint: the tool does not modify
	// its environment (see readOnlyHint for where each dialect carries it).
	ReadOnly bool
	// JSON is the definition as given, compacted.
	JSON json.RawMessage
}

// schemaKeys are the keys a definition's parameter schema may sit under.
var schemaKeys = []string{"parameters", "inputSchema", "input_schema"}

// otherKeys are definition keys that are read or knowingly ignored.
var otherKeys = []string{
	"name", "description", "type", "function", "strict", "title", "annotations",
	"outputSchema", "output_schema", "_meta", "cache_control", "response", "returns",
}

// Parse reads tool definitions from data: a JSON array of definitions, JSON
// Lines (or concatenated objects) with one definition each, or one object
// {"tools": [...]}. file names the source in errors. An empty array is an
// empty Set (no tool offered). Every error is a *badinput.RowError of
// Kind ErrInvalid naming the definition (Row), its line and the field.
func Parse(file string, data []byte) (*Set, error) {
	defs, err := split(data)
	if err != nil {
		var e *badinput.RowError
		if errors.As(err, &e) {
			e.File = file
		}
		return nil, err
	}
	tools := make([]*Tool, 0, len(defs))
	for i, d := range defs {
		t, err := parseDefinition(d.raw)
		if err != nil {
			var e *badinput.RowError
			if !errors.As(err, &e) {
				e = rowErr(badinput.NoRow, 0, "", "cannot read the definition", "", err)
			}
			e.File, e.Row, e.Line = file, int64(i), lineAt(data, d.offset)
			return nil, e
		}
		tools = append(tools, t)
	}
	s, dup := newSet(tools)
	if dup >= 0 {
		first := slices.IndexFunc(tools, func(t *Tool) bool { return t.Name == tools[dup].Name })
		e := rowErr(int64(dup), lineAt(data, defs[dup].offset), "name",
			fmt.Sprintf("tool %q is defined twice (also definition %d)", tools[dup].Name, first), "give each tool one definition", nil)
		e.File = file
		return nil, e
	}
	return s, nil
}

// rawDef is one definition's JSON and where it starts in the input.
type rawDef struct {
	raw    json.RawMessage
	offset int64
}

// split cuts the input into definitions.
func split(data []byte) ([]rawDef, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	skipped := int64(len(data) - len(trimmed))
	if len(bytes.TrimSpace(trimmed)) == 0 {
		return nil, rowErr(badinput.NoRow, 0, "", "no tool definitions (the input is empty)", "give a JSON array of definitions, [] for none", nil)
	}
	if trimmed[0] == '[' {
		return splitArray(data, skipped)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	var defs []rawDef
	for {
		start := skipped + dec.InputOffset()
		start += skipStart(data[start:])
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, syntaxErr(err, data, skipped, int64(len(defs)))
		}
		if raw[0] != '{' {
			return nil, rowErr(int64(len(defs)), lineAt(data, start), "",
				"expected a definition object, got "+kindOfRaw(raw), "put one definition object per line", nil)
		}
		defs = append(defs, rawDef{raw: raw, offset: start})
	}
	if len(defs) == 1 {
		if inner, ok := toolsWrapper(defs[0].raw); ok {
			wrapped, err := splitArray(inner, 0)
			// Offsets inside the wrapper are not the file's: report the wrapper's line.
			for i := range wrapped {
				wrapped[i].offset = defs[0].offset
			}
			var e *badinput.RowError
			if errors.As(err, &e) {
				e.Line = lineAt(data, defs[0].offset)
			}
			return wrapped, err
		}
	}
	return defs, nil
}

// splitArray reads the JSON array of definition objects that starts at
// data[base].
func splitArray(data []byte, base int64) ([]rawDef, error) {
	dec := json.NewDecoder(bytes.NewReader(data[base:]))
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(err, data, base, badinput.NoRow)
	}
	var defs []rawDef
	for dec.More() {
		start := base + dec.InputOffset()
		start += skipStart(data[start:])
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxErr(err, data, base, int64(len(defs)))
		}
		if raw[0] != '{' {
			return nil, rowErr(int64(len(defs)), lineAt(data, start), "",
				"expected a definition object, got "+kindOfRaw(raw), `write {"name": ..., "parameters": {...}}`, nil)
		}
		defs = append(defs, rawDef{raw: raw, offset: start})
	}
	if _, err := dec.Token(); err != nil {
		return nil, syntaxErr(err, data, base, badinput.NoRow)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, rowErr(badinput.NoRow, 0, "", "data after the JSON array of definitions", "give exactly one array", nil)
	}
	return defs, nil
}

// syntaxErr reports a JSON decoding error at its line; index is the
// definition being read, or -1.
func syntaxErr(err error, data []byte, base int64, index int64) error {
	e := rowErr(index, 0, "", "not valid JSON",
		"give a JSON array of definitions, JSON Lines with one per line, or {\"tools\": [...]}", err)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		e.Line = lineAt(data, base+se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		e.Problem, e.Line = "the JSON ends too early", lineAt(data, int64(len(data)))
	}
	return e
}

// toolsWrapper returns the "tools" array of an object {"tools": [...]}
// that has no "name" (an MCP tools/list result).
func toolsWrapper(raw json.RawMessage) (json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	inner, hasTools := m["tools"]
	_, hasName := m["name"]
	inner = bytes.TrimSpace(inner)
	if !hasTools || hasName || len(inner) == 0 || inner[0] != '[' {
		return nil, false
	}
	return inner, true
}

// skipStart counts the separators (white space, commas) before a value.
func skipStart(b []byte) int64 {
	n := 0
	for n < len(b) && strings.IndexByte(" \t\r\n,", b[n]) >= 0 {
		n++
	}
	return int64(n)
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

func kindOfRaw(raw json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return "text that is not JSON"
	}
	return kindOf(v)
}

// parseDefinition reads one definition object.
func parseDefinition(raw json.RawMessage) (*Tool, error) {
	m, err := decodeObject(raw)
	if err != nil {
		return nil, err
	}
	t := &Tool{}
	if t.ReadOnly, err = readOnlyHint(m, ""); err != nil {
		return nil, err
	}
	at := ""
	if fn, ok := m["function"].(map[string]any); ok {
		if typ, _ := m["type"].(string); typ == "function" || m["type"] == nil {
			m, at = fn, "function."
		}
	}
	if at != "" {
		inner, err := readOnlyHint(m, at)
		if err != nil {
			return nil, err
		}
		t.ReadOnly = t.ReadOnly || inner
	}
	name, ok := m["name"].(string)
	if !ok || strings.TrimSpace(name) == "" {
		return nil, fieldErr(at+"name", "a definition needs a non-empty string name", `write "name": "get_weather"`)
	}
	t.Name = name
	if d, present := m["description"]; present && d != nil {
		desc, isStr := d.(string)
		if !isStr {
			return nil, fieldErr(at+"description", "description must be a string", "")
		}
		t.Description = desc
	}
	key, err := schemaKey(m, at)
	if err != nil {
		return nil, err
	}
	if key != "" && m[key] != nil {
		p, err := parseRoot(at+key, m[key])
		if err != nil {
			return nil, err
		}
		if len(p.Types) > 0 && !slices.Contains(p.Types, Object) {
			return nil, fieldErr(at+key+".type", fmt.Sprintf("the parameters schema must describe an object, not %s", p.declared()),
				`write "type": "object" (BFCL: "dict") with the parameters under "properties"`)
		}
		t.Parameters = p
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, err
	}
	t.JSON = compact.Bytes()
	return t, nil
}

// readOnlyHint reads MCP's tool annotation readOnlyHint ("the tool does
// not modify its environment") from a definition object m (at is its path,
// for errors). MCP tools carry it as {"annotations": {"readOnlyHint":
// true}} beside inputSchema. OpenAI's and Anthropic's definitions have no
// field of their own for it; tools converted from MCP carry the same
// annotations object beside name and parameters (Responses, Anthropic's
// input_schema), and in Chat Completions' form beside "function" or inside
// it. Parse reads it in every one of these places.
func readOnlyHint(m map[string]any, at string) (bool, error) {
	raw, ok := m["annotations"]
	if !ok || raw == nil {
		return false, nil
	}
	ann, isObj := raw.(map[string]any)
	if !isObj {
		return false, fieldErr(at+"annotations", "annotations must be an object (MCP's tool annotations)", `write e.g. "annotations": {"readOnlyHint": true}`)
	}
	hint, ok := ann["readOnlyHint"]
	if !ok || hint == nil {
		return false, nil
	}
	b, isBool := hint.(bool)
	if !isBool {
		return false, fieldErr(at+"annotations.readOnlyHint", fmt.Sprintf("readOnlyHint must be true or false, got %s", kindOf(hint)), `write "readOnlyHint": true for a tool that only reads`)
	}
	return b, nil
}

// schemaKey finds the key holding the parameter schema ("" when none) and
// refuses a definition without one that has keys it does not know.
func schemaKey(m map[string]any, at string) (string, error) {
	found := ""
	for _, k := range schemaKeys {
		if _, ok := m[k]; !ok {
			continue
		}
		if found != "" {
			return "", fieldErr(at+k, fmt.Sprintf("both %q and %q give a schema", found, k), "keep one")
		}
		found = k
	}
	if found != "" {
		return found, nil
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(otherKeys, k) {
			return "", fieldErr(at+k, fmt.Sprintf("unknown key %q and no parameter schema", k),
				`put the JSON Schema of the arguments under "parameters" (or MCP's "inputSchema"); a tool without parameters needs no schema`)
		}
	}
	return "", nil
}

func decodeObject(raw json.RawMessage) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// Set is the tool definitions offered together, looked up by name. The
// zero value is not usable; build one with Parse.
type Set struct {
	tools   []*Tool
	byName  map[string]*Tool
	byLoose map[string][]*Tool
}

// newSet indexes tools; dup is the index of the first definition whose
// name repeats an earlier one, or -1.
func newSet(tools []*Tool) (*Set, int) {
	s := &Set{tools: tools, byName: map[string]*Tool{}, byLoose: map[string][]*Tool{}}
	for i, t := range tools {
		if _, seen := s.byName[t.Name]; seen {
			return nil, i
		}
		s.byName[t.Name] = t
		s.byLoose[looseName(t.Name)] = append(s.byLoose[looseName(t.Name)], t)
	}
	return s, -1
}

// looseName treats "." and "_" alike.
func looseName(name string) string { return strings.ReplaceAll(name, ".", "_") }

// Tools returns the definitions in input order.
func (s *Set) Tools() []*Tool { return s.tools }

// Len is the number of definitions.
func (s *Set) Len() int { return len(s.tools) }

// Lookup returns the definition named name: by the name as given, else
// with "." and "_" treated alike when exactly one definition matches that
// way; nil when none does.
func (s *Set) Lookup(name string) *Tool {
	if s == nil {
		return nil
	}
	if t, ok := s.byName[name]; ok {
		return t
	}
	if ts := s.byLoose[looseName(name)]; len(ts) == 1 {
		return ts[0]
	}
	return nil
}

// Resolve returns the definition of the first of names that Lookup finds;
// nil when none does. A call's names, in order, come from
// metrics.Call.DefinitionNames (the naming rule's owner): a plain
// function's name, or "tool.action" then the action alone.
func (s *Set) Resolve(names ...string) *Tool {
	for _, n := range names {
		if t := s.Lookup(n); t != nil {
			return t
		}
	}
	return nil
}

// JSON returns the definitions as a compact JSON array, each as given.
func (s *Set) JSON() []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, t := range s.tools {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t.JSON)
	}
	b.WriteByte(']')
	return b.Bytes()
}
