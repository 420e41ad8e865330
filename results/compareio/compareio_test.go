package compareio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/rundir"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func ptr[T any](v T) *T { return &v }

// fixtureTurn is turn t (1-5) of dialog d: turns 1-2 are a two-step
// action chain, 3 a reply, 4 a single action, 5 a reply.
func fixtureTurn(d, t int) rundir.TurnRow {
	r := rundir.TurnRow{
		DialogID: fmt.Sprintf("d%03d", d), TurnNo: int64(t), PredictTurnNo: int64(t), Pass: true,
		Completeness: "pass", Truthfulness: "pass", Threshold: ptr(0.5), Scorer: "lexical", Tags: []string{},
		FailedChecks: []string{}, MissingKeys: []string{}, ExtraKeys: []string{},
	}
	switch t {
	case 1, 2, 4:
		r.Role, r.Kind, r.Structure = "Tool", "action", "pass"
		r.GoldToolID, r.GoldAction = ptr("sales"), ptr(fmt.Sprintf("step%d", t))
		r.GoldArgs = ptr(`{"metric":"revenue"}`)
		r.PredictToolID, r.PredictAction, r.PredictArgs = r.GoldToolID, r.GoldAction, r.GoldArgs
		r.ChainLength, r.ChainBucket = 2, ptr("two_step")
		if t == 4 {
			r.ChainLength, r.ChainBucket = 1, ptr("single")
		}
		r.FieldScores = []rundir.FieldScoreRow{{Field: "sales.step.metric", Method: "exact", Score: 1, Pass: true}}
	default:
		r.Role, r.Kind, r.Structure = "Agent", "response", "n/a"
		r.GoldResponse = ptr("Revenue grew 5%.")
		r.PredictResponse = r.GoldResponse
	}
	return r
}

// failRow makes r fail with reason; from > 0 makes it a cascade.
func failRow(r rundir.TurnRow, reason metrics.Reason, from int64) rundir.TurnRow {
	r.Pass = false
	r.FailureReason = ptr(string(reason))
	r.OwnReason = ptr(string(reason))
	r.RootCause = from == 0
	if from > 0 {
		r.FailureReason = ptr(string(metrics.ReasonPriorActionFailed))
		r.CascadeFrom = ptr(from)
		r.OwnReason = ptr(string(metrics.ReasonInconsistentValues))
	}
	if reason == metrics.ReasonToolMismatch && from == 0 {
		r.Structure, r.Completeness, r.Truthfulness = "fail", "n/a", "n/a"
		r.PredictToolID = ptr("crm")
	} else {
		r.Truthfulness = "fail"
		if r.Kind == "action" {
			r.PredictArgs = ptr(`{"metric":"profit"}`)
			r.FieldScores = []rundir.FieldScoreRow{{Field: "sales.step.metric", Method: "semantic", Score: 0.31, Threshold: 0.5, ThresholdFrom: "fields.sales.step.metric"}}
		} else {
			r.PredictResponse = ptr("Profit grew 5%.")
		}
	}
	return r
}

type runSpec struct {
	dialogs  int
	scorer   string
	settings map[string]string
	mod      func(d int, r rundir.TurnRow) rundir.TurnRow
}

// writeRun writes a complete run directory and returns its path.
func writeRun(t *testing.T, dir string, spec runSpec) string {
	t.Helper()
	if spec.scorer == "" {
		spec.scorer = "lexical"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var turns []rundir.TurnRow
	var dialogs []rundir.DialogRow
	passed := 0
	for d := range spec.dialogs {
		dr := rundir.DialogRow{DialogID: fmt.Sprintf("d%03d", d), TurnCount: 5, TestPass: true, Label: "pass"}
		for tn := 1; tn <= 5; tn++ {
			r := fixtureTurn(d, tn)
			if spec.mod != nil {
				r = spec.mod(d, r)
			}
			r.Scorer = spec.scorer
			turns = append(turns, r)
			if r.Pass {
				dr.PassedCount++
				passed++
			} else if dr.TestPass {
				dr.TestPass, dr.Label = false, "fail"
				dr.FirstFailureTurn, dr.RootCause = ptr(r.TurnNo), r.FailureReason
			}
		}
		dr.SuccessRate = float64(dr.PassedCount) / 5
		dr.Score = dr.SuccessRate
		dialogs = append(dialogs, dr)
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), turns); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.DialogsFile), dialogs); err != nil {
		t.Fatal(err)
	}
	sum := rundir.Summary{
		Version: 1, Dataset: "sha256:gold", Input: "gold.parquet", Scorer: spec.scorer,
		Thresholds: metrics.Thresholds{Threshold: 0.5, Source: "default"},
		Dialogs:    len(dialogs), Turns: len(turns), Passed: passed,
		Settings: spec.settings,
	}
	data, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.SummaryFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func noisy(d int, r rundir.TurnRow) rundir.TurnRow {
	if d%5 == 0 && r.TurnNo == 4 {
		return failRow(r, metrics.ReasonInconsistentValues, 0)
	}
	return r
}

func regressed(d int, r rundir.TurnRow) rundir.TurnRow {
	r = noisy(d, r)
	if d%5 == 1 {
		switch {
		case r.TurnNo == 2:
			return failRow(r, metrics.ReasonToolMismatch, 0)
		case r.TurnNo > 2:
			return failRow(r, metrics.ReasonToolMismatch, 2)
		}
	}
	return r
}

func testOptions() compare.Options {
	o := compare.DefaultOptions()
	o.Bootstrap = 300
	o.Permutations = 300
	return o
}

func TestReadRunConverts(t *testing.T) {
	dir := writeRun(t, filepath.Join(t.TempDir(), "v2"), runSpec{dialogs: 10, mod: regressed})
	run, err := ReadRun(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Name != dir || len(run.Turns) != 50 || len(run.Dialogs) != 10 {
		t.Fatalf("run %s: %d turns %d dialogs", run.Name, len(run.Turns), len(run.Dialogs))
	}
	if run.Identity.Scorer != "lexical" || run.Identity.Dataset != "sha256:gold" || strings.Contains(run.Identity.Thresholds, "default") {
		t.Errorf("identity %+v (thresholds must drop the informative source)", run.Identity)
	}
	tm := run.Turns[6] // d001 turn 2: the tool mismatch
	if tm.DialogID != "d001" || tm.TurnNo != 2 || tm.Pass || tm.FailureReason != metrics.ReasonToolMismatch || !tm.RootCause ||
		tm.Tool != "sales.step2" || tm.Gold != `sales.step2 {"metric":"revenue"}` || tm.Predicted != `crm.step2 {"metric":"revenue"}` ||
		tm.Structure != metrics.OutcomeFail || tm.Kind != metrics.KindAction || tm.ChainBucket != "two_step" {
		t.Errorf("tool-mismatch turn %+v", tm)
	}
	cas := run.Turns[7]
	if cas.FailureReason != metrics.ReasonPriorActionFailed || cas.CascadeFrom != 2 || cas.RootCause || cas.Gold != "Revenue grew 5%." || cas.Kind != metrics.KindResponse {
		t.Errorf("cascade turn %+v", cas)
	}
	if d := run.Dialogs[1]; d.TestPass || d.FirstFailureTurn != 2 || d.RootCause != metrics.ReasonToolMismatch {
		t.Errorf("dialog %+v", d)
	}
}

func TestEndToEnd(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	base := writeRun(t, filepath.Join(root, "v1"), runSpec{dialogs: 100, mod: noisy})
	cand := writeRun(t, filepath.Join(root, "v2"), runSpec{dialogs: 100, mod: regressed})
	runs, err := ReadRuns(ctx, []string{base, cand})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.CompareRuns(ctx, runs, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "cmp")
	if err := WriteReport(ctx, out, rep); err != nil {
		t.Fatal(err)
	}
	// compare.json decodes back to the same gate decision.
	data, err := os.ReadFile(filepath.Join(out, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var back compare.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !back.Gate.Failed || back.Comparisons[0].Changes.RegressedRootCauses != 20 || back.Comparisons[0].Changes.RegressedCascades != 60 {
		t.Errorf("compare.json gate %+v changes %+v", back.Gate, back.Comparisons[0].Changes)
	}
	rows, err := parquet.ReadFile[PairRow](filepath.Join(out, ParquetFile))
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]int{}
	for _, r := range rows {
		changes[r.Change]++
	}
	if len(rows) != 500 || changes["regressed"] != 80 || changes["both_fail"] != 20 || changes["both_pass"] != 400 {
		t.Errorf("compare.parquet: %d rows, changes %v", len(rows), changes)
	}
	r := rows[6] // d001 turn 2
	if r.Change != "regressed" || *r.CandidateFailureReason != "tool_mismatch" || r.BaseFailureReason != nil || !r.CandidateRootCause ||
		r.Base != base || r.Candidate != cand || r.CandidateStructure != "fail" || r.Gold != `sales.step2 {"metric":"revenue"}` {
		t.Errorf("row %+v", r)
	}
	// Where a threshold is reported, so is the entry it came from, as in
	// turns.parquet: compare.parquet, compare.json and compare.md.
	for _, r := range rows {
		for _, f := range r.CandidateFieldScores {
			if f.Method == "semantic" && f.ThresholdFrom != "fields.sales.step.metric" {
				t.Fatalf("compare.parquet: %s turn %d field %+v lacks threshold_from", r.DialogID, r.TurnNo, f)
			}
		}
	}
	if !bytes.Contains(data, []byte(`"threshold_from": "fields.sales.step.metric"`)) {
		t.Error("compare.json lacks threshold_from")
	}
	md, err := os.ReadFile(filepath.Join(out, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Regression gate: FAILED", "semantic 0.31 < 0.50 (fields.sales.step.metric)", "80 turns regressed** (20 root causes, 60 cascades)",
		"1. `d001` turn 2 (action, `sales.step2`): **tool_mismatch**, root cause", "significant shift", "### Dialogs whose test_pass flipped (20)"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("compare.md lacks %q", want)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(html, []byte("<svg")); n != 3 || bytes.Contains(html, []byte("<?xml")) || !bytes.Contains(html, []byte("Correctness by action-chain bucket")) ||
		!bytes.Contains(html, []byte("Failed turns by failure reason")) {
		t.Errorf("compare.html has %d plots", n)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(out)
	if len(ents) != 4 {
		t.Errorf("output dir holds %d entries", len(ents))
	}
	// Deterministic: a second write gives the same bytes.
	rep2, err := compare.CompareRuns(ctx, runs, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(root, "cmp2")
	if err := WriteReport(ctx, out2, rep2); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{JSONFile, ParquetFile, MarkdownFile, HTMLFile} {
		a, _ := os.ReadFile(filepath.Join(out, f))
		b, _ := os.ReadFile(filepath.Join(out2, f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between identical runs", f)
		}
	}
}

// TestMarkdownGolden pins the report layout on a small three-run trend;
// refresh with go test ./results/compareio -run MarkdownGolden -args -update.
func TestMarkdownGolden(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	var runs []compare.Run
	for _, s := range []struct {
		name string
		mod  func(int, rundir.TurnRow) rundir.TurnRow
	}{{"v1", noisy}, {"v2", nil}, {"v3", regressed}} {
		dir := writeRun(t, filepath.Join(root, s.name), runSpec{dialogs: 30, mod: s.mod})
		r, err := ReadRun(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		r.Name = s.name // stable across temp dirs
		runs = append(runs, r)
	}
	rep, err := compare.CompareRuns(ctx, runs, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, rep); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "trend.md.golden")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("markdown differs from %s (rerun with -update and review the diff):\n%s", golden, buf.String())
	}
}

func TestBadRunDirs(t *testing.T) {
	ctx := context.Background()
	good := func(t *testing.T) string {
		return writeRun(t, filepath.Join(t.TempDir(), "run"), runSpec{dialogs: 4})
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, dir string) string
		want   error
		file   string
		row    int64
		column string
	}{
		{"not a directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "nope") }, rundir.ErrNotRun, "", -1, ""},
		{"a file, not a directory", func(t *testing.T, dir string) string { return filepath.Join(dir, rundir.TurnsFile) }, rundir.ErrNotRun, "", -1, ""},
		{"missing dialogs.parquet", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, rundir.DialogsFile))
			return dir
		}, rundir.ErrIncomplete, rundir.DialogsFile, -1, ""},
		{"missing summary.json", func(t *testing.T, dir string) string {
			os.Remove(filepath.Join(dir, rundir.SummaryFile))
			return dir
		}, rundir.ErrIncomplete, rundir.SummaryFile, -1, ""},
		{"garbage turns.parquet", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.TurnsFile), []byte("this is not parquet at all"), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, -1, ""},
		{"truncated turns.parquet", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, rundir.TurnsFile)
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, -1, ""},
		{"summary not JSON", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte("{\"version\": 1,"), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.SummaryFile, -1, ""},
		{"summary wrong type", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte(`{"version": 1, "scorer": "x", "turns": "many"}`), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.SummaryFile, -1, ""},
		{"summary of something else", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte(`{}`), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.SummaryFile, -1, "version"},
		{"summary without scorer", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte(`{"version": 1, "turns": 20, "dialogs": 4}`), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.SummaryFile, -1, "scorer"},
		{"summary counts disagree", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, rundir.SummaryFile), []byte(`{"version": 1, "scorer": "lexical", "turns": 7, "dialogs": 4}`), 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, -1, ""},
		{"bad kind", func(t *testing.T, dir string) string {
			rows, _ := parquet.ReadFile[rundir.TurnRow](filepath.Join(dir, rundir.TurnsFile))
			rows[7].Kind = "context"
			parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), rows)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, 7, "kind"},
		{"bad outcome", func(t *testing.T, dir string) string {
			rows, _ := parquet.ReadFile[rundir.TurnRow](filepath.Join(dir, rundir.TurnsFile))
			rows[3].Truthfulness = "maybe"
			parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), rows)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, 3, "truthfulness"},
		{"failed turn without reason", func(t *testing.T, dir string) string {
			rows, _ := parquet.ReadFile[rundir.TurnRow](filepath.Join(dir, rundir.TurnsFile))
			rows[2].Pass = false
			parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), rows)
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, 2, "failure_reason"},
		{"turns.parquet lacks a column", func(t *testing.T, dir string) string {
			type partial struct {
				DialogID string `parquet:"dialog_id"`
				TurnNo   int64  `parquet:"turn_no"`
			}
			parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), make([]partial, 20))
			return dir
		}, rundir.ErrCorrupt, rundir.TurnsFile, -1, ""},
		{"dialogs.parquet is a turns file", func(t *testing.T, dir string) string {
			data, _ := os.ReadFile(filepath.Join(dir, rundir.TurnsFile))
			os.WriteFile(filepath.Join(dir, rundir.DialogsFile), data, 0o644)
			return dir
		}, rundir.ErrCorrupt, rundir.DialogsFile, -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.break_(t, good(t))
			_, err := ReadRun(ctx, dir)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, badinput.ErrInvalid) {
				t.Fatalf("err %T is not a *badinput.RowError", err)
			}
			wantFile := filepath.Clean(dir)
			if tt.file != "" {
				wantFile = filepath.Join(dir, tt.file)
			}
			if re.File != wantFile || re.Row != tt.row || re.Field != tt.column {
				t.Errorf("RowError file %q row %d field %q, want %q %d %q (%v)", re.File, re.Row, re.Field, wantFile, tt.row, tt.column, err)
			}
			if tt.want == rundir.ErrCorrupt && tt.row < 0 && tt.column == "" && !errors.Is(err, rundir.ErrCorrupt) {
				t.Errorf("err %v does not match rundir.ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), filepath.Clean(dir)) {
				t.Errorf("message %q does not name the directory", err)
			}
		})
	}
}

// Extra columns carried through from the golden dataset are ignored.
func TestExtraColumns(t *testing.T) {
	type withExtra struct {
		rundir.TurnRow
		Locale string `parquet:"locale"`
	}
	dir := writeRun(t, filepath.Join(t.TempDir(), "run"), runSpec{dialogs: 3})
	rows, err := parquet.ReadFile[rundir.TurnRow](filepath.Join(dir, rundir.TurnsFile))
	if err != nil {
		t.Fatal(err)
	}
	var ext []withExtra
	for _, r := range rows {
		ext = append(ext, withExtra{r, "en"})
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), ext); err != nil {
		t.Fatal(err)
	}
	run, err := ReadRun(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Turns) != 15 || run.Turns[0].Tool != "sales.step1" {
		t.Errorf("turns %d, first %+v", len(run.Turns), run.Turns[0])
	}
}

func TestMismatchRefusedThenAllowed(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	base := writeRun(t, filepath.Join(root, "v1"), runSpec{dialogs: 10})
	cand := writeRun(t, filepath.Join(root, "v2"), runSpec{dialogs: 10, scorer: "embed:use-lite@sha256:abc"})
	runs, err := ReadRuns(ctx, []string{base, cand})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compare.CompareRuns(ctx, runs, testOptions()); !errors.Is(err, compare.ErrMismatch) || !strings.Contains(err.Error(), "--allow-mismatch") {
		t.Fatalf("err = %v", err)
	}
	o := testOptions()
	o.AllowMismatch = true
	rep, err := compare.CompareRuns(ctx, runs, o)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "runs compared despite differences (--allow-mismatch)") || !strings.Contains(md.String(), "embed:use-lite@sha256:abc") {
		t.Errorf("markdown does not record the mismatch:\n%s", md.String())
	}
}

func TestSettingsMismatch(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	set := func(cascade, mapping string) map[string]string {
		return map[string]string{"cascade": cascade, "composition.rule": "mean", "mapping": mapping}
	}
	base := writeRun(t, filepath.Join(root, "v1"), runSpec{dialogs: 5, settings: set("evidence", "a=b")})
	sameMetric := writeRun(t, filepath.Join(root, "v2"), runSpec{dialogs: 5, settings: set("evidence", "c=d")})
	otherCascade := writeRun(t, filepath.Join(root, "v3"), runSpec{dialogs: 5, settings: set("chain", "a=b")})
	runs, err := ReadRuns(ctx, []string{base, sameMetric, otherCascade})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Identity.Settings != "cascade=evidence; composition.rule=mean" {
		t.Errorf("settings identity %q", runs[0].Identity.Settings)
	}
	if _, err := compare.CompareRuns(ctx, runs[:2], testOptions()); err != nil {
		t.Errorf("a different column mapping must not block the comparison: %v", err)
	}
	var me *compare.MismatchError
	if _, err := compare.CompareRuns(ctx, []compare.Run{runs[0], runs[2]}, testOptions()); !errors.As(err, &me) || me.Mismatches[0].Field != "settings" {
		t.Errorf("different cascade policy: err = %v", err)
	}
}

func TestAddedRemovedTurnsReported(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	base := writeRun(t, filepath.Join(root, "v1"), runSpec{dialogs: 12})
	cand := writeRun(t, filepath.Join(root, "v2"), runSpec{dialogs: 10})
	runs, err := ReadRuns(ctx, []string{base, cand})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := compare.CompareRuns(ctx, runs, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"0 turns only in the candidate (added), 10 only in the base (removed)", "Removed turns: `d010` turn 1", "Only in the base: `d010`, `d011`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}

func TestWriteReportCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "cmp")
	if err := WriteReport(ctx, out, &compare.Report{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, JSONFile)); err == nil {
		t.Error("compare.json written by a cancelled write")
	}
}

func TestReadRunsSameDirTwice(t *testing.T) {
	dir := writeRun(t, filepath.Join(t.TempDir(), "v1"), runSpec{dialogs: 3})
	runs, err := ReadRuns(context.Background(), []string{dir, dir + "/"})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Name != dir || runs[1].Name != dir+"#2" {
		t.Errorf("names %q %q", runs[0].Name, runs[1].Name)
	}
	rep, err := compare.CompareRuns(context.Background(), runs, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Comparisons[0]; c.Overall.P != 1 || c.Overall.Diff != 0 || rep.Gate.Failed {
		t.Errorf("a run against itself: %+v", c.Overall)
	}
}

// FuzzReadTurnsFile feeds arbitrary bytes as turns.parquet: ReadRun must
// return an error or a run, never panic.
func FuzzReadTurnsFile(f *testing.F) {
	dir := writeRun(&testing.T{}, filepath.Join(f.TempDir(), "seed"), runSpec{dialogs: 2, mod: regressed})
	valid, err := os.ReadFile(filepath.Join(dir, rundir.TurnsFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(valid[:len(valid)/2])
	f.Add(valid[len(valid)/3:])
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d := t.TempDir()
		for _, name := range []string{rundir.DialogsFile, rundir.SummaryFile} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			os.WriteFile(filepath.Join(d, name), b, 0o644)
		}
		os.WriteFile(filepath.Join(d, rundir.TurnsFile), data, 0o644)
		run, err := ReadRun(context.Background(), d)
		if err == nil && len(run.Turns) != 10 {
			t.Fatalf("accepted a turns file with %d turns against a summary of 10", len(run.Turns))
		}
		if err != nil && !errors.Is(err, rundir.ErrCorrupt) {
			t.Fatalf("unexpected error kind: %v", err)
		}
	})
}
