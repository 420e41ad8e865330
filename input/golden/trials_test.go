package golden

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// trialNames lists dialogs as "id@trial/turns" ("id/turns" without a trial).
func trialNames(ds []Dialog) []string {
	var out []string
	for _, d := range ds {
		name := d.ID
		if d.Trial != nil {
			name += fmt.Sprintf("@%d", *d.Trial)
		}
		var turns []string
		for _, t := range d.Turns {
			turns = append(turns, fmt.Sprint(t.TurnNo))
		}
		out = append(out, name+"/"+strings.Join(turns, ","))
	}
	return out
}

func i64(n int64) *int64 { return &n }

// trialFile writes golden rows as they come (any order) to a Parquet file.
func trialFile(t *testing.T, rows []Row) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "golden.parquet")
	writeRows(t, path, rows, 1000)
	return path
}

func replyRow(id string, no int64, trial *int64) Row {
	return Row{DialogID: id, TurnNo: no, Turn: "Agent", GoldResponse: ptr("hi"), PredictResponse: ptr("hi"), Trial: trial}
}

// TestReadTrials: rows with a trial are grouped by (dialog_id, trial), in
// every input format, sorted or not, and written back the same.
func TestReadTrials(t *testing.T) {
	ctx := context.Background()
	sorted := trialFile(t, []Row{
		replyRow("a", 2, i64(1)), replyRow("a", 1, i64(1)), replyRow("a", 1, i64(0)), replyRow("a", 2, i64(0)),
		replyRow("b", 1, nil),
		replyRow("c", 1, i64(0)),
	})
	// c's trial 1 and a's rows of trial 2 come after other dialogs: the
	// on-disk grouping gathers each dialog_id's rows, then splits trials.
	unsorted := trialFile(t, []Row{
		replyRow("a", 1, i64(1)), replyRow("c", 1, i64(0)), replyRow("a", 1, i64(2)), replyRow("b", 1, nil),
		replyRow("c", 1, i64(1)), replyRow("a", 2, i64(1)),
	})
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "trials.jsonl")
	os.WriteFile(jsonl, []byte(`{"dialog_id": "a", "trial": 1, "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
{"dialog_id": "b", "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
{"dialog_id": "a", "trial": 0, "turns": [{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "hi"}}, {"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "hi"}}]}
`), 0o644)
	array := filepath.Join(dir, "task.json")
	os.WriteFile(array, []byte(`[{"turn_no": 1, "trial": 3, "turn": "Agent", "gold_turn": {"response": "hi"}},
 {"turn_no": 1, "trial": 4, "turn": "Agent", "gold_turn": {"response": "hi"}},
 {"turn_no": 2, "trial": 3, "turn": "Agent", "gold_turn": {"response": "hi"}}]
`), 0o644)
	for _, c := range []struct {
		name, path string
		want       []string
	}{
		{"parquet", sorted, []string{"a@1/1,2", "a@0/1,2", "b/1", "c@0/1"}},
		{"parquet unsorted", unsorted, []string{"a@1/1,2", "a@2/1", "c@0/1", "c@1/1", "b/1"}},
		{"jsonl", jsonl, []string{"a@1/1", "b/1", "a@0/1,2"}},
		{"json array of turns", array, []string{"task@3/1,2", "task@4/1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := readAll(t, c.path, ReadOptions{SpillDir: t.TempDir()})
			if d := cmp.Diff(c.want, trialNames(got)); d != "" {
				t.Errorf("dialogs (-want +got):\n%s", d)
			}
			// Written back and read again: the same dialogs and trials.
			out := filepath.Join(t.TempDir(), "back.parquet")
			if _, err := WriteDialogs(ctx, out, WriteOptions{}, func(yield func(Dialog, error) bool) {
				for _, d := range got {
					if !yield(d, nil) {
						return
					}
				}
			}); err != nil {
				t.Fatal(err)
			}
			// (Parquet groups a dialog_id's rows, so the JSON Lines case,
			// whose trials of "a" are apart, comes back grouped.)
			back, _ := readAll(t, out, ReadOptions{SpillDir: t.TempDir()})
			if d := cmp.Diff(c.want, trialNames(back), cmpopts.SortSlices(func(a, b string) bool { return a < b })); d != "" {
				t.Errorf("written back (-want +got):\n%s", d)
			}
		})
	}
}

// TestTrialRowErrors: a dialog_id whose rows mix trials and none, a
// negative trial, a turn_no twice within one trial.
func TestTrialRowErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		rows []Row
		row  int64
		col  string
		text string
	}{
		{"mixed", []Row{replyRow("a", 1, i64(1)), replyRow("a", 2, nil)}, 1, ColTrial, `dialog "a" has no trial here but has one at row 0`},
		{"mixed none first", []Row{replyRow("a", 1, nil), replyRow("a", 2, i64(0))}, 1, ColTrial, `dialog "a" has a trial here but not at row 0`},
		{"negative", []Row{replyRow("a", 1, i64(-2))}, 0, ColTrial, "trial -2 is negative"},
		{"turn twice in a trial", []Row{replyRow("a", 1, i64(0)), replyRow("a", 1, i64(1)), replyRow("a", 1, i64(0))}, 2, ColTurnNo, `duplicate turn_no 1 in dialog "a" trial 0 (also at row 0)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readErr(trialFile(t, c.rows))
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRow) || re.Row != c.row || re.Field != c.col || !strings.Contains(err.Error(), c.text) {
				t.Errorf("err = %v, want row %d field %s: %s", err, c.row, c.col, c.text)
			}
		})
	}
}
