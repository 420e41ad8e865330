package sweepio

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/results/review"
	"github.com/aem-dev/aem/rundir"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/thresholds"
)

func ptr[T any](v T) *T { return &v }

func actionTurn(dialog string, turn int64, pass bool, label *bool, scores ...rundir.FieldScoreRow) rundir.TurnRow {
	return rundir.TurnRow{DialogID: dialog, TurnNo: turn, PredictTurnNo: turn, Role: "Tool", Kind: "action", Pass: pass,
		FieldScores: scores, Structure: "pass", Completeness: "pass", Truthfulness: "pass",
		GoldToolID: ptr("crm"), GoldAction: ptr("find"), HumanLabel: label, Threshold: ptr(0.5), Scorer: "lexical"}
}

func sem(field string, score float64) rundir.FieldScoreRow {
	return rundir.FieldScoreRow{Field: field, Method: metrics.MethodSemantic, Score: score, Threshold: 0.5, ThresholdFrom: "threshold", By: ptr("lexical"), Pass: score >= 0.5}
}

func exact(field string) rundir.FieldScoreRow {
	return rundir.FieldScoreRow{Field: field, Method: metrics.MethodExact, Score: 1, Pass: true}
}

// turnWithLabels is a turns.parquet row with the field_labels column
// carried through from the golden dataset.
type turnWithLabels struct {
	rundir.TurnRow
	FieldLabels *string `parquet:"field_labels,optional"`
}

// writeRun writes a complete run directory (turns.parquet, dialogs.parquet
// and summary.json, as rundir.Open requires) holding rows: []rundir.TurnRow,
// or []fieldLabelledTurn for a run with a field_labels column.
func writeRun(t *testing.T, rows any) string {
	t.Helper()
	dir := t.TempDir()
	var turns []turnWithLabels
	switch r := rows.(type) {
	case []rundir.TurnRow:
		for _, tr := range r {
			turns = append(turns, turnWithLabels{TurnRow: tr})
		}
	case []fieldLabelledTurn:
		for _, f := range r {
			turns = append(turns, turnWithLabels{FieldLabels: f.FieldLabels, TurnRow: rundir.TurnRow{DialogID: f.DialogID, TurnNo: f.TurnNo,
				Kind: f.Kind, Pass: f.Pass, FieldScores: f.FieldScores, GoldToolID: f.GoldToolID, GoldAction: f.GoldAction, HumanLabel: f.HumanLabel}})
		}
	}
	var err error
	if _, ok := rows.([]fieldLabelledTurn); ok {
		err = parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), turns)
	} else {
		plain := make([]rundir.TurnRow, len(turns))
		for i := range turns {
			plain[i] = turns[i].TurnRow
		}
		err = parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), plain)
	}
	if err != nil {
		t.Fatal(err)
	}
	var dialogs []rundir.DialogRow
	for i, tr := range turns {
		if i == 0 || turns[i-1].DialogID != tr.DialogID {
			dialogs = append(dialogs, rundir.DialogRow{DialogID: tr.DialogID})
		}
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.DialogsFile), dialogs); err != nil {
		t.Fatal(err)
	}
	s, _ := json.Marshal(rundir.Summary{Version: rundir.SummaryVersion, Scorer: "lexical", Thresholds: metrics.Thresholds{Threshold: 0.5},
		Turns: len(turns), Dialogs: len(dialogs)})
	if err := os.WriteFile(filepath.Join(dir, rundir.SummaryFile), s, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// calibrationRun has 40 dialogs of three labelled action turns (the human
// says pass when the lowest similarity is >= 0.6, with a few errors), one
// exact-only labelled turn, one labelled structure failure and one
// labelled response turn per dialog.
func calibrationRun() []rundir.TurnRow {
	r := rand.New(rand.NewPCG(9, 9))
	var rows []rundir.TurnRow
	for d := range 40 {
		id := fmt.Sprintf("d%02d", d)
		for k := int64(1); k <= 3; k++ {
			a, b := r.Float64(), 0.5+r.Float64()/2
			human := math.Min(a, b) >= 0.6
			if r.Float64() < 0.05 {
				human = !human
			}
			rows = append(rows, actionTurn(id, k, math.Min(a, b) >= 0.5, &human, sem("crm.find.city", a), sem("crm.find.name", b), exact("crm.find.limit")))
		}
		rows = append(rows, actionTurn(id, 4, true, ptr(true), exact("crm.find.limit")))
		bad := actionTurn(id, 5, false, ptr(false), sem("crm.find.city", 0.9))
		bad.Structure, bad.FailedChecks = "fail", []string{string(metrics.ReasonActionMismatch)}
		rows = append(rows, bad)
		s := r.Float64()
		rows = append(rows, rundir.TurnRow{DialogID: id, TurnNo: 6, Role: "Agent", Kind: "response", Pass: s >= 0.5,
			FieldScores: []rundir.FieldScoreRow{sem("response", s)}, HumanLabel: ptr(s >= 0.55), HumanScore: ptr(s * 5), Scorer: "lexical"})
		rows = append(rows, actionTurn(id, 7, true, nil, sem("crm.find.city", 0.7))) // unlabelled
	}
	return rows
}

func TestReadRunChoosesScores(t *testing.T) {
	rows := []rundir.TurnRow{
		actionTurn("a", 1, true, ptr(true), sem("crm.find.city", 0.9), sem("crm.find.name", 0.7), exact("crm.find.limit")),
		actionTurn("a", 2, true, ptr(true), exact("crm.find.limit")),
		actionTurn("b", 1, false, ptr(false), sem("crm.find.city", 0.3), rundir.FieldScoreRow{Field: "crm.find.n", Method: metrics.MethodTyped, Score: 0, Pass: false}),
		actionTurn("b", 2, false, nil, sem("crm.find.city", 0.2)),
		// A run written before coverage: its clauses are similarities.
		{DialogID: "c", TurnNo: 1, Kind: "response", Role: "Agent", Pass: true, HumanScore: ptr(4.0),
			FieldScores: []rundir.FieldScoreRow{sem("response", 0.8), sem("response.clause[0]", 0.6), sem("response.clause[1]", 0.7)}},
	}
	in, info, err := ReadRun(context.Background(), writeRun(t, rows), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []sweep.Sample{
		{Group: "a", SubMetric: metrics.SubTruthValues, Field: "crm.find.name", Score: 0.7, HasLabel: true, Label: true, Ref: "dialog a turn 1"},
		{Group: "c", SubMetric: metrics.SubTruthResponse, Score: 0.8, HasHuman: true, Human: 4, Ref: "dialog c turn 1"},
		{Group: "c", SubMetric: metrics.SubCompleteClause, Score: 0.6, HasHuman: true, Human: 4, Ref: "dialog c turn 1"},
	}
	if !reflect.DeepEqual(in.Samples, want) {
		t.Errorf("samples:\n got %+v\nwant %+v", in.Samples, want)
	}
	if len(in.Verdicts) != 3 || in.Verdicts[2] != (sweep.LabelledVerdict{Group: "b", Ref: "dialog b turn 1", Kind: "action", Auto: false, Human: false}) {
		t.Errorf("verdicts: %+v", in.Verdicts)
	}
	if info.Turns != 5 || info.Scorer != "lexical" || info.LabelledTurns != 4 ||
		info.Excluded[ExcludedNoSemantic] != 1 || info.Excluded[ExcludedOtherCheck] != 1 {
		t.Errorf("info: %+v", info)
	}
}

func coverage(score, threshold float64) rundir.FieldScoreRow {
	return rundir.FieldScoreRow{Field: "response.coverage", Method: metrics.MethodCoverage, Score: score, Threshold: threshold,
		ThresholdFrom: "default", Pass: score >= threshold}
}

// TestReplyLabelCalibratesItsChecks: a reply passes when its similarity
// and its coverage both do, so a passing label calibrates both, and a
// failing one the check the run failed, or the one closest to failing.
func TestReplyLabelCalibratesItsChecks(t *testing.T) {
	reply := func(id string, label bool, fs ...rundir.FieldScoreRow) rundir.TurnRow {
		return rundir.TurnRow{DialogID: id, TurnNo: 1, Kind: "response", Role: "Agent", Pass: true, HumanLabel: ptr(label), FieldScores: fs}
	}
	for _, tc := range []struct {
		name string
		row  rundir.TurnRow
		want []string // sub-metric:score
	}{
		{"pass: both", reply("a", true, sem("response", 0.8), coverage(1, 1)), []string{"truthfulness.response:0.8", "completeness.response:1"}},
		{"fail, coverage failed", reply("b", false, sem("response", 0.8), coverage(0.6, 1)), []string{"completeness.response:0.6"}},
		{"fail, similarity failed", reply("c", false, sem("response", 0.4), coverage(1, 1)), []string{"truthfulness.response:0.4"}},
		{"fail, both failed", reply("d", false, sem("response", 0.4), coverage(0.5, 1)), []string{"truthfulness.response:0.4", "completeness.response:0.5"}},
		{"fail, none failed: the closest", reply("e", false, sem("response", 0.55), coverage(1, 0.9)), []string{"truthfulness.response:0.55"}},
		{"exact reply: coverage alone", reply("f", false, exact("response"), coverage(0.5, 1)), []string{"completeness.response:0.5"}},
	} {
		in, _, err := ReadRun(context.Background(), writeRun(t, []rundir.TurnRow{tc.row}), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range in.Samples {
			got = append(got, fmt.Sprintf("%s:%g", s.SubMetric, s.Score))
			if s.SubMetric == metrics.SubCompleteResponse && s.HasFeatures {
				t.Errorf("%s: a coverage sample has features", tc.name)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: samples %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A field label on a gold clause calibrates that clause's similarity
// (completeness.clause), with the features of the gold clause and the
// predicted clause that covered it.
func TestClauseFieldLabel(t *testing.T) {
	score, th := 0.62, 0.5
	row := rundir.TurnRow{DialogID: "a", TurnNo: 1, Kind: "response", Role: "Agent", Pass: false,
		GoldResponse: ptr("It costs $5. Anything else?"), PredictResponse: ptr("The price is $6."),
		FieldScores: []rundir.FieldScoreRow{sem("response", 0.8), coverage(0, 1)},
		Clauses: []rundir.ClauseRow{
			{Field: "response.clause[0]", Gold: "It costs $5.", Weight: 3, Required: true, Method: metrics.MethodSemantic,
				Predicted: new(int64), PredictedText: ptr("The price is $6."), Score: &score, Threshold: &th, ThresholdFrom: ptr("threshold"),
				Pass: true, MissingAnchors: []string{"n5"}, By: ptr("lexical")},
			{Field: "response.clause[1]", Gold: "Anything else?", Method: metrics.MethodNotRequired, Pass: true, MissingAnchors: []string{}},
		}}
	labels := writeFile(t, "l.csv", "dialog_id,turn_no,field,label\na,1,response.clause[0],fail\n")
	in, info, err := ReadRun(context.Background(), writeRun(t, []rundir.TurnRow{row}), RunOptions{LabelsFile: labels})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Samples) != 1 || info.FieldLabels != 1 {
		t.Fatalf("samples %+v, info %+v", in.Samples, info)
	}
	s := in.Samples[0]
	want := features.Extract("It costs $5.", "The price is $6.", score)
	if s.SubMetric != metrics.SubCompleteClause || s.Score != score || !s.HasLabel || s.Label || !s.HasFeatures || s.Features != want {
		t.Errorf("sample %+v, want completeness.clause at %v with the clauses' features", s, score)
	}
	// A clause that was never compared is no field to label.
	labels = writeFile(t, "l2.csv", "dialog_id,turn_no,field,label\na,1,response.clause[1],fail\n")
	if _, _, err := ReadRun(context.Background(), writeRun(t, []rundir.TurnRow{row}), RunOptions{LabelsFile: labels}); !errors.Is(err, ErrUnknownField) {
		t.Errorf("label on a clause never compared: %v, want ErrUnknownField", err)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLabelsFile(t *testing.T) {
	rows := []rundir.TurnRow{
		actionTurn("a", 1, true, ptr(true), sem("crm.find.city", 0.9), sem("crm.find.name", 0.7)),
		actionTurn("a", 2, true, nil, sem("crm.find.city", 0.4), exact("crm.find.limit")),
	}
	dir := writeRun(t, rows)
	labels := writeFile(t, "labels.csv", "dialog_id,turn_no,field,label,score\n"+
		"a,1,city,0,\n"+ // short field name; replaces the turn-level sample
		"a,2,,fail,1.5\n"+ // turn label for an unlabelled turn
		"a,2,crm.find.limit,1,\n") // exact field: excluded
	in, info, err := ReadRun(context.Background(), dir, RunOptions{LabelsFile: labels})
	if err != nil {
		t.Fatal(err)
	}
	want := []sweep.Sample{
		{Group: "a", SubMetric: metrics.SubTruthValues, Field: "crm.find.city", Score: 0.9, HasLabel: true, Label: false, Ref: "dialog a turn 1 field crm.find.city"},
	}
	if !reflect.DeepEqual(in.Samples, want) {
		t.Errorf("samples:\n got %+v\nwant %+v", in.Samples, want)
	}
	if info.FieldLabels != 2 || info.Excluded[ExcludedFieldExact] != 1 || len(in.Verdicts) != 2 || in.Verdicts[1].Human {
		t.Errorf("info %+v verdicts %+v", info, in.Verdicts)
	}

	// Rows are 0-based data records, lines 1-based (the header is line 1).
	cases := []struct {
		name, content string
		want          error
		file          string // base name of the file the error names
		row           int64
		line          int
		field         string
	}{
		{"turn not in run", "dialog_id,turn_no,label\na,1,1\nzz,9,0\n", ErrUnknownTurn, "l.csv", 1, 3, "dialog_id"},
		{"field not in turn", "dialog_id,turn_no,field,label\na,1,nope,1\n", ErrUnknownField, rundir.TurnsFile, 0, 0, "field"},
		{"no turn_no column", "dialog_id,label\na,1\n", ErrColumn, "l.csv", -1, 0, "turn_no"},
		{"no label or score column", "dialog_id,turn_no\na,1\n", ErrColumn, "l.csv", -1, 0, "label"},
		{"bad label", "dialog_id,turn_no,label\na,1,maybe\n", ErrValue, "l.csv", 0, 2, "label"},
		{"bad turn_no", "dialog_id,turn_no,label\na,one,1\n", ErrValue, "l.csv", 0, 2, "turn_no"},
		{"NaN score", "dialog_id,turn_no,score\na,1,NaN\n", ErrValue, "l.csv", 0, 2, "score"},
		{"duplicate", "dialog_id,turn_no,label\na,1,1\na,1,0\n", ErrValue, "l.csv", 1, 3, ""},
		{"empty row", "dialog_id,turn_no,label,score\na,1,,\n", ErrValue, "l.csv", 0, 2, "label"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ReadRun(context.Background(), dir, RunOptions{LabelsFile: writeFile(t, "l.csv", tc.content)})
			var re *badinput.RowError
			if !errors.Is(err, tc.want) || !errors.Is(err, badinput.ErrInvalid) || !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *badinput.RowError wrapping %v", err, tc.want)
			}
			if filepath.Base(re.File) != tc.file || re.Row != tc.row || re.Line != tc.line || re.Field != tc.field {
				t.Errorf("error at %s row %d line %d field %q, want %s row %d line %d field %q (%v)",
					filepath.Base(re.File), re.Row, re.Line, re.Field, tc.file, tc.row, tc.line, tc.field, err)
			}
		})
	}
	_, info, err = ReadRun(context.Background(), dir, RunOptions{LabelsFile: writeFile(t, "l.jsonl", `{"dialog_id":"a","turn_no":1,"label":true}`+"\n"+`{"dialog_id":"zz","turn_no":9,"label":false}`+"\n"), IgnoreUnmatched: true})
	if err != nil || info.Unmatched != 1 {
		t.Errorf("ignore unmatched: %+v, %v", info, err)
	}
}

// fieldLabelledTurn is the part of a turns.parquet row with a field_labels
// column that the field-label tests set (writeRun fills in the rest).
type fieldLabelledTurn struct {
	DialogID    string                 `parquet:"dialog_id"`
	TurnNo      int64                  `parquet:"turn_no"`
	Kind        string                 `parquet:"kind"`
	Pass        bool                   `parquet:"pass"`
	FieldScores []rundir.FieldScoreRow `parquet:"field_scores,list"`
	GoldToolID  *string                `parquet:"gold_tool_id,optional"`
	GoldAction  *string                `parquet:"gold_action,optional"`
	HumanLabel  *bool                  `parquet:"human_label,optional"`
	FieldLabels *string                `parquet:"field_labels,optional"`
}

func TestFieldLabelsColumn(t *testing.T) {
	var rows []fieldLabelledTurn
	for i := range 1200 { // more than one read batch
		rows = append(rows, fieldLabelledTurn{DialogID: fmt.Sprint("d", i/3), TurnNo: int64(i%3 + 1), Kind: "action", Pass: true,
			FieldScores: []rundir.FieldScoreRow{sem("crm.find.city", 0.8), sem("crm.find.name", 0.6)},
			GoldToolID:  ptr("crm"), GoldAction: ptr("find")})
	}
	rows[0].FieldLabels = ptr(`{"city": true, "crm.find.name": false}`)
	rows[1100].FieldLabels = ptr(`{"name": 0.25}`)
	rows[1101].HumanLabel = ptr(false)
	in, info, err := ReadRun(context.Background(), writeRun(t, rows), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Samples) != 4 || info.FieldLabels != 3 || info.Turns != 1200 {
		t.Fatalf("samples %+v info %+v", in.Samples, info)
	}
	got := fmt.Sprintf("%s %v %v | %s %v %v | %s %v %v | %s %v", in.Samples[0].Field, in.Samples[0].Score, in.Samples[0].Label,
		in.Samples[1].Field, in.Samples[1].Score, in.Samples[1].Label, in.Samples[2].Field, in.Samples[2].Human, in.Samples[2].HasLabel,
		in.Samples[3].Ref, in.Samples[3].Score)
	if want := "crm.find.city 0.8 true | crm.find.name 0.6 false | crm.find.name 0.25 false | dialog d367 turn 1 0.6"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	rows[5].FieldLabels = ptr(`{"city": [1]}`)
	if _, _, err := ReadRun(context.Background(), writeRun(t, rows), RunOptions{}); !errors.Is(err, ErrValue) {
		t.Errorf("bad field_labels JSON: %v", err)
	}
}

func TestReadRunBadDir(t *testing.T) {
	if _, _, err := ReadRun(context.Background(), t.TempDir(), RunOptions{}); !errors.Is(err, rundir.ErrIncomplete) || !errors.Is(err, badinput.ErrInvalid) {
		t.Errorf("empty dir: %v", err)
	}
	if _, _, err := ReadRun(context.Background(), filepath.Join(t.TempDir(), "nope"), RunOptions{}); !errors.Is(err, rundir.ErrNotRun) {
		t.Errorf("missing dir: %v", err)
	}
	dir := writeRun(t, calibrationRun())
	os.WriteFile(filepath.Join(dir, rundir.TurnsFile), []byte("not parquet"), 0o644)
	if _, _, err := ReadRun(context.Background(), dir, RunOptions{}); !errors.Is(err, rundir.ErrCorrupt) || !strings.Contains(err.Error(), rundir.TurnsFile) {
		t.Errorf("garbage turns.parquet: %v", err)
	}
	dir = writeRun(t, calibrationRun())
	parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), []struct {
		X int `parquet:"x"`
	}{{1}})
	if _, _, err := ReadRun(context.Background(), dir, RunOptions{}); !errors.Is(err, rundir.ErrCorrupt) {
		t.Errorf("wrong schema: %v", err)
	}
}

func TestEndToEndRun(t *testing.T) {
	dir := writeRun(t, calibrationRun())
	in, info, err := ReadRun(context.Background(), dir, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info.Excluded[ExcludedNoSemantic] != 40 || info.Excluded[ExcludedOtherCheck] != 40 || len(in.Verdicts) != 240 || len(in.Samples) != 160 {
		t.Fatalf("info %+v, %d verdicts, %d samples", info, len(in.Verdicts), len(in.Samples))
	}
	opts := sweep.DefaultOptions()
	opts.Bootstrap = 200
	res, err := sweep.Calibrate(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sweep")
	sum := &Summary{Version: 1, Mode: "run", Input: dir, Scorer: info.Scorer, Run: info, Result: res}
	files, err := Write(context.Background(), out, sum)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Errorf("wrote %v", files)
	}
	// thresholds.json reads back strictly, as `aem run --thresholds` reads it.
	file, err := thresholds.Read(filepath.Join(out, ThresholdsFile))
	if err != nil {
		t.Fatal(err)
	}
	th := thresholds.Lookup(&file, 0.5, false)
	if file.Version != thresholds.Version || *file.EmbeddingModel != (thresholds.Model{ID: "lexical"}) ||
		th.Threshold != res.Threshold.Value || th.Threshold < 0.5 || th.Threshold > 0.7 {
		t.Errorf("thresholds file: %+v (fitted %v)", file, res.Threshold.Value)
	}
	if _, ok := th.SubMetrics[metrics.SubTruthValues]; !ok {
		t.Errorf("no truthfulness.values threshold: %+v", file)
	}
	// The judge band sweep reports is the one it writes.
	if b := res.JudgeBand; b == nil || file.JudgeBand == nil || *file.JudgeBand != (thresholds.JudgeBand{Low: b.Similarity.Low, High: b.Similarity.High}) ||
		b.Similarity.Low > th.Threshold || b.Similarity.High < th.Threshold {
		t.Errorf("judge band: file %+v, result %+v", file.JudgeBand, b)
	}
	// summary.json has the promised keys, each with an interval.
	b, _ := os.ReadFile(filepath.Join(out, SummaryFile))
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"threshold", "f1", "accuracy", "mcc", "roc_auc", "pearson", "spearman", "kendall"} {
		e, ok := m[k].(map[string]any)
		if !ok || e["value"] == nil || e["ci_low"] == nil || e["ci_high"] == nil {
			t.Errorf("summary.json %s = %v", k, m[k])
		}
	}
	if m["agreement"] == nil || m["folds"] == nil || m["run"] == nil {
		t.Errorf("summary.json lacks agreement, folds or run:\n%s", b)
	}
	// sweep.parquet: every sweep point of every scope, one chosen per fitted scope.
	rows, err := parquet.ReadFile[SweepRow](filepath.Join(out, SweepFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := len(Rows(res)); len(rows) != want || rows[res.Chosen].Scope != "global" || !rows[res.Chosen].Chosen || rows[res.Chosen].Threshold != res.Threshold.Value {
		t.Errorf("sweep.parquet: %d rows (want %d), chosen %+v", len(rows), want, rows[res.Chosen])
	}
	if !reflect.DeepEqual(rows, Rows(res)) {
		t.Error("sweep.parquet does not round-trip")
	}
	checkPlots(t, out)
	// A second sweep that fits no threshold removes the stale outputs.
	graded := &sweep.Result{Objective: "f1", Evaluation: "correlation only"}
	if _, err := Write(context.Background(), out, &Summary{Result: graded}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ThresholdsFile, PlotPNG, PlotSVG} {
		if _, err := os.Stat(filepath.Join(out, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s left behind", f)
		}
	}
}

func checkPlots(t *testing.T, dir string) {
	t.Helper()
	png, err := os.ReadFile(filepath.Join(dir, PlotPNG))
	if err != nil || len(png) < 1000 || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("sweep.png: %d bytes, %v", len(png), err)
	}
	svg, err := os.ReadFile(filepath.Join(dir, PlotSVG))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("sweep.svg is not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" || !bytes.Contains(svg, []byte("ROC")) {
		t.Errorf("sweep.svg: root %q, %d bytes", root, len(svg))
	}
}

func TestPairsFormats(t *testing.T) {
	cases := []struct {
		file   string
		format Format
		want   []Pair
	}{
		{"testdata/pairs.jsonl", FormatJSONL, []Pair{
			{Row: 1, Group: "row 1", TextA: "New York City", TextB: "NYC", HasLabel: true, Label: true, HasScore: true, Score: 4.5},
			{Row: 2, Group: "g1", TextA: "revenue", TextB: "profit", HasLabel: true},
			{Row: 3, Group: "row 3", TextA: "the meeting is at noon", TextB: "the meeting is at 12pm", HasLabel: true, Label: true},
			{Row: 5, Group: "row 5", TextA: "red", TextB: "blue", HasScore: true, Score: 0.5},
		}},
		{"testdata/pairs.csv", FormatCSV, []Pair{
			{Row: 2, Group: "row 2", TextA: "a, b", TextB: "c", HasLabel: true, Label: true},
			{Row: 3, Group: "row 3", TextA: "x", TextB: `y "quoted"`, HasLabel: true, HasScore: true, Score: 2.5},
		}},
		{"testdata/pairs.tsv", FormatTSV, []Pair{
			{Row: 2, Group: "row 2", TextA: `hello "there`, TextB: "hi", HasLabel: true, Label: true},
			{Row: 3, Group: "row 3", TextA: "foo", TextB: "bar", HasLabel: true},
		}},
		{"testdata/stsb-sample.tsv", FormatSTSB, []Pair{
			{Row: 1, Group: "row 1", TextA: "A man with a hard hat is dancing.", TextB: "A man wearing a hard hat is dancing.", HasScore: true, Score: 5},
			{Row: 2, Group: "row 2", TextA: "A young child is riding a horse.", TextB: "A child is riding a horse.", HasScore: true, Score: 4.75},
			{Row: 3, Group: "row 3", TextA: `"Quoted" start, no quote processing`, TextB: `Something "else entirely`, HasScore: true, Score: 0.4},
			{Row: 4, Group: "row 4", TextA: "The cat sat.", TextB: "A dog ran.", HasScore: true, Score: 2},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			for _, f := range []Format{FormatAuto, tc.format} {
				got, detected, err := ReadPairs(tc.file, f)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if detected != tc.format {
					t.Errorf("%s: detected %s, want %s", f, detected, tc.format)
				}
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s:\n got %+v\nwant %+v", f, got, tc.want)
				}
			}
		})
	}
	// Parquet, with a label stored as int and a nullable score.
	type row struct {
		A     string   `parquet:"text_a"`
		B     string   `parquet:"text_b"`
		Label int32    `parquet:"label"`
		Score *float64 `parquet:"score,optional"`
	}
	p := filepath.Join(t.TempDir(), "pairs.bin")
	if err := parquet.WriteFile(p, []row{{"a", "b", 1, ptr(3.0)}, {"c", "d", 0, nil}}); err != nil {
		t.Fatal(err)
	}
	got, detected, err := ReadPairs(p, FormatAuto)
	want := []Pair{{Row: 1, Group: "row 1", TextA: "a", TextB: "b", HasLabel: true, Label: true, HasScore: true, Score: 3},
		{Row: 2, Group: "row 2", TextA: "c", TextB: "d", HasLabel: true}}
	if err != nil || detected != FormatParquet || !reflect.DeepEqual(got, want) {
		t.Errorf("parquet: %+v, %s, %v", got, detected, err)
	}
}

func TestPairsBadInput(t *testing.T) {
	cases := []struct {
		name, data string
		format     Format
		want       error
		row        int64
		line       int
		field      string
	}{
		{"no text_b", "text_a,label\nx,1\n", FormatCSV, ErrColumn, -1, 0, "text_b"},
		{"no label or score", "text_a,text_b\nx,y\n", FormatCSV, ErrColumn, -1, 0, "label"},
		{"bad label", "text_a,text_b,label\nx,y,maybe\n", FormatCSV, ErrValue, 0, 2, "label"},
		{"NaN score", "text_a,text_b,score\nx,y,NaN\n", FormatCSV, ErrValue, 0, 2, "score"},
		{"neither set", "text_a,text_b,label,score\nx,y,,\n", FormatCSV, ErrValue, 0, 2, "label"},
		{"no rows", "text_a,text_b,label\n", FormatCSV, ErrValue, -1, 0, ""},
		{"bad CSV quote", "text_a,text_b,label\n\"x,y,1\n", FormatCSV, ErrValue, 0, 2, ""},
		{"bad JSON", "{\"text_a\": \"x\", \n", FormatJSONL, ErrValue, 0, 1, ""},
		{"JSON array line", "\n[1,2]\n", FormatJSONL, ErrValue, 0, 2, ""},
		{"short STS-B row", "a\tb\tc\td\t4.0\tonly one sentence\n", FormatSTSB, ErrValue, 0, 1, ""},
		{"bad STS-B score", "a\tb\tc\td\t4\ts1\ts2\na\tb\tc\td\tfive\ts1\ts2\n", FormatSTSB, ErrValue, 1, 2, "score"},
		{"not parquet", "PAR1 garbage", FormatParquet, ErrFormat, -1, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePairs("in", []byte(tc.data), tc.format)
			var re *badinput.RowError
			if !errors.Is(err, tc.want) || !errors.Is(err, badinput.ErrInvalid) || !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *badinput.RowError wrapping %v", err, tc.want)
			}
			if re.Row != tc.row || re.Line != tc.line || re.Field != tc.field {
				t.Errorf("error at row %d line %d field %q, want row %d line %d field %q (%v)", re.Row, re.Line, re.Field, tc.row, tc.line, tc.field, err)
			}
			if !strings.HasPrefix(err.Error(), "in") {
				t.Errorf("message does not name the file: %v", err)
			}
		})
	}
	if _, err := ParseFormat("xml"); !errors.Is(err, ErrFormat) {
		t.Errorf("ParseFormat(xml): %v", err)
	}
}

type nanScorer struct{}

func (nanScorer) ID() string { return "nan" }
func (nanScorer) Compare(_ context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out := make([]metrics.Similarity, len(cs))
	for i := range out {
		out[i] = metrics.Similarity{Score: math.NaN(), By: "nan"}
	}
	return out, nil
}

func TestScorePairsWithLexical(t *testing.T) {
	pairs, _, err := ReadPairs("testdata/pairs.jsonl", FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	in, err := ScorePairs(context.Background(), metrics.Lexical{}, pairs, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Samples) != 4 {
		t.Fatalf("%d samples", len(in.Samples))
	}
	for i, s := range in.Samples {
		if want := metrics.LexicalSimilarity(pairs[i].TextA, pairs[i].TextB); s.Score != want || s.Group != pairs[i].Group {
			t.Errorf("sample %d: %+v, want score %v", i, s, want)
		}
	}
	in, _ = ScorePairs(context.Background(), nanScorer{}, pairs, 0)
	if _, err := sweep.Calibrate(context.Background(), in, sweep.DefaultOptions()); !errors.Is(err, sweep.ErrNaNScore) || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("NaN similarity: %v", err)
	}
}

func FuzzParsePairs(f *testing.F) {
	for _, p := range []string{"testdata/pairs.jsonl", "testdata/pairs.csv", "testdata/pairs.tsv", "testdata/stsb-sample.tsv"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(p), b)
	}
	f.Add("x.parquet", []byte("PAR1\x00\x00PAR1"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		for _, format := range []Format{FormatAuto, FormatJSONL, FormatCSV, FormatTSV, FormatSTSB, FormatParquet} {
			pairs, err := ParsePairs(name, data, format)
			if err != nil {
				var re *badinput.RowError
				if !errors.As(err, &re) || re.Row < badinput.NoRow || re.Line < 0 {
					t.Fatalf("%s: error is not a *badinput.RowError with a valid place: %v", format, err)
				}
				continue
			}
			for _, p := range pairs {
				if !p.HasLabel && !p.HasScore {
					t.Fatalf("%s: pair without label or score accepted: %+v", format, p)
				}
				if p.HasScore && (math.IsNaN(p.Score) || math.IsInf(p.Score, 0)) {
					t.Fatalf("%s: non-finite score accepted: %+v", format, p)
				}
			}
		}
	})
}

// BenchmarkReadRun reads a 200,000-turn turns.parquet in which one turn in
// ten carries a human label.
func BenchmarkReadRun(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	rows := make([]rundir.TurnRow, 200_000)
	for i := range rows {
		var label *bool
		if i%10 == 0 {
			label = ptr(r.Float64() < 0.5)
		}
		rows[i] = actionTurn(fmt.Sprintf("d%06d", i/5), int64(i%5+1), true, label, sem("crm.find.city", r.Float64()), exact("crm.find.limit"))
		rows[i].GoldArgs = ptr(`{"city": "New York City", "limit": 5}`)
		rows[i].PredictArgs = ptr(`{"city": "NYC", "limit": 5}`)
	}
	dir := b.TempDir()
	if err := parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), rows); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		in, _, err := ReadRun(context.Background(), dir, RunOptions{})
		if err != nil || len(in.Samples) != 20_000 {
			b.Fatalf("%d samples, %v", len(in.Samples), err)
		}
	}
}

func TestScorerDecided(t *testing.T) {
	for _, tc := range []struct {
		fs   rundir.FieldScoreRow
		want bool
	}{
		{rundir.FieldScoreRow{Method: metrics.MethodSemantic, Score: 0.7, Threshold: 0.5, By: ptr("embed")}, true},
		{rundir.FieldScoreRow{Method: metrics.MethodAny, Score: 0.3, Threshold: 0, ThresholdFrom: "threshold", By: ptr("embed")}, true}, // threshold 0
		{rundir.FieldScoreRow{Method: metrics.MethodAny, Score: 1}, false},                                                              // literal match
		{rundir.FieldScoreRow{Method: metrics.MethodAny, Score: 0}, false},                                                              // typed mismatch
		{rundir.FieldScoreRow{Method: metrics.MethodAny, Score: 0.4, Threshold: 0.5}, true},                                             // a run without by
		{rundir.FieldScoreRow{Method: metrics.MethodExact, Score: 1}, false},
		{rundir.FieldScoreRow{Method: metrics.MethodMissing, Threshold: 0.5, ThresholdFrom: "threshold"}, false},
	} {
		if got := tc.fs.ScorerDecided(); got != tc.want {
			t.Errorf("scorerDecided(%+v) = %v, want %v", tc.fs, got, tc.want)
		}
	}
}

func TestFileBand(t *testing.T) {
	if fileBand(nil) != nil {
		t.Error("no band, yet one in the file")
	}
	got := fileBand(&sweep.JudgeBand{ErrorRate: 0.2, Similarity: sweep.UncertainBand{Low: 0.4, High: 0.7, Threshold: 0.55, Samples: 9},
		Composite: &sweep.UncertainBand{Low: 0.25, High: 0.75, Threshold: 0.5}})
	want := thresholds.JudgeBand{Low: 0.4, High: 0.7, Composite: &thresholds.Band{Low: 0.25, High: 0.75}}
	if got == nil || got.Low != want.Low || got.High != want.High || got.Composite == nil || *got.Composite != *want.Composite {
		t.Errorf("fileBand = %+v, want %+v", got, want)
	}
}

// judgedField is a value the judge decided after the first scorer gave
// it cosine.
func judgedField(field string, cosine, judgeScore float64) rundir.FieldScoreRow {
	return rundir.FieldScoreRow{Field: field, Method: metrics.MethodSemantic, Score: judgeScore, Threshold: metrics.JudgeThreshold,
		ThresholdFrom: "judge", By: ptr(metrics.ByJudge), Pass: judgeScore >= metrics.JudgeThreshold, Cosine: &cosine, JudgeReason: ptr("Because.")}
}

// On a judged run, sweep calibrates the first scorer's scores (the cosine
// the judge was asked about, not the judge's score) and sets the run's
// verdicts beside embed_pass against the same human labels.
func TestReadRunJudged(t *testing.T) {
	rows := []rundir.TurnRow{
		// The judge passes a value the embedding would fail, rightly.
		actionTurn("a", 1, true, ptr(true), judgedField("crm.find.city", 0.45, 0.9), sem("crm.find.name", 0.8)),
		// The judge fails a value the embedding would pass, wrongly.
		actionTurn("a", 2, false, ptr(true), judgedField("crm.find.city", 0.7, 0.2)),
		// Not escalated: the embedding decided.
		actionTurn("b", 1, false, ptr(false), sem("crm.find.city", 0.3)),
	}
	for i, first := range []bool{false, true, false} {
		rows[i].EmbedPass = &first
	}
	in, _, err := ReadRun(context.Background(), writeRun(t, rows), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var scores []float64
	for _, s := range in.Samples {
		scores = append(scores, s.Score)
	}
	if !reflect.DeepEqual(scores, []float64{0.45, 0.7, 0.3}) {
		t.Errorf("sample scores %v, want the first scorer's 0.45, 0.7, 0.3", scores)
	}
	var firsts []bool
	for _, v := range in.Verdicts {
		if v.First == nil {
			t.Fatalf("verdict %+v lacks embed_pass", v)
		}
		firsts = append(firsts, *v.First)
	}
	if !reflect.DeepEqual(firsts, []bool{false, true, false}) {
		t.Errorf("embed_pass read as %v", firsts)
	}
	opts := sweep.DefaultOptions()
	opts.Bootstrap, opts.Folds, opts.MinLabels = 0, 0, 2
	res, err := sweep.Calibrate(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	j := res.JudgeAgreement
	if j == nil || j.Turns != 3 || j.Changed != 2 || j.JudgeRight != 1 || j.EmbeddingRight != 1 ||
		j.Judged.Accuracy.Value != 2.0/3 || j.Embedding.Accuracy.Value != 2.0/3 {
		t.Errorf("judge agreement %+v", j)
	}
	// An unjudged run has none.
	in, _, err = ReadRun(context.Background(), writeRun(t, calibrationRun()), RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range in.Verdicts {
		if v.First != nil {
			t.Fatalf("an embedding run's verdict %+v has a first verdict", v)
		}
	}
}

// TestReviewFileLabels reads a review file (package review) as labels:
// labelled items label their field, unlabelled ones are skipped, a
// review label wins over the dataset's field_labels for the same field,
// and a bad item is refused with its line.
func TestReviewFileLabels(t *testing.T) {
	var rows []fieldLabelledTurn
	for i := range 6 {
		rows = append(rows, fieldLabelledTurn{DialogID: fmt.Sprint("d", i/3), TurnNo: int64(i%3 + 1), Kind: "action", Pass: true,
			FieldScores: []rundir.FieldScoreRow{sem("crm.find.city", 0.55), sem("crm.find.name", 0.6)},
			GoldToolID:  ptr("crm"), GoldAction: ptr("find")})
	}
	rows[0].FieldLabels = ptr(`{"city": false, "name": true}`)
	dir := writeRun(t, rows)
	items := []review.Item{
		{Review: review.Version, ID: "r0001", DialogID: "d0", TurnNo: 1, Field: "crm.find.city", HumanLabel: ptr(true)},
		{Review: review.Version, ID: "r0002", DialogID: "d0", TurnNo: 2, Field: "crm.find.name", HumanLabel: ptr(false), HumanScore: ptr(0.2)},
		{Review: review.Version, ID: "r0003", DialogID: "d1", TurnNo: 3, Field: "crm.find.city"},
	}
	path := filepath.Join(t.TempDir(), "review-labelled.jsonl")
	if err := review.Write(path, items); err != nil {
		t.Fatal(err)
	}
	in, info, err := ReadRun(context.Background(), dir, RunOptions{LabelsFile: path, LabelsFormat: FormatAuto})
	if err != nil {
		t.Fatal(err)
	}
	if info.ReviewUnlabelled != 1 || info.Overridden != 1 || info.FieldLabels != 3 {
		t.Errorf("info %+v: want 1 unlabelled, 1 overridden, 3 field labels", info)
	}
	var got []string
	for _, s := range in.Samples {
		got = append(got, fmt.Sprintf("%s %v %v", s.Ref, s.Label, s.HasHuman))
	}
	want := []string{"dialog d0 turn 1 field crm.find.city true false", "dialog d0 turn 1 field crm.find.name true false", "dialog d0 turn 2 field crm.find.name false true"}
	if !slices.Equal(got, want) {
		t.Errorf("samples\n got %q\nwant %q", got, want)
	}
	// An item for a turn the run lacks, and a bad label.
	items[2].DialogID, items[2].HumanLabel = "nope", ptr(true)
	review.Write(path, items)
	if _, _, err := ReadRun(context.Background(), dir, RunOptions{LabelsFile: path}); !errors.Is(err, ErrUnknownTurn) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("unknown turn: %v", err)
	}
	os.WriteFile(path, []byte(`{"review":1,"dialog_id":"d0","turn_no":1,"field":"crm.find.city","human_label":"perhaps"}`+"\n"), 0o644)
	if _, _, err := ReadRun(context.Background(), dir, RunOptions{LabelsFile: path}); !errors.Is(err, review.ErrValue) || !errors.Is(err, badinput.ErrInvalid) {
		t.Errorf("bad label: %v", err)
	}
	if _, _, err := ReadPairs(path, FormatReview); !errors.Is(err, ErrFormat) {
		t.Errorf("a review file as pairs: %v", err)
	}
}
