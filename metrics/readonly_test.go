package metrics

import (
	"strings"
	"testing"
)

const airlineTools = `[
 {"name": "get_user_details", "inputSchema": {"type": "object", "properties": {"user_id": {"type": "string"}}}, "annotations": {"readOnlyHint": true}},
 {"name": "search_direct_flight", "inputSchema": {"type": "object", "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}}}},
 {"name": "book_reservation", "inputSchema": {"type": "object", "properties": {"user_id": {"type": "string"}, "flight": {"type": "string"}}}},
 {"name": "cancel_reservation", "inputSchema": {"type": "object", "properties": {"reservation_id": {"type": "string"}}}}
]`

// TestReadOnlyRows: read-only calls (by their definition's readOnlyHint or
// by name) are context on either side of a row: listed with their
// alignment, never missing or unexpected, never counted; a row whose
// sides are all read-only is one; state-changing calls are decided as
// always, so an extra write fails and an extra read does not.
func TestReadOnlyRows(t *testing.T) {
	tools := mustTools(t, airlineTools)
	user := call(t, "get_user_details", `{"user_id": "u1"}`)
	search := call(t, "search_direct_flight", `{"origin": "SFO", "destination": "JFK"}`)
	book := call(t, "book_reservation", `{"user_id": "u1", "flight": "HAT1"}`)
	cancel := call(t, "cancel_reservation", `{"reservation_id": "R1"}`)
	type side struct {
		gold, pred *Call
		noCall     bool
	}
	row := func(n int, s side) Turn {
		tr := Turn{DialogID: "d", TurnNo: n, Role: RoleTool, GoldNoCall: s.noCall, HasGold: s.gold != nil || s.noCall}
		if s.gold != nil {
			tr.Gold = *s.gold
		}
		if s.pred != nil {
			tr.HasPredict, tr.Predict = true, *s.pred
		}
		return tr
	}
	tests := []struct {
		name     string
		rows     []side
		pass     bool
		scored   int
		context  int
		reason   string // substring of the dialog's reason
		failures []Reason
	}{
		{"the reads and the write made", []side{{gold: &user, pred: &user}, {gold: &search, pred: &search}, {gold: &book, pred: &book}}, true, 1, 2, "all 1 turns passed", nil},
		{"a read skipped", []side{{gold: &user, pred: &user}, {gold: &search}, {gold: &book, pred: &book}}, true, 1, 2, "all 1 turns passed", nil},
		{"an extra read", []side{{gold: &user, pred: &user}, {pred: &search}, {gold: &book, pred: &book}}, true, 1, 2, "", nil},
		{"a read where a read was, of another tool", []side{{gold: &user, pred: &search}, {gold: &book, pred: &book}}, true, 1, 1, "", nil},
		{"an extra write", []side{{gold: &user, pred: &user}, {gold: &book, pred: &book}, {pred: &cancel}}, false, 2, 1, "unexpected_turn", []Reason{ReasonUnexpectedTurn}},
		{"the write left out", []side{{gold: &user, pred: &user}, {gold: &book}}, false, 1, 1, "missing_turn", []Reason{ReasonMissingTurn}},
		{"a read where the write was", []side{{gold: &book, pred: &search}}, false, 1, 0, "tool_mismatch", []Reason{ReasonToolMismatch}},
		{"only reads expected, none made", []side{{gold: &user}, {gold: &search}}, true, 0, 2, "no state-changing call expected or made; 2 read-only call(s)", nil},
		{"only reads expected, other reads made", []side{{gold: &user}, {pred: &search}}, true, 0, 2, "", nil},
		{"only reads expected, a write made", []side{{gold: &user, pred: &user}, {pred: &book}}, false, 1, 1, "unexpected_turn", []Reason{ReasonUnexpectedTurn}},
		{"no call expected, a read made", []side{{noCall: true, pred: &user}}, true, 0, 1, "", nil},
		{"no call expected, a write made", []side{{noCall: true, pred: &book}}, false, 1, 0, "unexpected_turn", []Reason{ReasonUnexpectedTurn}},
	}
	cfg := DefaultConfig()
	cfg.ReadOnlyTools = []string{"search_direct_flight"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Dialog{ID: "d", Tools: tools}
			for i, s := range tt.rows {
				d.Turns = append(d.Turns, row(i+1, s))
			}
			res, err := Evaluate(t.Context(), Lexical{}, cfg, []Dialog{d})
			if err != nil {
				t.Fatal(err)
			}
			r := res[0]
			var failures []Reason
			ctx := 0
			for _, v := range r.Turns {
				switch {
				case v.ReadOnly:
					ctx++
					if v.Kind != KindContext || !v.Pass || v.FailureReason != "" || v.Structure != OutcomeNA {
						t.Errorf("context verdict %+v", v)
					}
				case !v.Pass:
					failures = append(failures, v.FailureReason)
				}
			}
			if r.TestPass != tt.pass || r.TurnCount != tt.scored || r.ContextTurns != tt.context || ctx != tt.context ||
				!strings.Contains(r.Reason, tt.reason) || len(failures) != len(tt.failures) || (len(failures) > 0 && failures[0] != tt.failures[0]) {
				t.Errorf("pass %v, %d scored, %d context (%d listed), failures %v, reason %q; want %v, %d, %d, %v, %q",
					r.TestPass, r.TurnCount, r.ContextTurns, ctx, failures, r.Reason, tt.pass, tt.scored, tt.context, tt.failures, tt.reason)
			}
		})
	}
	// Without definitions or names, the same calls are all scored.
	res, err := Evaluate(t.Context(), Lexical{}, DefaultConfig(), []Dialog{{ID: "d", Turns: []Turn{row(1, side{gold: &user}), row(2, side{gold: &book, pred: &book})}}})
	if err != nil || res[0].TestPass || res[0].ContextTurns != 0 {
		t.Errorf("without read-only tools: %+v %v", res[0], err)
	}
	if _, err := New(Config{Thresholds: cfg.Thresholds, Cascade: CascadeEvidence, Composition: cfg.Composition, ReadOnlyTools: []string{" "}}); err == nil {
		t.Error("a blank read-only tool name was accepted")
	}
}

func TestReadOnlyCall(t *testing.T) {
	tools := mustTools(t, airlineTools)
	for _, tt := range []struct {
		c     Call
		names []string
		want  bool
	}{
		{FunctionCall("get_user_details", nil), nil, true},
		{FunctionCall("book_reservation", nil), nil, false},
		{FunctionCall("book_reservation", nil), []string{"book_reservation"}, true},
		{Call{ToolID: "db", Action: "lookup"}, []string{"db.lookup"}, true},
		{Call{ToolID: "db", Action: "lookup"}, []string{"db"}, true},
		{Call{ToolID: "db", Action: "lookup"}, []string{"lookup"}, false},
		{FunctionCall("get.user.details", nil), nil, true}, // the definition it finds ("." and "_" alike)
		{Call{}, []string{""}, false},
	} {
		if got := ReadOnlyCall(tools, tt.names, tt.c); got != tt.want {
			t.Errorf("ReadOnlyCall(%v, %v) = %v", tt.c, tt.names, got)
		}
	}
}
