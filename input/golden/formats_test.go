package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/internal/badinput"
)

// anyRow is one input row with every value optional, so that a test can
// write any row, valid or not, in both formats (anyRow.parquet, and
// renderJSONL for the write-up's JSON Lines).
type anyRow struct {
	DialogID        *string  `parquet:"dialog_id,optional"`
	TurnNo          *int64   `parquet:"turn_no,optional"`
	Turn            *string  `parquet:"turn,optional"`
	GoldResponse    *string  `parquet:"gold_response,optional"`
	PredictResponse *string  `parquet:"predict_response,optional"`
	GoldToolID      *string  `parquet:"gold_tool_id,optional"`
	GoldAction      *string  `parquet:"gold_action,optional"`
	GoldArgs        *string  `parquet:"gold_args,optional"`
	PredictToolID   *string  `parquet:"predict_tool_id,optional"`
	PredictAction   *string  `parquet:"predict_action,optional"`
	PredictArgs     *string  `parquet:"predict_args,optional"`
	Tags            []string `parquet:"tags,list"`
	DependsOn       []int64  `parquet:"depends_on,optional,list"`
	HumanLabel      *bool    `parquet:"human_label,optional"`
	HumanScore      *float64 `parquet:"human_score,optional"`
	Weight          *float64 `parquet:"weight,optional"`
	Critical        *bool    `parquet:"critical,optional"`
	LatencyMS       *float64 `parquet:"latency_ms,optional"`
	GoldNoCall      *bool    `parquet:"gold_no_call,optional"`
	Trial           *int64   `parquet:"trial,optional"`
	Tools           *string  `parquet:"tools,optional"`
}

// renderJSONL writes rows, all of one dialog, as one JSON Lines dialog
// object: the dialog_id, trial and tools (JSON text) of its first row, each row a turn whose
// gold_turn and predict_turn hold the values the row gives (args as the
// text of a JSON value, which the JSON reader accepts), and gold_no_call
// true as {"no_call": true}.
func renderJSONL(rows []anyRow) []byte {
	dialog := map[string]any{}
	if id := rows[0].DialogID; id != nil {
		dialog["dialog_id"] = *id
	}
	if tr := rows[0].Trial; tr != nil {
		dialog["trial"] = *tr
	}
	if tools := rows[0].Tools; tools != nil {
		dialog["tools"] = json.RawMessage(*tools)
	}
	var turns []map[string]any
	for _, r := range rows {
		t := map[string]any{}
		set := func(key string, v any, ok bool) {
			if ok {
				t[key] = v
			}
		}
		set("turn_no", deref(r.TurnNo), r.TurnNo != nil)
		set("turn", deref(r.Turn), r.Turn != nil)
		set("gold_turn", renderSide(r.GoldResponse, r.GoldToolID, r.GoldAction, r.GoldArgs, r.GoldNoCall), true)
		set("predict_turn", renderSide(r.PredictResponse, r.PredictToolID, r.PredictAction, r.PredictArgs, nil), true)
		set("tags", r.Tags, len(r.Tags) > 0)
		set("depends_on", r.DependsOn, r.DependsOn != nil)
		set("human_label", deref(r.HumanLabel), r.HumanLabel != nil)
		set("human_score", deref(r.HumanScore), r.HumanScore != nil)
		set("weight", deref(r.Weight), r.Weight != nil)
		set("critical", deref(r.Critical), r.Critical != nil)
		set("latency_ms", deref(r.LatencyMS), r.LatencyMS != nil)
		turns = append(turns, t)
	}
	dialog["turns"] = turns
	data, err := json.Marshal(dialog)
	if err != nil {
		panic(err) // the test's own values: all representable
	}
	return append(data, '\n')
}

// renderSide is a gold_turn or predict_turn: nil (null) when no value is given.
func renderSide(response, toolID, action, args *string, noCall *bool) any {
	s := map[string]any{}
	for key, v := range map[string]*string{"response": response, "tool_id": toolID, "action": action, "args": args} {
		if v != nil {
			s[key] = *v
		}
	}
	if noCall != nil && *noCall {
		s["no_call"] = true
	}
	if len(s) == 0 {
		return nil
	}
	return s
}

func deref[T any](p *T) T {
	var z T
	if p != nil {
		z = *p
	}
	return z
}

// readBoth writes rows as Parquet and as JSON Lines into dir and reads
// both files to the end.
func readBoth(t *testing.T, dir string, rows []anyRow) (fromParquet, fromJSON []Dialog, parquetErr, jsonErr error) {
	return readBothWith(t, dir, rows, ReadOptions{})
}

// readBothWith is readBoth with opts.
func readBothWith(t *testing.T, dir string, rows []anyRow, opts ReadOptions) (fromParquet, fromJSON []Dialog, parquetErr, jsonErr error) {
	t.Helper()
	pq := filepath.Join(dir, "rows.parquet")
	writeRows(t, pq, rows, 10)
	js := filepath.Join(dir, "rows.jsonl")
	if err := os.WriteFile(js, renderJSONL(rows), 0o644); err != nil {
		t.Fatal(err)
	}
	fromParquet, parquetErr = readDialogs(pq, opts)
	fromJSON, jsonErr = readDialogs(js, opts)
	return fromParquet, fromJSON, parquetErr, jsonErr
}

// readDialogs reads every dialog of path, up to the first error.
func readDialogs(path string, opts ReadOptions) ([]Dialog, error) {
	r, err := Open(context.Background(), path, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Dialog
	for {
		d, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
}

// message is an error's message without its location (file, row, line,
// field): the problem, its cause and the fix. Another row named in the
// problem ("also at row 0", "also at turns[0]") is a location too.
type message struct {
	Invalid             bool // wraps badinput.ErrInvalid: exit status 3
	Kind                string
	Problem, Cause, Fix string
}

var otherRow = regexp.MustCompile(`row \d+|turns\[\d+\]`)

func messageOf(err error) (message, string) {
	var re *badinput.RowError
	if !errors.As(err, &re) {
		return message{Problem: err.Error()}, ""
	}
	m := message{Invalid: errors.Is(err, badinput.ErrInvalid), Problem: otherRow.ReplaceAllString(re.Problem, "ROW"), Fix: re.Fix}
	if re.Kind != nil {
		m.Kind = re.Kind.Error()
	}
	if re.Err != nil {
		m.Cause = re.Err.Error()
	}
	return m, re.Field
}

// fieldsAgree reports whether a Parquet column and a JSON path name the
// same value: gold_args and turns[1].gold_turn.args.
func fieldsAgree(parquetField, jsonPath string) bool {
	_, key, found := strings.Cut(jsonPath, "].")
	if !found {
		key = jsonPath
	}
	return jsonField(parquetField) == key
}

func ip(n int64) *int64 { return &n }

func fp(f float64) *float64 { return &f }

func bp(b bool) *bool { return &b }

// TestFormatsAgreeOnMalformedRows runs each malformed row through both
// readers: the same exit status and the same message (problem, cause,
// fix), located in each format's own terms. The first case is issue 27's
// drift: a Tool turn whose gold has both a response and a call was
// refused from JSON Lines and read from Parquet with the response
// silently dropped.
func TestFormatsAgreeOnMalformedRows(t *testing.T) {
	reply := func(no int64) anyRow {
		return anyRow{DialogID: sp("d"), TurnNo: ip(no), Turn: sp("Agent"), GoldResponse: sp("Your order ships Monday."), PredictResponse: sp("It ships Monday.")}
	}
	tool := func(no int64) anyRow {
		return anyRow{DialogID: sp("d"), TurnNo: ip(no), Turn: sp("Tool"), GoldToolID: sp("orders"), GoldAction: sp("get"), GoldArgs: sp(`{"id": 7}`),
			PredictToolID: sp("orders"), PredictAction: sp("get"), PredictArgs: sp(`{"id": 7}`)}
	}
	with := func(r anyRow, mut func(*anyRow)) anyRow { mut(&r); return r }
	tests := []struct {
		name string
		rows []anyRow
		want string // in the problem
	}{
		{"gold has both a response and a call", []anyRow{reply(1), with(tool(2), func(r *anyRow) { r.GoldResponse = sp("Here is your order.") })},
			"the gold side has both a response and a tool call"},
		{"tool turn with a gold reply", []anyRow{with(tool(1), func(r *anyRow) { r.GoldToolID, r.GoldAction, r.GoldArgs, r.GoldResponse = nil, nil, nil, sp("ok") })},
			"a Tool turn has a gold response"},
		{"reply turn with a gold call", []anyRow{with(tool(1), func(r *anyRow) { r.Turn = sp("Agent") })}, "an Agent turn has a gold tool call"},
		{"user turn with a gold call", []anyRow{with(tool(1), func(r *anyRow) { r.Turn = sp("user") })}, "a User turn has a gold tool call"},
		{"tool turn without calls", []anyRow{{DialogID: sp("d"), TurnNo: ip(1), Turn: sp("Tool")}}, "a Tool turn has neither a gold nor a predicted call"},
		{"tool turn with replies only", []anyRow{with(reply(1), func(r *anyRow) { r.Turn, r.GoldResponse = sp("Tool"), nil })},
			"a Tool turn has neither a gold nor a predicted call"},
		{"reply turn without replies", []anyRow{with(reply(1), func(r *anyRow) { r.GoldResponse, r.PredictResponse = nil, nil })},
			"an Agent turn has neither a gold nor a predicted response"},
		{"no role, no sides", []anyRow{{DialogID: sp("d"), TurnNo: ip(1)}}, "no role and no gold or predicted side"},
		{"unknown role", []anyRow{with(reply(1), func(r *anyRow) { r.Turn = sp("Assistant") })}, `unknown role "Assistant"`},
		{"turn_no missing", []anyRow{with(reply(1), func(r *anyRow) { r.TurnNo = nil })}, "turn_no is missing"},
		{"turn_no zero", []anyRow{reply(0)}, "turn_no 0 is out of range"},
		{"turn_no too large", []anyRow{reply(1 << 40)}, "is out of range"},
		{"duplicate turn_no", []anyRow{reply(1), reply(1)}, "duplicate turn_no 1"},
		{"bad gold args", []anyRow{with(tool(1), func(r *anyRow) { r.GoldArgs = sp(`{"id": 7,}`) })}, "bad args"},
		{"gold args not an object", []anyRow{with(tool(1), func(r *anyRow) { r.GoldArgs = sp(`[7]`) })}, "bad args"},
		{"bad alternatives", []anyRow{with(tool(1), func(r *anyRow) { r.GoldArgs = sp(`{"id": {"$any": 7}}`) })}, "bad alternatives spec"},
		{"no call on a reply", []anyRow{with(reply(1), func(r *anyRow) { r.GoldNoCall = bp(true) })}, "gold_no_call is true on an Agent turn"},
		{"no call beside a call", []anyRow{with(tool(1), func(r *anyRow) { r.GoldNoCall = bp(true) })}, "gold_no_call is true but the gold side has a call"},
		{"negative weight", []anyRow{with(reply(1), func(r *anyRow) { r.Weight = fp(-1) })}, "weight is -1"},
		{"negative latency", []anyRow{with(reply(1), func(r *anyRow) { r.LatencyMS = fp(-0.5) })}, "latency_ms is -0.5"},
		{"depends_on zero", []anyRow{with(reply(1), func(r *anyRow) { r.DependsOn = []int64{0} })}, "depends_on has 0, not a turn number"},
		{"depends_on a later turn", []anyRow{with(reply(1), func(r *anyRow) { r.DependsOn = []int64{2} }), reply(2)}, "depends on turn 2"},
		{"negative trial", []anyRow{with(reply(1), func(r *anyRow) { r.Trial = ip(-1) })}, "trial -1 is negative"},
		{"empty dialog_id", []anyRow{with(reply(1), func(r *anyRow) { r.DialogID = sp("") })}, "dialog_id is missing or empty"},
		{"no dialog_id", []anyRow{with(reply(1), func(r *anyRow) { r.DialogID = nil })}, "dialog_id is missing or empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, pErr, jErr := readBoth(t, t.TempDir(), tt.rows)
			if pErr == nil || jErr == nil {
				t.Fatalf("Parquet: %v\nJSON Lines: %v\nwant both to refuse the row", pErr, jErr)
			}
			pm, pField := messageOf(pErr)
			jm, jField := messageOf(jErr)
			if d := cmp.Diff(pm, jm); d != "" {
				t.Errorf("the formats say different things (-Parquet +JSON Lines):\n%s\nParquet:    %v\nJSON Lines: %v", d, pErr, jErr)
			}
			if !pm.Invalid || !strings.Contains(pm.Problem, tt.want) || pm.Fix == "" {
				t.Errorf("Parquet: %v\nwant an invalid-input error (exit 3) saying %q, with a fix", pErr, tt.want)
			}
			if pField != "" && jField != "" && !fieldsAgree(pField, jField) && pField != ColDialogID {
				t.Errorf("Parquet names %s, JSON Lines %s: not the same value", pField, jField)
			}
		})
	}
}

// TestFormatsAgreeOnOverLimitRows: a text value over --max-field-bytes is
// refused alike from both formats, with its decoded length (JSON escapes
// and multi-byte characters counted as the bytes they decode to), in
// every field validate limits; the JSON reader leaves these values out
// before decoding them (jsonFilter), which must not change what it says.
func TestFormatsAgreeOnOverLimitRows(t *testing.T) {
	const limit = 24
	// 25 bytes decoded; renderJSONL writes <, > and & as \u003c... (43 raw
	// bytes), é and € as they are.
	over := "<b>é & €</b> over it!!"
	at := strings.Repeat("a", limit)
	if len(over) != limit+1 {
		t.Fatalf("len(over) = %d", len(over))
	}
	reply := func(mut func(*anyRow)) []anyRow {
		r := anyRow{DialogID: sp("d"), TurnNo: ip(1), Turn: sp("Agent"), GoldResponse: sp("Your order ships Monday."), PredictResponse: sp("It ships Monday.")}
		mut(&r)
		return []anyRow{r}
	}
	tool := func(mut func(*anyRow)) []anyRow {
		r := anyRow{DialogID: sp("d"), TurnNo: ip(1), Turn: sp("Tool"), GoldToolID: sp("orders"), GoldAction: sp("get"), GoldArgs: sp(`{"id": 7}`),
			PredictToolID: sp("orders"), PredictAction: sp("get"), PredictArgs: sp(`{"id": 7}`)}
		mut(&r)
		return []anyRow{r}
	}
	n := len(over)
	tools := `[{"name":"orders","description":"Look up an order: é, €.","parameters":{"type":"object"}}]`
	tests := []struct {
		name string
		rows []anyRow
		col  string // the column refused; "" for none
		size int    // its length
	}{
		{"gold reply", reply(func(r *anyRow) { r.GoldResponse = sp(over) }), ColGoldResponse, n},
		{"predicted reply", reply(func(r *anyRow) { r.PredictResponse = sp(over) }), ColPredictResponse, n},
		{"predicted reply on a Tool turn", tool(func(r *anyRow) { r.PredictResponse = sp(over) }), ColPredictResponse, n},
		{"role", reply(func(r *anyRow) { r.Turn = sp(over) }), ColTurn, n},
		{"dialog_id", reply(func(r *anyRow) { r.DialogID = sp(over) }), ColDialogID, n},
		{"tag", reply(func(r *anyRow) { r.Tags = []string{"short", over} }), ColTags, n},
		{"gold tool", tool(func(r *anyRow) { r.GoldToolID = sp(over) }), ColGoldToolID, n},
		{"gold action", tool(func(r *anyRow) { r.GoldAction = sp(over) }), ColGoldAction, n},
		{"gold args", tool(func(r *anyRow) { r.GoldArgs = sp(`{"q": "` + over + `"}`) }), ColGoldArgs, n + 9},
		{"predicted tool", tool(func(r *anyRow) { r.PredictToolID = sp(over) }), ColPredictToolID, n},
		{"predicted action", tool(func(r *anyRow) { r.PredictAction = sp(over) }), ColPredictAction, n},
		{"predicted args the agent garbled", tool(func(r *anyRow) { r.PredictArgs = sp("not json " + over) }), ColPredictArgs, n + 9},
		// JSON text as written, compact: json.Marshal would escape the < of over.
		{"tool definitions", tool(func(r *anyRow) { r.Tools = sp(tools) }), ColTools, len(tools)},
		{"the first of two, in column order", tool(func(r *anyRow) { r.PredictArgs, r.GoldAction = sp(over), sp(over) }), ColGoldAction, n},
		{"size before any other rule", tool(func(r *anyRow) { r.Turn, r.PredictArgs = sp("Robot"), sp(over) }), ColPredictArgs, n},
		{"every value at the limit", reply(func(r *anyRow) { r.GoldResponse, r.PredictResponse, r.Tags = sp(at), sp(at), []string{at} }), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fromParquet, fromJSON, pErr, jErr := readBothWith(t, t.TempDir(), tt.rows, ReadOptions{MaxFieldBytes: limit})
			if tt.col == "" {
				if pErr != nil || jErr != nil {
					t.Fatalf("Parquet: %v\nJSON Lines: %v\nwant both to read the rows", pErr, jErr)
				}
				if d := cmp.Diff(dialogsOnly(fromParquet), dialogsOnly(fromJSON)); d != "" {
					t.Errorf("(-Parquet +JSON Lines):\n%s", d)
				}
				return
			}
			pm, pField := messageOf(pErr)
			jm, jField := messageOf(jErr)
			if d := cmp.Diff(pm, jm); d != "" {
				t.Errorf("the formats say different things (-Parquet +JSON Lines):\n%s\nParquet:    %v\nJSON Lines: %v", d, pErr, jErr)
			}
			if !pm.Invalid || pField != tt.col || !fieldsAgree(pField, jField) {
				t.Errorf("Parquet: %v\nJSON Lines: %v\nwant both to refuse %s", pErr, jErr, tt.col)
			}
			if want := fmt.Sprintf("%s is %d bytes, over the limit of %d bytes", tt.col, tt.size, limit); !strings.HasPrefix(pm.Problem, want) {
				t.Errorf("Parquet: %v\nwant %q", pErr, want)
			}
		})
	}
}

// TestFormatsAgreeOnAcceptedRows: rows both readers accept give equal
// dialogs, including the predicted side the role does not score (a reply
// beside a call is the agent's output: kept out of the verdict, never an
// error) and a role inferred from the sides.
func TestFormatsAgreeOnAcceptedRows(t *testing.T) {
	rows := []anyRow{
		{DialogID: sp("d"), TurnNo: ip(1), Turn: sp("Tool"), GoldToolID: sp("orders"), GoldAction: sp("get"), GoldArgs: sp(`{"id": 7}`),
			PredictToolID: sp("orders"), PredictAction: sp("get"), PredictArgs: sp(`{"id": 7}`), PredictResponse: sp("Let me look."),
			Tags: []string{"OrderInvariant_a"}, Weight: fp(2), Critical: bp(true), HumanLabel: bp(true), HumanScore: fp(-0.25)},
		{DialogID: sp("d"), TurnNo: ip(2), Turn: sp("Tool"), GoldToolID: sp("orders"), GoldAction: sp("cancel"), PredictResponse: sp("Cancelled.")},
		{DialogID: sp("d"), TurnNo: ip(3), GoldResponse: sp("Done."), PredictResponse: sp("Done!"), DependsOn: []int64{1, 2}, LatencyMS: fp(12.5)},
		{DialogID: sp("d"), TurnNo: ip(4), GoldNoCall: bp(true), PredictToolID: sp("ping"), PredictArgs: sp(`not json`), DependsOn: []int64{}},
	}
	fromParquet, fromJSON, pErr, jErr := readBoth(t, t.TempDir(), rows)
	if pErr != nil || jErr != nil {
		t.Fatalf("Parquet: %v\nJSON Lines: %v", pErr, jErr)
	}
	if d := cmp.Diff(dialogsOnly(fromParquet), dialogsOnly(fromJSON)); d != "" {
		t.Errorf("the formats decode the same rows differently (-Parquet +JSON Lines):\n%s", d)
	}
	turns := fromParquet[0].Turns
	if turns[1].HasPredict || turns[2].Role != "Agent" || turns[3].Role != "Tool" || !turns[3].GoldNoCall || turns[3].Predict.UnparsedArgs != "not json" {
		t.Errorf("turns = %+v", turns)
	}
}

// dialogsOnly is what a dialog means, whatever the format: the metric's
// dialog and its trial (not where its rows came from).
func dialogsOnly(ds []Dialog) []any {
	var out []any
	for _, d := range ds {
		out = append(out, []any{d.Dialog, d.Trial})
	}
	return out
}

// FuzzFormatsAgree writes one fuzzed dialog of two rows in both formats:
// what one reader accepts the other accepts, decoded to equal dialogs;
// what one refuses the other refuses with the same message.
func FuzzFormatsAgree(f *testing.F) {
	f.Add(uint32(0xffff), int64(1), "Tool", "", "orders", "get", `{"id": 7}`, "", "orders", "get", `{"id": 7}`, 1.5, true)
	f.Add(uint32(0x0f0f), int64(2), "Agent", "Hi there.", "", "", "", "Hello!", "", "", "", -1.0, false)
	f.Add(uint32(0x00ff), int64(0), "", "reply", "t", "", "[1]", "", "", "", "x", 0.0, true)
	f.Add(uint32(0x1234), int64(3), "user", "", "", "", `{"a": {"$any": 1}}`, "p", "t", "a", "", 2.0, false)
	f.Fuzz(func(t *testing.T, mask uint32, turnNo int64, role, goldResp, goldTool, goldAction, goldArgs, predResp, predTool, predAction, predArgs string, num float64, flag bool) {
		if math.IsNaN(num) || math.IsInf(num, 0) {
			return // JSON has no NaN or infinity
		}
		bit := func(i uint) bool { return mask&(1<<i) != 0 }
		str := func(i uint, s string) *string {
			if !bit(i) {
				return nil
			}
			s = strings.ToValidUTF8(s, "?") // what JSON can carry
			return &s
		}
		first := anyRow{DialogID: sp("d"), TurnNo: ip(turnNo), Turn: str(0, role),
			GoldResponse: str(1, goldResp), GoldToolID: str(2, goldTool), GoldAction: str(3, goldAction), GoldArgs: str(4, goldArgs),
			PredictResponse: str(5, predResp), PredictToolID: str(6, predTool), PredictAction: str(7, predAction), PredictArgs: str(8, predArgs)}
		if bit(9) {
			first.GoldNoCall = bp(flag)
		}
		if bit(10) {
			first.Weight = fp(num)
		}
		if bit(11) {
			first.HumanScore = fp(num)
		}
		if bit(12) {
			first.DependsOn = []int64{int64(num)}
		}
		if bit(13) {
			first.Trial = ip(int64(num))
		}
		if bit(14) {
			first.Critical, first.HumanLabel = bp(flag), bp(!flag)
		}
		if bit(15) {
			first.Tags = []string{strings.ToValidUTF8(role, "?")}
		}
		rows := []anyRow{first}
		if bit(16) { // a second, valid turn after it
			rows = append(rows, anyRow{DialogID: sp("d"), TurnNo: ip(turnNo + 1), Turn: sp("Agent"), GoldResponse: sp("ok"), Trial: first.Trial})
		}
		var opts ReadOptions
		if bit(17) { // a field limit of 1 to 32 bytes, which values may pass
			opts.MaxFieldBytes = 1 + int(mask>>18)%32
		}
		fromParquet, fromJSON, pErr, jErr := readBothWith(t, t.TempDir(), rows, opts)
		switch {
		case pErr == nil && jErr == nil:
			if d := cmp.Diff(dialogsOnly(fromParquet), dialogsOnly(fromJSON)); d != "" {
				t.Fatalf("rows %s\ndecode differently (-Parquet +JSON Lines):\n%s", renderJSONL(rows), d)
			}
		case pErr == nil || jErr == nil:
			t.Fatalf("rows %s\nParquet: %v\nJSON Lines: %v\none format accepts what the other refuses", renderJSONL(rows), pErr, jErr)
		default:
			pm, _ := messageOf(pErr)
			jm, _ := messageOf(jErr)
			if d := cmp.Diff(pm, jm); d != "" {
				t.Fatalf("rows %s\nthe formats say different things (-Parquet +JSON Lines):\n%s", bytes.TrimSpace(renderJSONL(rows)), d)
			}
		}
	})
}
