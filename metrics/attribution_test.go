package metrics

import (
	"fmt"
	"strings"
	"testing"
)

// salesTurn builds a Tool turn with one "metric"-like parameter.
func salesTurn(no int, tool, gold, pred, extra string) string {
	return fmt.Sprintf(`{"turn_no":%d,"turn":"Tool","gold_turn":{"tool_id":%q,"action":"run","args":{"p":%q}},"predict_turn":{"tool_id":%q,"action":"run","args":{"p":%q}}%s}`,
		no, tool, gold, tool, pred, extra)
}

func agentTurn(no int, gold, pred, extra string) string {
	return fmt.Sprintf(`{"turn_no":%d,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}%s}`, no, gold, pred, extra)
}

func userTurn(no int) string {
	return fmt.Sprintf(`{"turn_no":%d,"turn":"User","gold_turn":{"response":"please continue"}}`, no)
}

type attr struct {
	turn   int
	reason Reason
	root   bool
	from   int
}

func attrs(r DialogResult) string {
	var parts []string
	for _, v := range r.Turns {
		if !v.Pass {
			parts = append(parts, fmt.Sprint(attr{v.TurnNo, v.FailureReason, v.RootCause, v.CascadeFrom}))
		}
	}
	return strings.Join(parts, " ")
}

func TestCascades(t *testing.T) {
	tests := []struct {
		name   string
		policy CascadePolicy
		turns  []string
		want   []attr
	}{
		{"evidence: propagated wrong value", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "revenue by region", "profit by region", ""),
			salesTurn(3, "c", "revenue", "profit", "")},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonPriorActionFailed, false, 1}, {3, ReasonPriorActionFailed, false, 1}}},
		{"evidence: independent wrong value is a root cause", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "EMEA", "APAC", "")},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonInconsistentValues, true, 0}}},
		{"evidence: partly explained is a root cause", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""),
			`{"turn_no":2,"turn":"Tool","gold_turn":{"tool_id":"b","action":"run","args":{"m":"revenue","r":"EMEA"}},"predict_turn":{"tool_id":"b","action":"run","args":{"m":"profit","r":"APAC"}}}`},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonInconsistentValues, true, 0}}},
		{"evidence: reply restating the wrong value", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), userTurn(2),
			agentTurn(3, "Q3 revenue grew 12 percent.", "Q3 profit grew 12 percent across all markets this year.", `,"tags":[]`)},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {3, ReasonPriorActionFailed, false, 1}}},
		{"evidence: structure failure is never inferred", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""),
			`{"turn_no":2,"turn":"Tool","gold_turn":{"tool_id":"b","action":"run","args":{"p":"revenue"}},"predict_turn":{"tool_id":"x","action":"run","args":{"p":"profit"}}}`},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonToolMismatch, true, 0}}},
		{"evidence: cascade of a cascade keeps the root", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "revenue total", "profit margin", ""),
			salesTurn(3, "c", "margin", "profit margin", "")},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonPriorActionFailed, false, 1}, {3, ReasonPriorActionFailed, false, 1}}},
		{"depends_on: transitive, structure failure included", CascadeEvidence, []string{
			salesTurn(1, "a", "Northwind", "Contoso", ""), salesTurn(2, "b", "ok", "ok", `,"depends_on":[1]`),
			`{"turn_no":3,"turn":"Tool","depends_on":[2],"gold_turn":{"tool_id":"c","action":"run","args":{}},"predict_turn":{"tool_id":"x","action":"run","args":{}}}`},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {3, ReasonPriorActionFailed, false, 1}}},
		{"depends_on: unrelated value still cascades", CascadeEvidence, []string{
			salesTurn(1, "a", "Northwind", "Contoso", ""), salesTurn(2, "b", "ACC-1", "ACC-2", `,"depends_on":[1]`)},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonPriorActionFailed, false, 1}}},
		{"depends_on: empty list means independent", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "revenue", "profit", `,"depends_on":[]`)},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {2, ReasonInconsistentValues, true, 0}}},
		{"depends_on: on a passing turn is a root cause", CascadeEvidence, []string{
			salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "ok", "ok", ""), salesTurn(3, "c", "revenue", "profit", `,"depends_on":[2]`)},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {3, ReasonInconsistentValues, true, 0}}},
		{"chain: every later failure in the chain", CascadeChain, []string{
			salesTurn(1, "a", "ok", "ok", ""), salesTurn(2, "b", "revenue", "profit", ""), userTurn(3),
			salesTurn(4, "c", "EMEA", "APAC", ""),
			`{"turn_no":5,"turn":"Tool","gold_turn":{"tool_id":"d","action":"run","args":{}},"predict_turn":{"tool_id":"x","action":"run","args":{}}}`,
			agentTurn(6, "Revenue is up.", "Nothing to report today, sorry.", ""),
			salesTurn(7, "e", "EMEA", "APAC", ""), salesTurn(8, "f", "EMEA", "APAC", "")},
			[]attr{{2, ReasonInconsistentValues, true, 0}, {4, ReasonPriorActionFailed, false, 2}, {5, ReasonPriorActionFailed, false, 2},
				{6, ReasonIncompleteResponse, true, 0}, {7, ReasonInconsistentValues, true, 0}, {8, ReasonPriorActionFailed, false, 7}}},
		{"chain: ignores depends_on", CascadeChain, []string{
			salesTurn(1, "a", "revenue", "profit", ""), agentTurn(2, "Done.", "Done.", ""),
			salesTurn(3, "b", "revenue", "profit", `,"depends_on":[1]`)},
			[]attr{{1, ReasonInconsistentValues, true, 0}, {3, ReasonInconsistentValues, true, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := dialogJSON(t, `{"dialog_id":"c","turns":[`+strings.Join(tc.turns, ",")+`]}`)
			cfg := withThreshold(0.9) // lexical: "revenue by region" vs "profit by region" must fail
			cfg.Cascade = tc.policy
			r := evalAll(t, cfg, d)[0]
			var want []string
			for _, a := range tc.want {
				want = append(want, fmt.Sprint(a))
			}
			if got := attrs(r); got != strings.Join(want, " ") {
				t.Errorf("got  %s\nwant %s", got, strings.Join(want, " "))
			}
			for _, v := range r.Turns {
				if v.FailureReason == ReasonPriorActionFailed && (v.OwnReason == "" || v.OwnReason == ReasonPriorActionFailed ||
					v.FailedChecks[len(v.FailedChecks)-1] != ReasonPriorActionFailed) {
					t.Errorf("turn %d: cascade must keep its own reason: %s %v", v.TurnNo, v.OwnReason, v.FailedChecks)
				}
			}
		})
	}
}

func TestChains(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"ch","turns":[`+strings.Join([]string{
		salesTurn(1, "a", "x", "x", ""), userTurn(2), salesTurn(3, "b", "x", "x", ""), salesTurn(4, "c", "x", "x", ""),
		agentTurn(5, "ok", "ok", ""), salesTurn(6, "d", "x", "x", ""), agentTurn(7, "ok", "ok", ""),
		salesTurn(8, "e", "x", "x", ""), salesTurn(9, "f", "x", "x", ""),
	}, ",")+`]}`)
	r := evalAll(t, DefaultConfig(), d)[0]
	want := map[int]string{1: "3 three_plus", 3: "3 three_plus", 4: "3 three_plus", 5: "0 ", 6: "1 single", 7: "0 ", 8: "2 two_step", 9: "2 two_step"}
	for _, v := range r.Turns {
		if got := fmt.Sprintf("%d %s", v.ChainLength, v.ChainBucket); got != want[v.TurnNo] {
			t.Errorf("turn %d: chain %q, want %q", v.TurnNo, got, want[v.TurnNo])
		}
	}
}
