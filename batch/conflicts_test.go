package batch

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/tooldef"
)

const conflictTools = `[{"name": "book", "parameters": {"type": "object", "required": ["ticket_id"], "properties": {
  "ticket_id": {"type": "integer"}, "diet": {"type": "string", "enum": ["Gluten Free", "Vegan"]},
  "table": {"type": "array", "items": {"type": "integer"}}}}}]`

// conflictDialogs are n dialogs whose gold calls break their definition
// six ways each (a type, an enum value, an unknown parameter, a required
// one left out, a nested type, a tool not offered); the odd dialogs'
// predictions get the first call's value wrong.
func conflictDialogs(t testing.TB, n int) []metrics.Dialog {
	tools, err := tooldef.Parse("tools", []byte(conflictTools))
	if err != nil {
		t.Fatal(err)
	}
	args := func(s string) map[string]any {
		a, err := metrics.DecodeArgs([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	var ds []metrics.Dialog
	for i := range n {
		id := fmt.Sprintf("c%03d", i)
		calls := []metrics.Call{
			metrics.FunctionCall("book", args(fmt.Sprintf(`{"ticket_id": "ticket_%03d"}`, i))),
			metrics.FunctionCall("book", args(fmt.Sprintf(`{"ticket_id": %d, "diet": "GF", "seat": "12A"}`, i))),
			metrics.FunctionCall("book", args(`{"table": [[1, 2]]}`)),
			metrics.FunctionCall("cancel", args(`{}`)),
		}
		d := metrics.Dialog{ID: id, Tools: tools}
		for k, c := range calls {
			pred := c
			if k == 0 && i%2 == 1 {
				pred = metrics.FunctionCall("book", args(`{"ticket_id": "ticket_999"}`))
			}
			d.Turns = append(d.Turns, metrics.Turn{DialogID: id, TurnNo: k + 1, Role: metrics.RoleTool, HasGold: true, HasPredict: true, Gold: c, Predict: pred})
		}
		ds = append(ds, d)
	}
	return ds
}

// TestGoldConflictsReported: every conflict of every rule is reported in
// one run, which goes on with the gold winning for those fields; a
// resumed run and merged shards report the same as an uninterrupted run.
func TestGoldConflictsReported(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, conflictDialogs(t, 30))
	ref := filepath.Join(dir, "ref")
	sum := mustRun(t, baseOptions(in, ref))
	gc := sum.GoldConflicts
	if gc == nil {
		t.Fatal("no gold_conflicts in the summary")
	}
	wantRules := map[string]int{"type": 60, "enum": 30, "unknown": 30, "required": 30, "offered": 30}
	if gc.Count != 180 || gc.Dialogs != 30 || len(gc.List) != 180 || !maps.Equal(gc.ByRule, wantRules) {
		t.Errorf("count %d in %d dialogs, by rule %v, %d listed; want 180 in 30, %v", gc.Count, gc.Dialogs, gc.ByRule, len(gc.List), wantRules)
	}
	first := gc.List[0]
	if first.Row == nil || *first.Row != 0 || first.Field != "gold_args.ticket_id" || first.Rule != "type" ||
		string(first.Value) != `"ticket_000"` || first.Want != "integer" ||
		!strings.HasSuffix(first.Message, `row 0, field gold_args.ticket_id: dialog "c000" turn 1: the gold call book breaks its tool definition: expected integer, got a string "ticket_000" (rule type)`) {
		t.Errorf("first conflict %+v", first)
	}
	// The gold wins: the even dialogs, whose predictions are the gold
	// calls, pass; the odd ones fail only their wrong value.
	if sum.DialogPassRate != 0.5 || sum.Passed != 105 {
		t.Errorf("dialog pass rate %v, %d turns pass; want 0.5 and 105", sum.DialogPassRate, sum.Passed)
	}
	if rc := sum.FailureReasons[string(metrics.ReasonInconsistentValues)]; rc.Total != 15 || len(sum.FailureReasons) != 1 {
		t.Errorf("failures %v, want 15 inconsistent_parameter_values", sum.FailureReasons)
	}

	// Resumed after a cancel: the same files, the same conflicts.
	out := filepath.Join(dir, "resumed")
	ctx, cancel := context.WithCancel(context.Background())
	o := baseOptions(in, out)
	o.ChunkTurns, o.CheckpointTurns = 8, 8
	o.Workers = 1
	o.Progress = &cancelAfter{updates: 3, cancel: cancel}
	if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	cancel()
	if m, ok, err := loadManifest(filepath.Join(out, rundir.CheckpointDir)); err != nil || !ok || len(m.Parts) == 0 {
		t.Fatalf("no checkpoint to resume from: %v", err)
	}
	o.Progress, o.Resume = nil, true
	o.ChunkTurns, o.CheckpointTurns = baseOptions(in, out).ChunkTurns, baseOptions(in, out).CheckpointTurns
	mustRun(t, o)
	sameOutputs(t, ref, out)

	// Shards list their own dialogs' conflicts; merged, the single run's.
	var shards []string
	for k := range 3 {
		o := baseOptions(in, filepath.Join(dir, fmt.Sprint("shard", k)))
		o.Shard = rundir.Shard{Index: k, Count: 3}
		s := mustRun(t, o)
		if s.GoldConflicts == nil || s.GoldConflicts.Count != 6*s.Dialogs {
			t.Errorf("shard %d: %d dialogs, conflicts %+v", k, s.Dialogs, s.GoldConflicts)
		}
		shards = append(shards, o.OutDir)
	}
	merged := filepath.Join(dir, "merged")
	if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{RowGroupSize: 200}, merged, shards...); err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, ref, merged)
}

// TestStrictGold: with StrictGold the run refuses the dataset before
// scoring, listing every conflict, as bad input (exit status 3).
func TestStrictGold(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, conflictDialogs(t, 4))
	out := filepath.Join(dir, "out")
	o := baseOptions(in, out)
	o.StrictGold = true
	_, err := Run(context.Background(), o)
	var ge *GoldConflictsError
	if !errors.As(err, &ge) || !errors.Is(err, ErrGoldConflicts) || !errors.Is(err, badinput.ErrInvalid) {
		t.Fatalf("strict run: %v, want a GoldConflictsError", err)
	}
	if len(ge.Conflicts) != 24 || strings.Count(err.Error(), "\n") != 24 || !strings.Contains(err.Error(), "24 gold value(s) break their tool definitions") {
		t.Errorf("%d conflicts listed:\n%v", len(ge.Conflicts), err)
	}
	for _, rule := range []string{"type", "enum", "unknown", "required", "offered"} {
		if !strings.Contains(err.Error(), "(rule "+rule+")") {
			t.Errorf("rule %s not listed", rule)
		}
	}
	assertNotComplete(t, out)

	// A dataset whose gold fits runs the same with StrictGold.
	in = writeGolden(t, t.TempDir(), genDialogs(5, 1))
	o = baseOptions(in, filepath.Join(dir, "fits"))
	o.StrictGold = true
	if s := mustRun(t, o); s.GoldConflicts != nil {
		t.Errorf("conflicts %+v", s.GoldConflicts)
	}
}

// cancelAfter cancels a run at its n-th progress update (a committed
// chunk).
type cancelAfter struct {
	NoopProgress
	updates int
	cancel  context.CancelFunc
}

func (c *cancelAfter) Update(Stats) {
	if c.updates--; c.updates == 0 {
		c.cancel()
	}
}
