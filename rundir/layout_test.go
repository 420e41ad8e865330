package rundir_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/aem-dev/aem/rundir"
)

// v1 are run directories written before TurnRow and DialogRow gained the
// trial and task columns (see testdata/v1/README.md).
func v1(name string) string { return filepath.Join("testdata", "v1", name) }

// joinExtras are the extra columns of the v1 trials runs (the join's).
var joinExtras = []string{"task_id", "trial", "predict_seq", "predict_function", "predict_call_id", "predict_args_error",
	"source_file", "source_line", "source_trace_id", "source_span_id", "source_message_index"}

func readAll(t *testing.T, loc string) (*rundir.Summary, []rundir.TurnRow, []rundir.DialogRow, []string) {
	t.Helper()
	ctx := context.Background()
	r, err := rundir.Open(ctx, loc, rundir.OpenOptions{})
	if err != nil {
		t.Fatalf("Open(%s) = %v", loc, err)
	}
	defer r.Close()
	return r.Summary, collect[rundir.TurnRow](t, r.Turns(ctx)), collect[rundir.DialogRow](t, r.Dialogs(ctx)), r.ExtraColumns
}

// TestReadsOlderLayout: run directories written before the trial and task
// columns open, and those columns read as absent.
func TestReadsOlderLayout(t *testing.T) {
	for _, c := range []struct {
		name   string
		extras []string
	}{{"plain", nil}, {"plain-shard0", nil}, {"trials", joinExtras}, {"trials-shard1", joinExtras}} {
		t.Run(c.name, func(t *testing.T) {
			sum, turns, dialogs, extras := readAll(t, v1(c.name))
			if len(turns) != sum.Turns || len(dialogs) != sum.Dialogs || len(dialogs) == 0 {
				t.Fatalf("%d turns and %d dialogs, summary says %d and %d", len(turns), len(dialogs), sum.Turns, sum.Dialogs)
			}
			if !slices.Equal(extras, c.extras) {
				t.Errorf("extra columns %v, want %v", extras, c.extras)
			}
			// The metric's time was called "judge" then: it reads as metric.
			if _, old := sum.Timings["judge"]; old || sum.Timings[rundir.TimingMetric] <= 0 {
				t.Errorf("timings %v: want the old judge timing read as %s", sum.Timings, rundir.TimingMetric)
			}
			for _, d := range dialogs {
				if d.Trial != nil || d.TaskTrials != nil || d.TaskPassed != nil || len(d.TaskPassAtK) != 0 || len(d.TaskPassHatK) != 0 || d.TaskFlaky != nil {
					t.Errorf("dialog %s of an older run has trial or task figures: %+v", d.DialogID, d)
				}
			}
		})
	}
}

// TestMergeOlderLayout: shards written before the trial and task columns
// merge into the current layout, with the rows and totals of the unsharded
// run and the extra columns' values kept.
func TestMergeOlderLayout(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		single string
		shards []string
		extras []string
	}{
		{"plain", []string{"plain-shard1", "plain-shard0"}, nil},
		// The old "trial" extra column now clashes with TurnRow's and is
		// kept as input_trial.
		{"trials", []string{"trials-shard0", "trials-shard1"}, append([]string{"task_id", "input_trial"}, joinExtras[2:]...)},
	} {
		t.Run(c.single, func(t *testing.T) {
			var locs []string
			for _, s := range c.shards {
				locs = append(locs, v1(s))
			}
			out := filepath.Join(t.TempDir(), "merged")
			if _, err := rundir.Merge(ctx, rundir.MergeOptions{}, out, locs...); err != nil {
				t.Fatal(err)
			}
			wantSum, wantTurns, wantDialogs, _ := readAll(t, v1(c.single))
			gotSum, gotTurns, gotDialogs, gotExtras := readAll(t, out)
			if !slices.Equal(gotExtras, c.extras) {
				t.Errorf("extra columns %v, want %v", gotExtras, c.extras)
			}
			// TurnRow.Trial of the old single run reads its "trial" extra
			// column (by name); the merged run has moved it aside.
			for i := range wantTurns {
				wantTurns[i].Trial = nil
			}
			if d := cmp.Diff(wantTurns, gotTurns, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("turns (-single +merged):\n%s", d)
			}
			if d := cmp.Diff(wantDialogs, gotDialogs, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("dialogs (-single +merged):\n%s", d)
			}
			// The old binary gave its trials run trials figures through a
			// side channel the rows never held: they are gone.
			wantSum.Timings, gotSum.Timings, wantSum.Trials = nil, nil, nil
			if a, b := mustJSON(t, wantSum), mustJSON(t, gotSum); a != b {
				t.Errorf("summaries differ:\n%s\n%s", a, b)
			}
			if c.extras == nil {
				return
			}
			// The extra columns' values survive the upgrade.
			type view struct {
				DialogID   string  `parquet:"dialog_id"`
				TurnNo     int64   `parquet:"turn_no"`
				TaskID     *string `parquet:"task_id,optional"`
				PredictSeq *int64  `parquet:"predict_seq,optional"`
				SourceLine *int64  `parquet:"source_line,optional"`
			}
			read := func(loc string) []view {
				r, err := rundir.Open(ctx, loc, rundir.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				return collect[view](t, rundir.ReadTurns[view](ctx, r))
			}
			want, got := read(v1(c.single)), read(out)
			if d := cmp.Diff(want, got); d != "" || len(got) == 0 || got[0].TaskID == nil {
				t.Errorf("extra values (-single +merged):\n%s", d)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
