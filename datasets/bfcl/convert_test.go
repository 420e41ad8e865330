package bfcl

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func fixtures(t *testing.T) ([]Entry, map[string]Prediction) {
	t.Helper()
	qf, af := filepath.Join("testdata", "questions.jsonl"), filepath.Join("testdata", "answers.jsonl")
	entries := mustRead(t, qf, ReadQuestions)
	if err := Attach(entries, mustRead(t, af, ReadAnswers), qf, af); err != nil {
		t.Fatal(err)
	}
	return entries, mustRead(t, filepath.Join("testdata", "results.jsonl"), ReadResults)
}

// renderConverted writes a converted entry compactly: one line per turn,
// then the repairs and the gold calls' conflicts with their definitions.
func renderConverted(b *bytes.Buffer, c Converted) {
	fmt.Fprintf(b, "dialog %s (%d tools)\n", c.Dialog.ID, c.Dialog.Tools.Len())
	for _, t := range c.Dialog.Turns {
		fmt.Fprintf(b, "  %d %s tags=%v", t.TurnNo, t.Role, t.Tags)
		if t.Role == metrics.RoleUser {
			fmt.Fprintf(b, " %q\n", t.GoldResponse)
			continue
		}
		switch {
		case t.GoldNoCall:
			b.WriteString(" gold=no_call")
		case t.HasGold:
			fmt.Fprintf(b, " gold=%s%s", t.Gold.FunctionName(), mustJSON(t.Gold.Args))
		}
		switch {
		case t.HasPredict && t.Predict.UnparsedArgs != "":
			fmt.Fprintf(b, " predict=%s unparsed %q", t.Predict.FunctionName(), t.Predict.UnparsedArgs)
		case t.HasPredict:
			fmt.Fprintf(b, " predict=%s%s", t.Predict.FunctionName(), mustJSON(t.Predict.Args))
		}
		b.WriteString("\n")
	}
	for _, r := range c.Repairs {
		fmt.Fprintf(b, "  repair %s %s: %s\n", r.Kind, r.Field, r.Detail)
	}
	for _, t := range c.Dialog.Turns {
		if t.Role == metrics.RoleTool && t.HasGold && !t.GoldNoCall {
			for _, k := range metrics.GoldConflicts(c.Dialog.Tools, t.Gold) {
				fmt.Fprintf(b, "  conflict turn %d %s.%s (rule %s): %s\n", t.TurnNo, k.Tool, k.Field, k.Rule, k.Detail)
			}
		}
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// TestConvert converts the fixture entries, with the fixture results where
// an entry has one, and compares with testdata/convert.golden (go test
// -update rewrites it).
func TestConvert(t *testing.T) {
	entries, preds := fixtures(t)
	var b bytes.Buffer
	for _, e := range entries {
		var pred *Prediction
		if p, ok := preds[e.ID]; ok {
			pred = &p
		}
		c, err := Convert(e, pred)
		var skip *SkipError
		switch {
		case errors.As(err, &skip):
			if !errors.Is(err, ErrSkipped) {
				t.Errorf("%s: SkipError does not wrap ErrSkipped", e.ID)
			}
			fmt.Fprintf(&b, "skip %s: %s\n", skip.ID, skip.Reason)
		case err != nil:
			t.Fatalf("%s: %v", e.ID, err)
		default:
			renderConverted(&b, c)
			if err := metrics.ValidateGoldArgs(c.Dialog.Turns[len(e.Messages)].Gold.Args); err != nil {
				t.Errorf("%s: gold args are not valid specs: %v", e.ID, err)
			}
		}
	}
	golden := filepath.Join("testdata", "convert.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("converted entries differ from %s (-want +got; go test -update to accept):\n%s", golden, diff)
	}
}

func TestReadResults(t *testing.T) {
	_, preds := fixtures(t)
	if p := preds["live_simple_0-0-0"].Calls[0]; p.ArgsText != `{"location": "Boston, MA"}` || p.Args["location"] != "Boston, MA" {
		t.Errorf("arguments as JSON text: %+v", p)
	}
	if p := preds["live_simple_3-2-0"]; len(p.Calls) != 0 || p.Text != "I cannot do that." {
		t.Errorf("a text result: %+v", p)
	}
	if p := preds["live_simple_4-3-0"].Calls[0]; p.Args != nil || p.ArgsText != `{"smoking": false,` {
		t.Errorf("arguments that are not JSON keep their text: %+v", p)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in string
		read     func(string, *strings.Reader) error
		want     string
	}{
		{"question not json", "{\n", readQ, "questions.jsonl: row 0, line 1: not a BFCL question"},
		{"question no id", `{"question": [], "function": []}`, readQ, "row 0, line 1, field id: missing id"},
		{"question dup", "{\"id\": \"a_1\"}\n\n{\"id\": \"a_1\"}", readQ, "row 1, line 3, field id: entry a_1: id repeats line 1"},
		{"answer not json", `[1]`, readA, "line 1: not a BFCL possible answer"},
		{"answer no id", `{"ground_truth": []}`, readA, "missing id"},
		{"answer dup", "{\"id\": \"a\", \"ground_truth\": []}\n{\"id\": \"a\", \"ground_truth\": []}", readA, "row 1, line 2, field id: entry a: id repeats"},
		{"answer two names", `{"id": "a", "ground_truth": [{"f": {}, "g": {}}]}`, readA, "field ground_truth[0]: entry a: a call must have exactly one function name, got 2"},
		{"answer params", `{"id": "a", "ground_truth": [{"f": []}]}`, readA, `function "f": parameters must be an object`},
		{"answer values", `{"id": "a", "ground_truth": [{"f": {"p": "x"}}]}`, readA, `parameter "p": acceptable values must be a list`},
		{"result not json", `{"id": `, readR, "not a BFCL result"},
		{"result no id", `{"result": []}`, readR, "missing id"},
		{"result dup", "{\"id\": \"a\", \"result\": []}\n{\"id\": \"a\", \"result\": []}", readR, "id repeats"},
		{"result call shape", `{"id": "a", "result": [{"f": {}, "g": {}}]}`, readR, "call 0 must be an object with exactly one function name"},
		{"result args", `{"id": "a", "result": [{"f": 3}]}`, readR, "call 0 (f): arguments must be an object or JSON text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read("questions.jsonl", strings.NewReader(tt.in))
			if err == nil || !errors.Is(err, ErrInvalid) || !errors.Is(err, badinput.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an ErrInvalid saying %q", err, tt.want)
			}
		})
	}
}

func readQ(f string, r *strings.Reader) error { _, err := ReadQuestions(f, r); return err }
func readA(f string, r *strings.Reader) error { _, err := ReadAnswers(f, r); return err }
func readR(f string, r *strings.Reader) error { _, err := ReadResults(f, r); return err }

func TestAttachErrors(t *testing.T) {
	entries := []Entry{{ID: "live_simple_0-0-0", Category: "simple"}, {ID: "live_irrelevance_0-0-0", Category: "irrelevance"}}
	err := Attach(entries, map[string][]PossibleCall{}, "q.json", "a.json")
	if err == nil || !strings.Contains(err.Error(), "a.json: entry live_simple_0-0-0: no possible answer for this entry of q.json") {
		t.Errorf("missing answer: %v", err)
	}
	err = Attach(entries, map[string][]PossibleCall{"live_simple_0-0-0": {}, "live_simple_9-9-9": {}}, "q.json", "a.json")
	if err == nil || !strings.Contains(err.Error(), "entry live_simple_9-9-9: possible answer for an id that q.json does not have") {
		t.Errorf("orphan answer: %v", err)
	}
	if err := Attach(entries, map[string][]PossibleCall{"live_simple_0-0-0": {}}, "q.json", "a.json"); err != nil {
		t.Errorf("irrelevance entries need no answer: %v", err)
	}
}

func TestCategory(t *testing.T) {
	for id, want := range map[string]string{
		"live_simple_0-0-0":              "simple",
		"live_parallel_multiple_21-18-0": "parallel_multiple",
		"live_irrelevance_3-0-3":         "irrelevance",
		"simple_python_12":               "simple_python",
	} {
		if got := category(id); got != want {
			t.Errorf("category(%q) = %q, want %q", id, got, want)
		}
	}
}
