package rundir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
)

// File names inside a run directory.
const (
	TurnsFile   = "turns.parquet"
	DialogsFile = "dialogs.parquet"
	SummaryFile = "summary.json"
	// OrdinalsFile is written by a sharded run: one OrdinalRow per dialog,
	// which Merge needs to rebuild the files of a single run.
	OrdinalsFile = "ordinals.parquet"
	// CheckpointDir holds the checkpoint of an unfinished run (package
	// batch writes it); its presence without summary.json means "resume
	// me".
	CheckpointDir = ".aem-run"
)

// Files names the three Parquet files that hold dialogs: the
// turns.parquet, dialogs.parquet and ordinals.parquet of a run directory,
// or the parts of a checkpoint, which have the same schemas.
type Files struct {
	Turns, Dialogs, Ordinals string
}

// FilesIn returns the files of the run directory dir.
func FilesIn(dir string) Files {
	return Files{Turns: filepath.Join(dir, TurnsFile), Dialogs: filepath.Join(dir, DialogsFile), Ordinals: filepath.Join(dir, OrdinalsFile)}
}

// FieldScoreRow is one compared value inside a TurnRow (see
// metrics.FieldScore).
type FieldScoreRow struct {
	Field  string `parquet:"field" json:"field"`
	Method string `parquet:"method" json:"method"`
	// Kind is the gold value's kind (metrics.FieldScore.Kind: "date",
	// "money", "identifier", "name", "text", ...); null for a reply's
	// coverage, a value gold lacks, and in runs written before kinds.
	Kind      *string `parquet:"kind,optional" json:"kind"`
	Score     float64 `parquet:"score" json:"score"`
	Threshold float64 `parquet:"threshold" json:"threshold"`
	// ThresholdFrom is the thresholds entry Threshold came from
	// ("fields.<key>", "types.<type>", "sub_metrics.<name>", "threshold");
	// empty when the value was not held to a threshold.
	ThresholdFrom string `parquet:"threshold_from" json:"threshold_from"`
	Pass          bool   `parquet:"pass" json:"pass"`
	// By is who decided a comparison that reached the scorer ("embed",
	// "lexical", "judge"); null when none did (exact, typed, missing).
	By *string `parquet:"by,optional" json:"by"`
	// Set when an escalating scorer (embed+judge, judge) asked the judge:
	// the embedding cosine of the comparison (under a fitted composite,
	// the cosine, not the probability that lay in the band), the judge's
	// one-sentence reason, or why it gave none (the first scorer then
	// decided). Null otherwise. Cosine is also the embedding cosine of a
	// comparison a fitted composite scored (by "composite": Score is its
	// probability).
	Cosine      *float64 `parquet:"cosine,optional" json:"cosine"`
	JudgeReason *string  `parquet:"judge_reason,optional" json:"judge_reason"`
	JudgeError  *string  `parquet:"judge_error,optional" json:"judge_error"`
}

// ClauseRow is one clause of a gold reply inside a TurnRow: how
// completeness judged it (see metrics.ClauseScore). A clause that is not
// required was never compared: its predicted, score and threshold are
// null.
type ClauseRow struct {
	Field    string  `parquet:"field" json:"field"` // "response.clause[i]"
	Gold     string  `parquet:"gold" json:"gold"`   // the gold clause
	Weight   float64 `parquet:"weight" json:"weight"`
	Required bool    `parquet:"required" json:"required"`
	Covered  bool    `parquet:"covered" json:"covered"`
	Method   string  `parquet:"method" json:"method"` // exact, semantic, missing, not_required
	// Predicted is the index of the best predicted clause and
	// PredictedText that clause.
	Predicted     *int64   `parquet:"predicted,optional" json:"predicted"`
	PredictedText *string  `parquet:"predicted_text,optional" json:"predicted_text"`
	Score         *float64 `parquet:"score,optional" json:"score"`
	Threshold     *float64 `parquet:"threshold,optional" json:"threshold"`
	ThresholdFrom *string  `parquet:"threshold_from,optional" json:"threshold_from"`
	// Pass is whether Score reached Threshold; Covered also needs every
	// anchor of the clause stated and every name mentioned
	// (MissingAnchors and MissingNames empty).
	Pass           bool     `parquet:"pass" json:"pass"`
	MissingAnchors []string `parquet:"missing_anchors,list" json:"missing_anchors"`
	// MissingNames are the clause's names the predicted reply does not
	// mention (metrics.ClauseScore.MissingNames); Covered needs none.
	MissingNames []string `parquet:"missing_names,optional,list" json:"missing_names"`
	// By, Cosine, JudgeReason and JudgeError are as in FieldScoreRow.
	By          *string  `parquet:"by,optional" json:"by"`
	Cosine      *float64 `parquet:"cosine,optional" json:"cosine"`
	JudgeReason *string  `parquet:"judge_reason,optional" json:"judge_reason"`
	JudgeError  *string  `parquet:"judge_error,optional" json:"judge_error"`
}

// TurnRow is one row of turns.parquet: the verdict for one scored turn,
// plus what sweep and compare need to work without the golden dataset.
type TurnRow struct {
	DialogID      string `parquet:"dialog_id" json:"dialog_id"`
	TurnNo        int64  `parquet:"turn_no" json:"turn_no"`
	PredictTurnNo int64  `parquet:"predict_turn_no" json:"predict_turn_no"`
	Role          string `parquet:"turn" json:"turn"`
	Kind          string `parquet:"kind" json:"kind"`

	Pass          bool     `parquet:"pass" json:"pass"`
	FailureReason *string  `parquet:"failure_reason,optional" json:"failure_reason"`
	FailedChecks  []string `parquet:"failed_checks,list" json:"failed_checks"`
	MissingKeys   []string `parquet:"missing_keys,list" json:"missing_keys"`
	ExtraKeys     []string `parquet:"extra_keys,list" json:"extra_keys"`

	FieldScores []FieldScoreRow `parquet:"field_scores,list" json:"field_scores"`

	Structure    string `parquet:"structure" json:"structure"`
	Completeness string `parquet:"completeness" json:"completeness"`
	Truthfulness string `parquet:"truthfulness" json:"truthfulness"`

	ChainLength int64   `parquet:"chain_length" json:"chain_length"`
	ChainBucket *string `parquet:"chain_bucket,optional" json:"chain_bucket"`
	RootCause   bool    `parquet:"root_cause" json:"root_cause"`
	CascadeFrom *int64  `parquet:"cascade_from,optional" json:"cascade_from"`
	OwnReason   *string `parquet:"own_reason,optional" json:"own_reason"`

	// Copied from the golden dataset so reports need not reopen it.
	GoldToolID      *string  `parquet:"gold_tool_id,optional" json:"gold_tool_id"`
	GoldAction      *string  `parquet:"gold_action,optional" json:"gold_action"`
	GoldArgs        *string  `parquet:"gold_args,optional" json:"gold_args"`
	PredictToolID   *string  `parquet:"predict_tool_id,optional" json:"predict_tool_id"`
	PredictAction   *string  `parquet:"predict_action,optional" json:"predict_action"`
	PredictArgs     *string  `parquet:"predict_args,optional" json:"predict_args"`
	GoldResponse    *string  `parquet:"gold_response,optional" json:"gold_response"`
	PredictResponse *string  `parquet:"predict_response,optional" json:"predict_response"`
	Tags            []string `parquet:"tags,list" json:"tags"`
	HumanLabel      *bool    `parquet:"human_label,optional" json:"human_label"`
	HumanScore      *float64 `parquet:"human_score,optional" json:"human_score"`
	Weight          *float64 `parquet:"weight,optional" json:"weight"`
	Critical        bool     `parquet:"critical" json:"critical"`
	LatencyMS       *float64 `parquet:"latency_ms,optional" json:"latency_ms"`

	// Threshold is the threshold of the comparison that decided the turn
	// (metrics.Verdict.Threshold); null when no comparison was held to one.
	Threshold *float64 `parquet:"threshold,optional" json:"threshold"`
	Scorer    string   `parquet:"scorer" json:"scorer"`
	// EmbedPass is the verdict the first scorer (the embedding) alone
	// would have given, for runs with an escalating scorer (embed+judge,
	// judge); null for other runs.
	EmbedPass *bool `parquet:"embed_pass,optional" json:"embed_pass"`
	// Trial is the dialog's trial (DialogRow.Trial).
	Trial *int64 `parquet:"trial,optional" json:"trial"`
	// Clauses are the gold reply's clauses as completeness judged them
	// (response turns with a prediction); null for other turns. The
	// reply's coverage is field_scores' "response.coverage".
	Clauses []ClauseRow `parquet:"clauses,optional,list" json:"clauses"`
	// ReadOnly is true for a read-only call kept as context
	// (metrics.Verdict.ReadOnly): kind "context", not scored, listed with
	// its alignment (gold and predicted calls, predict_turn_no). False for
	// scored turns; null in runs written before it.
	ReadOnly *bool `parquet:"read_only,optional" json:"read_only"`
	// UserTurn is the turn_no of the User turn the turn was expected in
	// (metrics.Verdict.UserTurn: the last User turn before a gold turn; for
	// a prediction with no gold, the one it was made in, when known); null
	// when none.
	UserTurn *int64 `parquet:"user_turn,optional" json:"user_turn"`
}

// Context reports whether the row is a read-only call kept as context, not
// a scored turn: readers that count verdicts skip it.
func (t *TurnRow) Context() bool { return t.ReadOnly != nil && *t.ReadOnly }

// DialogRow is one row of dialogs.parquet: the composed verdict of one
// dialog. Score, TestPass, Reason and Label are the fields of a Strands
// Agents EvaluationOutput.
type DialogRow struct {
	DialogID         string   `parquet:"dialog_id" json:"dialog_id"`
	TurnCount        int64    `parquet:"turn_count" json:"turn_count"`
	PassedCount      int64    `parquet:"passed_count" json:"passed_count"`
	SuccessRate      float64  `parquet:"success_rate" json:"success_rate"`
	TestPass         bool     `parquet:"test_pass" json:"test_pass"`
	FirstFailureTurn *int64   `parquet:"first_failure_turn,optional" json:"first_failure_turn"`
	RootCause        *string  `parquet:"root_cause,optional" json:"root_cause"`
	RootCauseCount   int64    `parquet:"root_cause_count" json:"root_cause_count"`
	CascadingCount   int64    `parquet:"cascading_count" json:"cascading_count"`
	StructureRate    float64  `parquet:"structure_rate" json:"structure_rate"`
	CompletenessRate float64  `parquet:"completeness_rate" json:"completeness_rate"`
	TruthfulnessRate float64  `parquet:"truthfulness_rate" json:"truthfulness_rate"`
	Score            float64  `parquet:"score" json:"score"`
	Reason           string   `parquet:"reason" json:"reason"`
	Label            string   `parquet:"label" json:"label"`
	LatencyMS        *float64 `parquet:"latency_ms,optional" json:"latency_ms"`

	// Trial numbers the repeated trials of one task (the dialog_id): a
	// dialog is identified by (dialog_id, trial). Null when the dialog is
	// not one of repeated trials.
	Trial *int64 `parquet:"trial,optional" json:"trial"`
	// The reliability of the dialog's task over all its trials, the same on
	// every trial's row (metrics/trials); null for a dialog without a
	// trial. TaskPassAtK[k-1] and TaskPassHatK[k-1] are the task's pass@k
	// (at least one of k trials passes) and pass^k (all k pass), for k = 1
	// up to TaskTrials; TaskFlaky is set when some trials pass and some
	// fail.
	TaskTrials   *int64    `parquet:"task_trials,optional" json:"task_trials"`
	TaskPassed   *int64    `parquet:"task_passed,optional" json:"task_passed"`
	TaskPassAtK  []float64 `parquet:"task_pass_at_k,optional,list" json:"task_pass_at_k"`
	TaskPassHatK []float64 `parquet:"task_pass_hat_k,optional,list" json:"task_pass_hat_k"`
	TaskFlaky    *bool     `parquet:"task_flaky,optional" json:"task_flaky"`
}

// OrdinalRow is one row of ordinals.parquet (and of a checkpoint part's
// index): where a dialog was in the input, how many turns.parquet rows it
// has and the digest of its gold side (see Summary.Dataset).
type OrdinalRow struct {
	InputOrdinal int64  `parquet:"input_ordinal"`
	DialogID     string `parquet:"dialog_id"`
	Turns        int64  `parquet:"turns"` // rows in turns.parquet
	GoldSHA256   []byte `parquet:"gold_sha256"`
}

// Schemas of the fixed row types.
var (
	turnRowSchema    = parquet.SchemaOf(TurnRow{})
	dialogRowSchema  = parquet.SchemaOf(DialogRow{})
	ordinalRowSchema = parquet.SchemaOf(OrdinalRow{})
)

// TurnSchema is the schema of a turns.parquet: TurnRow's columns, then the
// input's extra columns under their original names (golden.ExtendSchema:
// an extra column whose name collides with a TurnRow column is renamed
// "input_<name>").
type TurnSchema struct {
	schema    *parquet.Schema
	baseLeafs int  // leaf columns of TurnRow
	extras    bool // the input has extra columns
}

// NewTurnSchema returns the turns.parquet schema for a dataset with these
// extra columns (none: TurnRow's columns only).
func NewTurnSchema(extras []golden.ExtraColumn) (*TurnSchema, error) {
	ts := &TurnSchema{schema: turnRowSchema, baseLeafs: len(turnRowSchema.Columns())}
	if len(extras) == 0 {
		return ts, nil
	}
	ts.schema = golden.ExtendSchema("turns", turnRowSchema, extras)
	ts.extras = true
	want := ts.baseLeafs
	for _, e := range extras {
		want += e.Leaves
	}
	if got := len(ts.schema.Columns()); got != want {
		return nil, fmt.Errorf("building the turns.parquet schema: %d leaf columns, want %d", got, want)
	}
	return ts, nil
}

// turnSchemaOf returns the TurnSchema for the rows of an existing
// turns.parquet whose schema is s and whose layout is fl: s itself when it
// has the current layout, else TurnRow's fields followed by s's extra
// columns, the schema of its rows once upgraded (DialogReader does).
func turnSchemaOf(s *parquet.Schema, fl fileLayout) (*TurnSchema, error) {
	fields, n := s.Fields(), fl.fields
	if fl.conv == nil {
		ts := &TurnSchema{schema: turnRowSchema, baseLeafs: len(turnRowSchema.Columns())}
		if len(fields) > n {
			ts.schema, ts.extras = s, true
		}
		return ts, nil
	}
	var extras []golden.ExtraColumn
	for _, f := range fields[n:] {
		extras = append(extras, golden.ExtraColumn{Name: f.Name(), Node: f, Leaves: golden.CountLeaves(f)})
	}
	return NewTurnSchema(extras)
}

// HasExtras reports whether rows carry extra input columns: a Dialog then
// holds its turns as raw rows (Dialog.TurnsRaw) built with Row.
func (ts *TurnSchema) HasExtras() bool { return ts.extras }

// String describes the schema on one line (for fingerprints).
func (ts *TurnSchema) String() string { return strings.Join(strings.Fields(ts.schema.String()), " ") }

// Row builds one turns.parquet row from a TurnRow and the turn's extra
// values (a golden.Dialog.Extra element; nil for nulls).
func (ts *TurnSchema) Row(tr *TurnRow, extra parquet.Row) parquet.Row {
	row := turnRowSchema.Deconstruct(nil, tr)
	if !ts.extras {
		return row
	}
	if extra == nil {
		// Every Parquet row carries the extra columns; write nulls should a
		// turn come without them.
		for c := ts.baseLeafs; c < len(ts.schema.Columns()); c++ {
			row = append(row, parquet.NullValue().Level(0, 0, c))
		}
		return row
	}
	return golden.AppendExtra(row, ts.baseLeafs, extra)
}

// AllScores lists the turn's comparisons as field scores: its
// field_scores, then, for a reply, the best comparison of each gold
// clause that was compared (the clauses column; a clause that is not
// required was never compared).
func (t *TurnRow) AllScores() []FieldScoreRow { return ScoresOf(t.FieldScores, t.Clauses) }

// ScoresOf is TurnRow.AllScores of a turn's field_scores and clauses, for
// readers that read the columns into a type of their own.
func ScoresOf(fieldScores []FieldScoreRow, clauses []ClauseRow) []FieldScoreRow {
	out := fieldScores
	for _, c := range clauses {
		if c.Score == nil {
			continue
		}
		fs := FieldScoreRow{Field: c.Field, Method: c.Method, Score: *c.Score, Pass: c.Pass, By: c.By,
			Cosine: c.Cosine, JudgeReason: c.JudgeReason, JudgeError: c.JudgeError}
		if c.Threshold != nil {
			fs.Threshold = *c.Threshold
		}
		if c.ThresholdFrom != nil {
			fs.ThresholdFrom = *c.ThresholdFrom
		}
		out = append(out[:len(out):len(out)], fs)
	}
	return out
}

// ScorerDecided reports whether a compared value's outcome came from the
// similarity scorer: semantic comparisons, and $any alternatives that were
// compared semantically (By names the scorer; runs written before that
// column existed are recognised by the threshold they carry, which could
// not be 0 then). Only these move when a threshold does.
func (fs FieldScoreRow) ScorerDecided() bool {
	return fs.Method == metrics.MethodSemantic ||
		fs.Method == metrics.MethodAny && (fs.By != nil || fs.Threshold != 0 && fs.Score != 1)
}

// FirstScore is the score the first scorer gave a compared value: the
// cosine the judge was asked about when a judge decided it (an escalating
// run), the cosine a fitted composite started from, else its score. Sweep
// calibrates the first scorer's thresholds; the judge's decisions are held
// to a fixed threshold, the composites' to their own.
func (fs FieldScoreRow) FirstScore() float64 {
	if (fs.Judged() || fs.By != nil && *fs.By == metrics.ByComposite) && fs.Cosine != nil {
		return *fs.Cosine
	}
	return fs.Score
}

// Judged reports whether an LLM judge decided the comparison.
func (fs FieldScoreRow) Judged() bool { return fs.By != nil && *fs.By == metrics.ByJudge }

// SubMetricOf names the sub-metric a compared value belongs to: parameter
// values of action turns are truthfulness.values; in response turns the
// coverage ("response.coverage") is completeness.response, a clause
// ("response.clause[i]": the clauses column, or field_scores of runs
// written before coverage) completeness.clause, and the reply itself
// truthfulness.response.
func SubMetricOf(kind, field string) string {
	switch {
	case kind == string(metrics.KindAction):
		return metrics.SubTruthValues
	case field == "response.coverage":
		return metrics.SubCompleteResponse
	case strings.Contains(strings.ToLower(field), "clause"):
		return metrics.SubCompleteClause
	}
	return metrics.SubTruthResponse
}
