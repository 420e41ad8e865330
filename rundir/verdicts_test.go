package rundir_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// TestRowsOfAndBack: a judged dialog becomes rows (RowsOf) and the rows
// give back what they keep of each verdict (TurnRow.Verdict) and of the
// dialog's result (DialogRow.Result).
func TestRowsOfAndBack(t *testing.T) {
	call := func(tool string, args map[string]any) metrics.Call {
		return metrics.Call{ToolID: tool, Action: "call", Args: args}
	}
	d := golden.Dialog{Dialog: metrics.Dialog{ID: "trip", Turns: []metrics.Turn{
		{DialogID: "trip", TurnNo: 1, Role: metrics.RoleTool, HasGold: true, HasPredict: true,
			Gold: call("search", map[string]any{"q": "rome", "n": 2}), Predict: call("search", map[string]any{"q": "rome"})},
		{DialogID: "trip", TurnNo: 2, Role: metrics.RoleTool, HasGold: true, HasPredict: true,
			Gold: call("book", map[string]any{}), Predict: call("cancel", map[string]any{})},
		{DialogID: "trip", TurnNo: 3, Role: metrics.RoleTool, HasGold: true, Gold: call("pay", map[string]any{})},
		{DialogID: "trip", TurnNo: 4, Role: metrics.RoleAgent, HasGold: true, HasPredict: true,
			GoldResponse: "Your trip to Rome is booked.", PredictResponse: "Your Rome trip is booked."},
	}}}
	res, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{d.Dialog})
	if err != nil {
		t.Fatal(err)
	}
	turns, gold, dialog, err := rundir.RowsOf(&d, &res[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != len(res[0].Turns) || len(gold) != len(turns) {
		t.Fatalf("%d rows, %d gold indexes for %d verdicts", len(turns), len(gold), len(res[0].Turns))
	}
	for i, v := range res[0].Turns {
		want := metrics.Verdict{DialogID: v.DialogID, TurnNo: v.TurnNo, PredictTurnNo: v.PredictTurnNo, Kind: v.Kind, Pass: v.Pass,
			FailureReason: v.FailureReason, OwnReason: v.OwnReason, CascadeFrom: v.CascadeFrom, MissingKeys: v.MissingKeys, ExtraKeys: v.ExtraKeys}
		for _, fs := range v.FieldScores {
			want.FieldScores = append(want.FieldScores, metrics.FieldScore{Field: fs.Field, Method: fs.Method, Kind: fs.Kind, Score: fs.Score, Threshold: fs.Threshold, Pass: fs.Pass})
		}
		if d := cmp.Diff(want, turns[i].Verdict(), cmp.Transformer("nilEmpty", func(s []string) []string {
			if len(s) == 0 {
				return nil
			}
			return s
		})); d != "" {
			t.Errorf("turn %d: TurnRow.Verdict() (-want +got):\n%s", v.TurnNo, d)
		}
		if d.Turns[gold[i]].TurnNo != v.TurnNo {
			t.Errorf("row %d judges turn %d, its gold index points at turn %d", i, v.TurnNo, d.Turns[gold[i]].TurnNo)
		}
	}
	if *turns[0].GoldArgs != `{"n":2,"q":"rome"}` || turns[2].PredictToolID != nil || *turns[3].PredictResponse != "Your Rome trip is booked." {
		t.Errorf("rows do not carry the turns' outputs: %+v", turns)
	}
	back := dialog.Result()
	r := res[0]
	if back.DialogID != r.DialogID || back.Score != r.Score || back.TestPass != r.TestPass || back.Reason != r.Reason || back.RootCause != r.RootCause {
		t.Errorf("DialogRow.Result() = %+v, want the result's %+v", back, r)
	}
}
