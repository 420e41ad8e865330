package golden

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/tooldef"
)

func testTools(t *testing.T) *tooldef.Set {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := tooldef.Parse("tools.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func toolNames(s *tooldef.Set) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, tool := range s.Tools() {
		out = append(out, tool.Name)
	}
	return out
}

// TestReadTools: a dialog's own "tools" key, the --tools default for the
// others, a gold no_call, and predicted args that are not a JSON object
// kept as text; then the same dialogs written to Parquet and read back.
func TestReadTools(t *testing.T) {
	def := testTools(t)
	ds, _ := readAll(t, filepath.Join("testdata", "tools.jsonl"), ReadOptions{Tools: def})
	check := func(t *testing.T, ds []Dialog) {
		t.Helper()
		if len(ds) != 3 {
			t.Fatalf("%d dialogs", len(ds))
		}
		own, dflt, irr := ds[0], ds[1], ds[2]
		if got := toolNames(own.Tools); len(got) != 1 || got[0] != "uber.ride" {
			t.Errorf("own tools %v", got)
		}
		if p := own.Turns[1].Predict; p.Args != nil || p.UnparsedArgs != `{"loc": "Addison` || p.FunctionName() != "uber_ride" {
			t.Errorf("unparsed predicted args: %+v", p)
		}
		if got := toolNames(dflt.Tools); len(got) != 1 || got[0] != "get_weather" {
			t.Errorf("default tools %v", got)
		}
		if p := dflt.Turns[0].Predict; p.UnparsedArgs != "[1,2]" && p.UnparsedArgs != "[1, 2]" {
			t.Errorf("an array as args is kept as text: %+v", p)
		}
		if irr.Tools == nil || irr.Tools.Len() != 0 {
			t.Errorf("tools: [] is an empty set, not the default: %v", toolNames(irr.Tools))
		}
		if nc := irr.Turns[1]; !nc.GoldNoCall || !nc.HasGold || nc.HasPredict || nc.Role != metrics.RoleTool {
			t.Errorf("no_call turn: %+v", nc)
		}
	}
	check(t, ds)

	out := filepath.Join(t.TempDir(), "tools.parquet")
	w, err := Create(out, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, d := range ds {
		if err := w.WriteDialog(Dialog{Dialog: d.Dialog}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	back, _ := readAll(t, out, ReadOptions{})
	// Written out, the default set travels with each dialog that used it.
	check(t, back)
	if ds[0].Turns[1].Predict.UnparsedArgs != back[0].Turns[1].Predict.UnparsedArgs {
		t.Error("unparsed args not kept byte for byte")
	}

	// The scores come out as the metric says: irrelevance passes, the
	// unparseable call fails on its own check.
	res, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{back[0].Dialog, back[2].Dialog})
	if err != nil {
		t.Fatal(err)
	}
	if v := res[0].Turns[0]; v.FailureReason != metrics.ReasonUnparseableArguments || v.Structure != metrics.OutcomePass {
		t.Errorf("unparseable: %+v", v)
	}
	if !res[1].TestPass {
		t.Errorf("irrelevance without a call: %+v", res[1])
	}
}

// TestToolsPerRow: Parquet may give the tools text on every row of a
// dialog (the same text) or on its first row only.
func TestToolsPerRow(t *testing.T) {
	text := `[{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}]`
	other := `[{"name": "g"}]`
	mk := func(rows ...Row) string {
		path := filepath.Join(t.TempDir(), "g.parquet")
		writeRows(t, path, rows, 10)
		return path
	}
	call := func(turnNo int64, tools *string, args string) Row {
		return Row{DialogID: "d", TurnNo: turnNo, Turn: "Tool", GoldAction: sp("f"), GoldArgs: sp(args), Tools: tools}
	}
	ds, _ := readAll(t, mk(call(1, sp(text), `{"x": 1}`), call(2, sp(text), `{"x": 2}`)), ReadOptions{})
	if got := toolNames(ds[0].Tools); len(got) != 1 || got[0] != "f" {
		t.Errorf("every row: %v", got)
	}
	ds, _ = readAll(t, mk(call(1, sp(text), `{"x": 1}`), call(2, nil, `{"x": 2}`)), ReadOptions{})
	if ds[0].Tools == nil {
		t.Error("first row only")
	}
	noCall := Row{DialogID: "d", TurnNo: 3, Turn: "Tool", GoldNoCall: func() *bool { b := true; return &b }()}
	ds, _ = readAll(t, mk(call(1, nil, `{"x": 1}`), noCall), ReadOptions{})
	if !ds[0].Turns[1].GoldNoCall {
		t.Error("gold_no_call column")
	}

	bad := []struct {
		name  string
		path  string
		opts  ReadOptions
		row   int64
		field string
		want  string
	}{
		{"texts differ", mk(call(1, sp(text), `{"x": 1}`), call(2, sp(other), `{"x": 2}`)), ReadOptions{}, 1, ColTools,
			`dialog "d" offers other tool definitions here than at row 0`},
		{"bad definitions", mk(call(1, sp(`[{"name": "f", "parameters": {"type": "text"}}]`), `{"x": 1}`)), ReadOptions{}, 0, ColTools,
			`bad tool definitions: tools: row 0, line 1, field parameters.type: unknown type "text"`},
		{"no call with a call", mk(Row{DialogID: "d", TurnNo: 1, Turn: "Tool", GoldAction: sp("f"), GoldNoCall: func() *bool { b := true; return &b }()}),
			ReadOptions{}, 0, ColGoldNoCall, "gold_no_call is true but the gold side has a call or a response"},
		{"no call on a reply", mk(Row{DialogID: "d", TurnNo: 1, Turn: "Agent", GoldResponse: sp("hi"), GoldNoCall: func() *bool { b := true; return &b }()}),
			ReadOptions{}, 0, ColGoldNoCall, "gold_no_call is true on an Agent turn"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := readErrOpts(tt.path, tt.opts)
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRow) {
				t.Fatalf("got %v, want a row error", err)
			}
			if re.Row != tt.row || re.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got row %d field %q: %v\nwant row %d field %q saying %q", re.Row, re.Field, err, tt.row, tt.field, tt.want)
			}
		})
	}
}

// TestConflictsAreFindings: gold calls that break their definitions are
// read, not refused: every conflict of every turn is listed on its dialog
// with where the input holds it, the rule, the value and what was wanted.
func TestConflictsAreFindings(t *testing.T) {
	text := `[{"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}, "u": {"type": "string", "enum": ["a", "b"]}}, "required": ["x"]}}]`
	path := filepath.Join(t.TempDir(), "g.parquet")
	call := func(id string, turnNo int64, action, args string) Row {
		return Row{DialogID: id, TurnNo: turnNo, Turn: "Tool", GoldAction: sp(action), GoldArgs: sp(args), Tools: sp(text)}
	}
	writeRows(t, path, []Row{
		call("d1", 1, "f", `{"x": "one", "u": "c", "y": 1}`),
		call("d1", 2, "f", `{"x": 2}`),
		call("d2", 1, "g", `{}`),
		call("d2", 2, "f", `{"u": {"$any": ["a", "z"]}}`),
	}, 10)
	ds, _ := readAll(t, path, ReadOptions{})
	var got []string
	for _, d := range ds {
		for _, c := range d.Conflicts {
			got = append(got, fmt.Sprintf("%s %d row %d %s %s %v", c.DialogID, c.TurnNo, c.Row, c.At, c.Rule, c.Value))
		}
	}
	want := []string{
		"d1 1 row 0 gold_args.u enum c", "d1 1 row 0 gold_args.x type one", "d1 1 row 0 gold_args.y unknown 1",
		"d2 1 row 2 gold_action offered <nil>",
		"d2 2 row 3 gold_args.x required <nil>", "d2 2 row 3 gold_args.u enum z",
	}
	if !slices.Equal(got, want) {
		t.Errorf("conflicts\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	const msg = `g.parquet: row 0, field gold_args.x: dialog "d1" turn 1: the gold call f breaks its tool definition: expected integer, got a string "one" (rule type)`
	if e := ds[0].Conflicts[1].Error(); !strings.HasSuffix(e, msg) {
		t.Errorf("message %q, want it to end %q", e, msg)
	}

	// JSON: the line and the JSON path; a trial's conflicts carry it.
	jpath := filepath.Join(t.TempDir(), "g.jsonl")
	line := `{"dialog_id": "j", "trial": 2, "tools": [{"name": "a", "parameters": {"type": "object", "required": ["q"], "properties": {"q": {"type": "string"}}}}], "turns": [{"turn_no": 1, "gold_turn": {"action": "a", "args": {}}}]}`
	if err := os.WriteFile(jpath, []byte("\n"+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, _ = readAll(t, jpath, ReadOptions{})
	if c := ds[0].Conflicts; len(c) != 1 || c[0].Line != 2 || c[0].Row != badinput.NoRow || c[0].At != "turns[0].gold_turn.args.q" ||
		c[0].Trial == nil || *c[0].Trial != 2 || c[0].Rule != tooldef.RuleRequired {
		t.Errorf("JSON conflicts %+v", c)
	}

	// Default tools (--tools) apply to dialogs without their own.
	writeRows(t, path, []Row{{DialogID: "d", TurnNo: 1, Turn: "Tool", GoldAction: sp("f"), GoldArgs: sp(`{"x": 1}`)}}, 10)
	ds, _ = readAll(t, path, ReadOptions{Tools: testTools(t)})
	if c := ds[0].Conflicts; len(c) != 1 || c[0].Rule != metrics.RuleOffered {
		t.Errorf("default tools: %+v", c)
	}
}

func TestReadToolsJSONErrors(t *testing.T) {
	tests := []struct{ name, in, field, want string }{
		{"bad tools", `{"dialog_id": "d", "tools": [{"name": 1}], "turns": [{"turn_no": 1, "gold_turn": {"response": "x"}}]}`, "tools", "bad tool definitions"},
		{"no_call false", `{"dialog_id": "d", "turns": [{"turn_no": 1, "gold_turn": {"no_call": false}}]}`, "turns[0].gold_turn.no_call", "no_call must be true"},
		{"no_call predicted", `{"dialog_id": "d", "turns": [{"turn_no": 1, "gold_turn": {"action": "a"}, "predict_turn": {"no_call": true}}]}`, "turns[0].predict_turn.no_call", "in a gold_turn"},
		{"no_call beside a call", `{"dialog_id": "d", "turns": [{"turn_no": 1, "gold_turn": {"no_call": true, "action": "a"}}]}`, "turns[0].gold_turn.no_call", "gold_no_call is true but the gold side has a call or a response"},
		{"no_call on Agent", `{"dialog_id": "d", "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"no_call": true}}]}`, "turns[0].gold_turn.no_call", "gold_no_call is true on an Agent turn"},
		{"gold args text", `{"dialog_id": "d", "turns": [{"turn_no": 1, "gold_turn": {"action": "a", "args": "{"}}]}`, "turns[0].gold_turn.args", "bad args"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.jsonl")
			if err := os.WriteFile(path, []byte(tt.in+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			err := readErrOpts(path, ReadOptions{})
			var re *badinput.RowError
			if !errors.As(err, &re) || re.Line != 1 || re.Field != tt.field || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v (field %q), want line 1 field %q saying %q", err, fieldOf(re), tt.field, tt.want)
			}
		})
	}
}

func fieldOf(re *badinput.RowError) string {
	if re == nil {
		return ""
	}
	return re.Field
}

func readErrOpts(path string, opts ReadOptions) error {
	r, err := Open(context.Background(), path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(context.Background()); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
