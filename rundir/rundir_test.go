package rundir_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

func ptr[T any](v T) *T { return &v }

// fullTurn sets every field of a TurnRow, so a round trip loses nothing.
func fullTurn(dialog string, no int64) rundir.TurnRow {
	return rundir.TurnRow{
		DialogID: dialog, TurnNo: no, PredictTurnNo: no, Role: "Tool", Kind: "action",
		Pass: false, FailureReason: ptr("inconsistent_values"), FailedChecks: []string{"values"},
		MissingKeys: []string{"unit"}, ExtraKeys: []string{"x"},
		FieldScores: []rundir.FieldScoreRow{{Field: "crm.find.city", Method: "semantic", Score: 0.4, Threshold: 0.75, ThresholdFrom: "fields.crm.find.city", By: ptr("lexical"), Pass: false}},
		Structure:   "pass", Completeness: "fail", Truthfulness: "fail",
		ChainLength: 2, ChainBucket: ptr("two_step"), RootCause: true, CascadeFrom: ptr(int64(1)), OwnReason: ptr("inconsistent_values"),
		GoldToolID: ptr("crm"), GoldAction: ptr("find"), GoldArgs: ptr(`{"city":"Paris"}`),
		PredictToolID: ptr("crm"), PredictAction: ptr("find"), PredictArgs: ptr(`{"city":"Lyon"}`),
		GoldResponse: ptr("gold"), PredictResponse: ptr("pred"), Tags: []string{"sales"},
		HumanLabel: ptr(true), HumanScore: ptr(0.5), Weight: ptr(2.0), Critical: true, LatencyMS: ptr(12.5),
		Threshold: ptr(0.75), Scorer: "lexical",
	}
}

func fullDialog(id string, turns int64) rundir.DialogRow {
	return rundir.DialogRow{DialogID: id, TurnCount: turns, PassedCount: 0, SuccessRate: 0, TestPass: false,
		FirstFailureTurn: ptr(int64(1)), RootCause: ptr("inconsistent_values"), RootCauseCount: 1, CascadingCount: 1,
		StructureRate: 1, CompletenessRate: 0, TruthfulnessRate: 0, Score: 0.25, Reason: "turn 1 failed", Label: "fail", LatencyMS: ptr(25.0)}
}

// writeRun writes a complete run of three dialogs into dir.
func writeRun(t *testing.T, dir string) ([]rundir.TurnRow, []rundir.DialogRow) {
	t.Helper()
	turns := []rundir.TurnRow{fullTurn("a", 1), fullTurn("a", 2), fullTurn("b", 1), fullTurn("c", 1), fullTurn("c", 2)}
	dialogs := []rundir.DialogRow{fullDialog("a", 2), fullDialog("b", 1), fullDialog("c", 2)}
	header := rundir.Summary{Input: "golden.parquet", Scorer: "lexical", Thresholds: metrics.Thresholds{Threshold: 0.5},
		Settings: map[string]string{"cascade": "on"}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.WriteRows(dir, header, turns, dialogs); err != nil {
		t.Fatal(err)
	}
	return turns, dialogs
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "run")
	turns, dialogs := writeRun(t, dir)
	r, err := rundir.Open(ctx, dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if diff := cmp.Diff(turns, collect(t, r.Turns(ctx))); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(dialogs, collect(t, r.Dialogs(ctx))); diff != "" {
		t.Errorf("dialogs (-want +got):\n%s", diff)
	}
	s := r.Summary
	if s.Version != rundir.SummaryVersion || s.Turns != 5 || s.Dialogs != 3 || s.Passed != 0 || s.Scorer != "lexical" ||
		s.Settings["cascade"] != "on" || s.FailureReasons["inconsistent_values"].RootCause != 5 || s.ByChainBucket["two_step"].Turns != 5 {
		t.Errorf("summary = %+v", s)
	}
	if s.LatencyCorrelation != nil {
		t.Errorf("latency correlation of a constant series: %+v", s.LatencyCorrelation)
	}
	// A projection reads a subset of columns; an extra column the run
	// lacks reads as its zero value.
	type view struct {
		DialogID    string  `parquet:"dialog_id"`
		Pass        bool    `parquet:"pass"`
		FieldLabels *string `parquet:"field_labels,optional"`
	}
	got := collect(t, rundir.ReadTurns[view](ctx, r))
	if len(got) != 5 || got[4].DialogID != "c" || got[4].FieldLabels != nil {
		t.Errorf("projection = %+v", got)
	}
}

// TestWriterBytesDependOnRowsOnly writes the same rows as TurnRow values
// and as raw rows, in one dialog and in many, and expects the same bytes.
func TestWriterBytesDependOnRowsOnly(t *testing.T) {
	var turns []rundir.TurnRow
	var dialogs []rundir.DialogRow
	for d := range 300 {
		id := string(rune('A'+d%26)) + strings.Repeat("x", d/26)
		for k := int64(1); k <= 3; k++ {
			turns = append(turns, fullTurn(id, k))
		}
		dialogs = append(dialogs, fullDialog(id, 3))
	}
	a, b := t.TempDir(), t.TempDir()
	if _, err := rundir.WriteRows(a, rundir.Summary{}, turns, dialogs); err != nil {
		t.Fatal(err)
	}
	// b: through a DialogReader, which hands the writer raw rows.
	ra, err := rundir.OpenDialogs(rundir.Files{Turns: filepath.Join(a, rundir.TurnsFile), Dialogs: filepath.Join(a, rundir.DialogsFile), Ordinals: ordinals(t, a, dialogs)})
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	w, err := rundir.Create(rundir.FilesIn(b), rundir.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		d, err := ra.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.CommitData(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{rundir.TurnsFile, rundir.DialogsFile} {
		x, _ := os.ReadFile(filepath.Join(a, f))
		y, _ := os.ReadFile(filepath.Join(b, f))
		if string(x) != string(y) || len(x) == 0 {
			t.Errorf("%s: %d bytes from TurnRow values, %d from raw rows, not identical", f, len(x), len(y))
		}
	}
}

// ordinals writes an ordinals file for dialogs of three turns each.
func ordinals(t *testing.T, dir string, dialogs []rundir.DialogRow) string {
	t.Helper()
	rows := make([]rundir.OrdinalRow, len(dialogs))
	for i, d := range dialogs {
		rows[i] = rundir.OrdinalRow{InputOrdinal: int64(i), DialogID: d.DialogID, Turns: 3, GoldSHA256: []byte{1}}
	}
	p := filepath.Join(dir, rundir.OrdinalsFile)
	if err := parquet.WriteFile(p, rows); err != nil {
		t.Fatal(err)
	}
	return p
}

// dirBlob serves fileblob buckets rooted at a directory for scheme "dirtest".
type dirBlob struct{ root string }

func (d dirBlob) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return fileblob.OpenBucket(filepath.Join(d.root, u.Host), &fileblob.Options{NoTempDir: true})
}

// TestCompleteness applies the one completeness rule to broken runs, read
// as a local directory and as a blob URL: both must refuse them with the
// same sentinel, naming the location as the user gave it.
func TestCompleteness(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mux := new(blob.URLMux)
	mux.RegisterBucket("dirtest", dirBlob{root})
	write := func(dir, name, data string) { os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644) }
	cases := []struct {
		name   string
		break_ func(dir string)
		want   error
		file   string // the file the error names ("" for the directory)
		field  string
		local  bool // only meaningful for a local directory
	}{
		{"complete", func(string) {}, nil, "", "", false},
		{"no summary", func(d string) { os.Remove(filepath.Join(d, rundir.SummaryFile)) }, rundir.ErrIncomplete, rundir.SummaryFile, "", false},
		{"unfinished", func(d string) {
			os.Remove(filepath.Join(d, rundir.SummaryFile))
			os.MkdirAll(filepath.Join(d, rundir.CheckpointDir), 0o755)
		}, rundir.ErrIncomplete, rundir.SummaryFile, "", true},
		{"no turns", func(d string) { os.Remove(filepath.Join(d, rundir.TurnsFile)) }, rundir.ErrIncomplete, rundir.TurnsFile, "", false},
		{"no dialogs", func(d string) { os.Remove(filepath.Join(d, rundir.DialogsFile)) }, rundir.ErrIncomplete, rundir.DialogsFile, "", false},
		{"summary not JSON", func(d string) { write(d, rundir.SummaryFile, "{") }, rundir.ErrCorrupt, rundir.SummaryFile, "", false},
		{"summary version", func(d string) { write(d, rundir.SummaryFile, `{"version": 99}`) }, rundir.ErrCorrupt, rundir.SummaryFile, "version", false},
		{"counts disagree", func(d string) { write(d, rundir.SummaryFile, `{"version": 1, "turns": 4, "dialogs": 3}`) }, rundir.ErrCorrupt, rundir.TurnsFile, "", false},
		{"garbage turns", func(d string) { write(d, rundir.TurnsFile, "PAR1 not really") }, rundir.ErrCorrupt, rundir.TurnsFile, "", false},
		{"turns is a dialogs file", func(d string) {
			b, _ := os.ReadFile(filepath.Join(d, rundir.DialogsFile))
			write(d, rundir.TurnsFile, string(b))
		}, rundir.ErrCorrupt, rundir.TurnsFile, "", false},
		{"bad shard", func(d string) {
			write(d, rundir.SummaryFile, `{"version": 1, "turns": 5, "dialogs": 3, "settings": {"shard": "7/2"}}`)
		}, rundir.ErrCorrupt, rundir.SummaryFile, "settings.shard", false},
		{"shard without ordinals", func(d string) {
			write(d, rundir.SummaryFile, `{"version": 1, "turns": 5, "dialogs": 3, "settings": {"shard": "0/2"}}`)
		}, rundir.ErrIncomplete, rundir.OrdinalsFile, "", false},
		{"not a directory", func(d string) {
			os.RemoveAll(d)
			os.WriteFile(d, nil, 0o644)
		}, rundir.ErrNotRun, "", "", true},
		{"missing", func(d string) { os.RemoveAll(d) }, rundir.ErrNotRun, "", "", true},
	}
	for _, c := range cases {
		for _, remote := range []bool{false, true} {
			if remote && c.local {
				continue
			}
			name := c.name + map[bool]string{false: "/local", true: "/remote"}[remote]
			t.Run(name, func(t *testing.T) {
				key := strings.ReplaceAll(name, "/", "-")
				dir := filepath.Join(root, "b", key)
				writeRun(t, dir)
				c.break_(dir)
				loc := dir
				if remote {
					loc = "dirtest://b/" + key
				}
				r, err := rundir.Open(ctx, loc, rundir.OpenOptions{URLMux: mux, WorkDir: t.TempDir()})
				if c.want == nil {
					if err != nil {
						t.Fatalf("Open = %v", err)
					}
					r.Close()
					return
				}
				if err == nil {
					r.Close()
					t.Fatal("Open accepted a broken run")
				}
				var re *badinput.RowError
				if !errors.Is(err, c.want) || !errors.Is(err, badinput.ErrInvalid) || !errors.As(err, &re) {
					t.Fatalf("Open = %v, want a *badinput.RowError wrapping %v", err, c.want)
				}
				wantFile := loc
				if c.file != "" {
					wantFile = loc + "/" + c.file
					if !remote {
						wantFile = filepath.Join(loc, c.file)
					}
				}
				if re.File != wantFile || re.Field != c.field || re.Fix == "" {
					t.Errorf("error names %q field %q fix %q; want %q field %q and a fix (%v)", re.File, re.Field, re.Fix, wantFile, c.field, err)
				}
				if c.name == "unfinished" && !strings.Contains(err.Error(), "--resume") {
					t.Errorf("unfinished run: %v does not mention --resume", err)
				}
			})
		}
	}
}

func TestCorruptRowNamesRow(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeRun(t, dir)
	r, err := rundir.Open(ctx, dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = r.Corrupt(rundir.TurnsFile, 3, "kind", `kind "context" is neither action nor response`)
	var re *badinput.RowError
	if !errors.As(err, &re) || re.Row != 3 || re.Field != "kind" || re.File != filepath.Join(dir, rundir.TurnsFile) || !errors.Is(err, rundir.ErrCorrupt) {
		t.Errorf("Corrupt = %#v", err)
	}
}

func TestWriteRowsRefusesOrder(t *testing.T) {
	turns := []rundir.TurnRow{fullTurn("a", 1), fullTurn("b", 1), fullTurn("a", 2)}
	if _, err := rundir.WriteRows(t.TempDir(), rundir.Summary{}, turns, nil); err == nil {
		t.Error("WriteRows accepted a dialog whose turns are not consecutive")
	}
}

// TestTrialRows: (dialog_id, trial) is the key of a dialog; the writer
// gives every trial its task's figures, none to the other dialogs, and the
// summary the run's.
func TestTrialRows(t *testing.T) {
	ctx := context.Background()
	trial := func(tr rundir.TurnRow, n int64) rundir.TurnRow { tr.Trial = &n; return tr }
	pass := func(tr rundir.TurnRow) rundir.TurnRow { tr.Pass, tr.FailureReason = true, nil; return tr }
	turns := []rundir.TurnRow{
		trial(pass(fullTurn("a", 1)), 0), trial(fullTurn("a", 1), 1), trial(pass(fullTurn("a", 1)), 2),
		fullTurn("b", 1),
		trial(pass(fullTurn("c", 1)), 0), trial(pass(fullTurn("c", 1)), 1), trial(pass(fullTurn("c", 1)), 2),
	}
	var dialogs []rundir.DialogRow
	for _, tr := range turns {
		d := fullDialog(tr.DialogID, 1)
		d.Trial, d.TestPass = tr.Trial, tr.Pass
		dialogs = append(dialogs, d)
	}
	dir := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(dir, 0o755)
	sum, err := rundir.WriteRows(dir, rundir.Summary{Scorer: "lexical"}, turns, dialogs)
	if err != nil {
		t.Fatal(err)
	}
	if s := sum.Trials; s == nil || s.Tasks != 2 || s.K != 3 || s.Flaky != 1 || s.PassHat[2] != 0.5 || s.PassAt[0] != 5.0/6 {
		t.Errorf("summary trials = %+v", sum.Trials)
	}
	_, _, got, _ := readAll(t, dir)
	var lines []string
	for _, d := range got {
		lines = append(lines, fmt.Sprintf("%s %v %v %v %v %v %v", d.DialogID, str(d.Trial), str(d.TaskTrials), str(d.TaskPassed), d.TaskPassAtK, d.TaskPassHatK, str(d.TaskFlaky)))
	}
	want := []string{
		"a 0 3 2 [0.6666666666666667 1 1] [0.6666666666666666 0.3333333333333333 0] true",
		"a 1 3 2 [0.6666666666666667 1 1] [0.6666666666666666 0.3333333333333333 0] true",
		"a 2 3 2 [0.6666666666666667 1 1] [0.6666666666666666 0.3333333333333333 0] true",
		"b - - - [] [] -",
		"c 0 3 3 [1 1 1] [1 1 1] false",
		"c 1 3 3 [1 1 1] [1 1 1] false",
		"c 2 3 3 [1 1 1] [1 1 1] false",
	}
	if d := cmp.Diff(want, lines); d != "" {
		t.Errorf("dialogs (-want +got):\n%s", d)
	}
	r, err := rundir.Open(ctx, dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Summary.Trials == nil || r.Summary.Trials.Tasks != 2 {
		t.Errorf("summary.json trials = %+v", r.Summary.Trials)
	}

	// Refusals: a trial twice, and a turn of another trial than its dialog.
	dup := append(slices.Clone(dialogs[:2]), dialogs[1])
	if _, err := rundir.WriteRows(t.TempDir(), rundir.Summary{}, turns[:3], dup); err == nil || !strings.Contains(err.Error(), `dialog "a" trial 1 appears twice`) {
		t.Errorf("a trial twice: %v", err)
	}
	w, err := rundir.Create(rundir.FilesIn(t.TempDir()), rundir.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	err = w.Add(&rundir.Dialog{Row: dialogs[0], Turns: turns[1:2], Ordinal: rundir.OrdinalRow{DialogID: "a", Turns: 1}})
	if !errors.Is(err, rundir.ErrCorrupt) || !strings.Contains(err.Error(), `turn row of dialog "a" trial 1 found where trial 0 was expected`) {
		t.Errorf("a turn of another trial: %v", err)
	}
	if err := w.Add(&rundir.Dialog{Row: dialogs[0], Turns: turns[:1], Ordinal: rundir.OrdinalRow{DialogID: "a", Turns: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(&rundir.Dialog{Row: dialogs[0], Turns: turns[:1], Ordinal: rundir.OrdinalRow{DialogID: "a", Turns: 1}}); !errors.Is(err, rundir.ErrCorrupt) ||
		!strings.Contains(err.Error(), `dialog "a" trial 0 appears twice`) {
		t.Errorf("Add of a trial twice: %v", err)
	}
}

// str formats an optional value ("-" for nil).
func str[T any](p *T) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}
