package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics/trials"
	"github.com/aem-dev/aem/rundir"
	"github.com/google/go-cmp/cmp"
)

// writeGoldenTrials writes a golden dataset with a trial column: tasks
// tasks of n trials each (numbered from 0, as τ-bench does), whose turns
// differ between trials so that some tasks are flaky. Each task's trials
// are written one after the other, except that the last task's first
// trial comes last, so a task's trials need not be contiguous.
func writeGoldenTrials(t testing.TB, dir string, tasks, n int) string {
	t.Helper()
	var ds []golden.Dialog
	for k := range n {
		for _, d := range genDialogs(tasks, uint64(100+k)) {
			trial := int64(k)
			ds = append(ds, golden.Dialog{Dialog: d, Trial: &trial})
		}
	}
	// Task-major order: task i's trials 0..n-1.
	slices.SortStableFunc(ds, func(a, b golden.Dialog) int {
		if a.ID != b.ID {
			return cmpString(a.ID, b.ID)
		}
		return int(*a.Trial - *b.Trial)
	})
	last := ds[len(ds)-n]
	ds = append(slices.Delete(ds, len(ds)-n, len(ds)-n+1), last)
	path := filepath.Join(dir, "golden-trials.parquet")
	if _, err := golden.WriteDialogs(context.Background(), path, golden.WriteOptions{RowGroupRows: 500}, func(yield func(golden.Dialog, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	return path
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestTrialsFromGold scores a golden dataset with a trial column: each
// (dialog_id, trial) is a dialog, and dialogs.parquet and summary.json
// report each task's and the run's pass@k, pass^k and flaky tasks.
func TestTrialsFromGold(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := writeGoldenTrials(t, dir, 30, 3)
	out := filepath.Join(dir, "run")
	sum := mustRun(t, baseOptions(in, out))
	if sum.Dialogs != 90 || sum.Trials == nil {
		t.Fatalf("summary: %d dialogs, trials %+v; want 90 dialogs and trials", sum.Dialogs, sum.Trials)
	}
	rd, err := rundir.Open(ctx, out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()

	// Recompute each task's figures from test_pass, independently.
	type task struct{ trials, passed int }
	tasks := map[string]*task{}
	var order []string
	var outcomes []trials.Outcome
	var rows []rundir.DialogRow
	for dr, err := range rd.Dialogs(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if dr.Trial == nil {
			t.Fatalf("dialog %s has no trial", dr.DialogID)
		}
		tk := tasks[dr.DialogID]
		if tk == nil {
			tk = &task{}
			tasks[dr.DialogID] = tk
			order = append(order, dr.DialogID)
		}
		tk.trials++
		if dr.TestPass {
			tk.passed++
		}
		outcomes = append(outcomes, trials.Outcome{Task: dr.DialogID, Trial: int(*dr.Trial), Pass: dr.TestPass})
		rows = append(rows, dr)
	}
	flaky := 0
	for _, dr := range rows {
		tk := tasks[dr.DialogID]
		allPass := 0.0
		if tk.passed == tk.trials {
			allPass = 1
		}
		anyPass := 0.0
		if tk.passed > 0 {
			anyPass = 1
		}
		if dr.TaskTrials == nil || *dr.TaskTrials != 3 || *dr.TaskPassed != int64(tk.passed) || len(dr.TaskPassHatK) != 3 ||
			dr.TaskPassHatK[2] != allPass || dr.TaskPassAtK[2] != anyPass || *dr.TaskFlaky != (tk.passed > 0 && tk.passed < 3) ||
			dr.TaskPassHatK[0] != float64(tk.passed)/3 {
			t.Errorf("dialog %s trial %d: task figures %v %v %v %v %v, want %d of 3 passed", dr.DialogID, *dr.Trial,
				dr.TaskTrials, dr.TaskPassed, dr.TaskPassAtK, dr.TaskPassHatK, dr.TaskFlaky, tk.passed)
		}
	}
	for _, id := range order {
		if tk := tasks[id]; tk.passed > 0 && tk.passed < tk.trials {
			flaky++
		}
	}
	if flaky == 0 || flaky == len(order) {
		t.Fatalf("%d of %d tasks flaky: the fixture should have both", flaky, len(order))
	}
	want := trials.Summarize(trials.PerTask(outcomes))
	if d := cmp.Diff(&want, sum.Trials); d != "" || sum.Trials.Flaky != flaky || sum.Trials.K != 3 || sum.Trials.Tasks != 30 {
		t.Errorf("summary trials (-want +got):\n%s (flaky %d)", d, flaky)
	}
	// The last task's trial 0 comes last in the input, and in the outputs.
	if last := rows[len(rows)-1]; *last.Trial != 0 || last.DialogID != order[len(order)-1] {
		t.Errorf("last dialog is %s trial %d, want the last task's trial 0", last.DialogID, *last.Trial)
	}
	for tr, err := range rd.Turns(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.Trial == nil {
			t.Fatalf("turn %s/%d has no trial", tr.DialogID, tr.TurnNo)
		}
	}
}

// TestTrialsByteIdentical: a trials run gives the same bytes whatever the
// workers and chunks, after a cancel and --resume, and when its shards are
// merged (every trial of a task is in the same shard).
func TestTrialsByteIdentical(t *testing.T) {
	dir := t.TempDir()
	in := writeGoldenTrials(t, dir, 40, 3)
	ref := filepath.Join(dir, "ref")
	o := baseOptions(in, ref)
	o.Workers = 1
	if s := mustRun(t, o); s.Trials == nil {
		t.Fatal("no trials in the summary")
	}

	t.Run("workers", func(t *testing.T) {
		out := filepath.Join(dir, "w3")
		o := baseOptions(in, out)
		o.Workers, o.ChunkTurns, o.CheckpointTurns = 3, 1, 7
		mustRun(t, o)
		sameOutputs(t, ref, out)
	})

	t.Run("resume", func(t *testing.T) {
		out := filepath.Join(dir, "resumed")
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		o := baseOptions(in, out)
		o.Scorer = &fakeScorer{before: func(n int64) {
			if n == 6 {
				cancel()
			}
		}}
		if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled Run = %v", err)
		}
		o = baseOptions(in, out)
		o.Resume = true
		mustRun(t, o)
		sameOutputs(t, ref, out)
	})

	t.Run("shards", func(t *testing.T) {
		var shards []string
		for k := range 3 {
			out := filepath.Join(dir, fmt.Sprint("shard", k))
			o := baseOptions(in, out)
			o.Shard = rundir.Shard{Index: k, Count: 3}
			s := mustRun(t, o)
			// A shard holds whole tasks: each of its tasks has all 3 trials.
			if s.Trials == nil || s.Trials.K != 3 || s.Dialogs != 3*s.Trials.Tasks {
				t.Errorf("shard %d: %d dialogs, trials %+v", k, s.Dialogs, s.Trials)
			}
			shards = append(shards, out)
		}
		merged := filepath.Join(dir, "merged")
		if _, err := rundir.Merge(context.Background(), rundir.MergeOptions{RowGroupSize: 200}, merged, shards...); err != nil {
			t.Fatal(err)
		}
		sameOutputs(t, ref, merged)
	})
}
