package tooldef

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
)

// FuzzParse: Parse never panics; every error is a *badinput.RowError of
// Kind ErrInvalid; a parsed Set has unique non-empty names, finds each by its
// name, re-parses from its own JSON to the same tools, and validates any
// arguments without panicking, the same way twice.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"openai.json", "mcp.json", "bfcl.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, []byte(`{"city": "Paris", "numbers": [1, 2.5], "created": {"from": "x"}}`))
	}
	f.Add([]byte(`[{"name": "a", "parameters": {"$defs": {"A": {"type": "object", "properties": {"next": {"$ref": "#/$defs/A"}}}}, "properties": {"x": {"$ref": "#/$defs/A"}}}}]`),
		[]byte(`{"x": {"next": {"next": {}}}}`))
	f.Add([]byte(`{"name": "a"}`+"\n"+`{"name": "a_b", "inputSchema": {"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "array", "items": false}]}}}}`), []byte(`{"v": [1]}`))
	f.Add([]byte(`[{"name": "a", "parameters": {"type": ["object", "null"], "allOf": [{"required": ["q"]}], "properties": {"q": {"const": 1, "default": 2}}}}]`), []byte(`{"q": 1.0}`))
	f.Fuzz(func(t *testing.T, data, args []byte) {
		s, err := Parse("fuzz", data)
		if err != nil {
			var e *badinput.RowError
			if !errors.Is(err, ErrInvalid) || !errors.Is(err, badinput.ErrInvalid) || !errors.As(err, &e) {
				t.Fatalf("error %T does not wrap ErrInvalid: %v", err, err)
			}
			if e.Error() == "" || strings.Contains(e.Error(), "%!") {
				t.Fatalf("bad message %q", e.Error())
			}
			return
		}
		seen := map[string]bool{}
		for _, tool := range s.Tools() {
			if strings.TrimSpace(tool.Name) == "" || seen[tool.Name] {
				t.Fatalf("bad or repeated name %q", tool.Name)
			}
			seen[tool.Name] = true
			if s.Lookup(tool.Name) != tool {
				t.Fatalf("Lookup(%q) does not find its tool", tool.Name)
			}
		}
		again, err := Parse("again", s.JSON())
		if err != nil {
			t.Fatalf("own JSON does not parse: %v\n%s", err, s.JSON())
		}
		if !reflect.DeepEqual(names(again), names(s)) {
			t.Fatalf("round trip: %v != %v", names(again), names(s))
		}
		var a map[string]any
		dec := json.NewDecoder(strings.NewReader(string(args)))
		dec.UseNumber()
		if dec.Decode(&a) != nil {
			a = map[string]any{}
		}
		for _, tool := range s.Tools() {
			first := tool.ValidateArgs(a)
			if second := tool.ValidateArgs(a); !reflect.DeepEqual(first, second) {
				t.Fatalf("validation not deterministic: %v vs %v", first, second)
			}
			for _, v := range first {
				if v.Rule == "" || v.Detail == "" {
					t.Fatalf("violation without rule or detail: %+v", v)
				}
			}
		}
	})
}

// TestHostileSchemas: schemas built to make checking exponential are
// refused at parse time or bounded at validation time, quickly.
func TestHostileSchemas(t *testing.T) {
	chain := func(n int) string {
		var b strings.Builder
		b.WriteString(`[{"name": "a", "parameters": {"type": "object", "$defs": {`)
		for i := range n {
			fmt.Fprintf(&b, `"D%d": {"anyOf": [{"$ref": "#/$defs/D%d"}, {"$ref": "#/$defs/D%d"}]},`, i, i+1, i+1)
		}
		fmt.Fprintf(&b, `"D%d": {"type": "string"}}, "properties": {"x": {"$ref": "#/$defs/D0"}}}}]`, n)
		return b.String()
	}
	if _, err := Parse("chain", []byte(chain(10))); err != nil {
		t.Fatalf("a 1024-way expansion is allowed: %v", err)
	}
	_, err := Parse("chain", []byte(chain(60)))
	if err == nil || !strings.Contains(err.Error(), "expands to more than 10000") {
		t.Fatalf("2^60 expansion: %v", err)
	}

	// Each level of the value meets 60 alternatives, each with 60 more...
	var b strings.Builder
	b.WriteString(`[{"name": "a", "parameters": {"type": "object", "$defs": {"N": {"anyOf": [`)
	for i := range 60 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"type": "object", "properties": {"x": {"$ref": "#/$defs/N"}}, "required": ["missing%d"]}`, i)
	}
	b.WriteString(`]}}, "properties": {"x": {"$ref": "#/$defs/N"}}}}]`)
	s, err := Parse("deep", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	args := map[string]any{}
	cur := args
	for range 8 {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	vs := s.Lookup("a").validateArgs(args, 20000) // ValidateArgs uses maxSteps
	if full := s.Lookup("a").ValidateArgs(map[string]any{"x": map[string]any{}}); len(full) != 1 {
		t.Errorf("a shallow value is checked in full: %v", full)
	}
	if len(vs) == 0 || !strings.Contains(vs[len(vs)-1].Detail, "too complex to check") {
		t.Fatalf("budget not applied: %v", vs)
	}
}

func TestTopLevelRef(t *testing.T) {
	s, err := Parse("r", []byte(`[{"name": "a", "inputSchema": {"$ref": "#/$defs/Args", "$defs": {"Args": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got := render3(s.Lookup("a").ValidateArgs(map[string]any{"z": "1"})); got != "q|required;z|unknown;" {
		t.Errorf("got %q", got)
	}
}
