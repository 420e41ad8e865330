package report

import (
	"time"

	"github.com/aem-dev/aem/rundir"
)

// Report is everything the page shows, computed in one pass over a run
// directory by Build. Its figures are aggregates over every turn and
// dialog; only Dialogs (the explorer) holds rows, and only those of the
// dialogs it picked.
type Report struct {
	// Location is the run directory as given; Summary its summary.json.
	Location string
	Summary  *rundir.Summary
	// Options are the options it was built with, defaults filled in.
	Options Options
	// Finished is when summary.json was written (the run's end); zero when
	// unknown.
	Finished time.Time

	// Turns and Dialogs count the rows read; they equal the summary's.
	Turns, Dialogs int
	// RootCauses and Cascades count the failed turns by attribution.
	RootCauses, Cascades int

	SubMetrics []Rate // structure, completeness, truthfulness: turns where the check applies
	Kinds      []Rate // by turn kind (action, response)
	Buckets    []Rate // by action-chain bucket
	Tools      []Rate // by gold tool.action, most failures first
	Reasons    []Reason
	Latency    *Latency // nil when no turn has a latency
	Causes     []Cause  // root-cause classes, most failures explained first
	// CausesTotal is the number of distinct classes; Causes holds the first
	// Options.Causes of them.
	CausesTotal int
	Margins     Margins
	// Extra names the input's extra columns carried in turns.parquet.
	Extra []string

	// Dialogs shown in the explorer: the worst first, then the named ones
	// and the root causes' examples, each once.
	Explorer []Dialog
	// Missing lists dialogs named in Options.Dialogs that the run lacks.
	Missing []string
}

// Rate is correctness within one group of turns.
type Rate struct {
	Key    string
	Turns  int
	Passed int
	// Failed turns of the group that are root causes (Tools only).
	RootCauses int
}

// Correctness is Passed / Turns (0 for no turns).
func (r Rate) Correctness() float64 { return ratio(r.Passed, r.Turns) }

// Reason counts failed turns with one primary failure reason.
type Reason struct {
	Reason             string
	RootCause, Cascade int
	Total              int
}

// Cause is a class of root causes: the same reason at the same place (the
// gold tool and action, and for parameter failures the parameter). Fixing
// it fixes its root-cause turns and the cascades they caused, so they are
// counted together (Explained).
type Cause struct {
	Reason string
	Tool   string // gold tool.action ("" for replies)
	Field  string // the parameter, array indices folded to []; "" when none
	Kind   string // kind of its turns
	// Roots are its root-cause turns, Cascades the turns that inherited
	// their failure; Explained is the sum.
	Roots, Cascades, Explained int
	// Dialogs with at least one such root, and of those the ones whose
	// every failed turn is one of its roots or their cascades (fixing it
	// alone fixes every turn of those dialogs).
	Dialogs, Sole int
	// Examples are the first dialogs it occurs in, in input order.
	Examples []Ref
}

// Ref points at a turn of a dialog (a trial of a task when Trial is set).
type Ref struct {
	DialogID string
	Trial    *int64
	TurnNo   int64
}

// Latency relates turn latency to correctness, in groups of about equal
// numbers of turns, and carries the run's dialog-level correlations.
type Latency struct {
	Turns  int // turns with a latency
	Groups []LatencyGroup
}

// LatencyGroup is correctness of the turns whose latency lies in [From, To).
type LatencyGroup struct {
	From, To      float64 // milliseconds
	Turns, Passed int
}

// Margins is how the comparisons the scorer decided sit around their
// thresholds: a histogram of score − threshold for each threshold entry,
// and how many turn verdicts would flip if every threshold moved.
type Margins struct {
	// Compared is the number of scorer-decided comparisons held to a
	// movable threshold; Judged those an LLM judge decided (held to its
	// fixed threshold, left out of the figures below).
	Compared, Judged int
	Entries          []MarginEntry
	Shifts           []Shift
}

// MarginEntry is the comparisons held to one thresholds entry.
type MarginEntry struct {
	From      string  // "threshold", "sub_metrics.truthfulness.values", ...
	Threshold float64 // the value most of them were held to
	Compared  int
	Passed    int
	// Bins[i] counts comparisons with score − threshold in
	// [BinLow + i·BinWidth, BinLow + (i+1)·BinWidth); Below and Above
	// count those outside.
	Bins         []int
	Below, Above int
	// Near[i] counts the comparisons within ±Deltas[i] of the threshold.
	Near []int
}

// Shift is what moving every threshold by Delta would do to turn
// verdicts: Fail turns that now pass would fail when thresholds rise by
// Delta; Pass turns that now fail (on threshold-bound checks only) would
// pass when they drop by Delta.
type Shift struct {
	Delta      float64
	Fail, Pass int
}

// The margin histogram's bins and the threshold moves looked at.
const (
	BinLow   = -0.3
	BinWidth = 0.02
	bins     = 30
)

// Deltas are the threshold moves Margins reports.
var Deltas = []float64{0.01, 0.02, 0.05, 0.1}

// Dialog is one dialog of the explorer, with all its turns.
type Dialog struct {
	DialogID       string
	Trial          *int64
	Score          float64
	TestPass       bool
	Reason         string
	RootCause      string
	RootCauseCount int64
	CascadingCount int64
	LatencyMS      *float64
	// TaskPassHatK is the task's pass^k over its trials (k = all of them);
	// nil without trials.
	TaskPassHatK *float64
	TaskTrials   *int64
	// Worst marks a failed dialog among the Options.Worst lowest scores
	// of a run that has more dialogs than that (so the tag says the
	// dialog was picked for being among the worst).
	Worst bool
	Named bool // named in Options.Dialogs
	Turns []Turn
	// More counts turns left out (Options.MaxTurns).
	More int
}

// Turn is one turn of an explorer dialog.
type Turn struct {
	TurnNo        int64
	PredictTurnNo int64
	Role, Kind    string
	Pass          bool
	Reason        string   // primary failure reason
	OwnReason     string   // for cascades: what the turn's own checks found
	RootCause     bool     // a root cause
	CascadeFrom   *int64   // the root cause it inherits from
	FailedChecks  []string // every failed check
	Missing       []string // gold keys missing from the prediction
	Extra         []string // predicted keys with no gold counterpart
	GoldTool      string   // tool.action
	PredictTool   string
	Gold, Predict string // arguments (JSON) or reply text, shortened
	// Fields are the compared values that failed, or that the scorer
	// passed by less than 0.1 above the threshold; Matched counts the
	// others (exact, normalised or typed matches, clear passes).
	Fields  []Field
	Matched int
	// Clauses are a reply's required gold clauses as completeness judged
	// them; Unrequired counts the others (weight 0, never compared).
	Clauses    []Clause
	Unrequired int
	LatencyMS  *float64
	HumanLabel *bool
}

// Field is one compared value of an explorer turn. ValueKind is the gold
// value's kind (rundir.FieldScoreRow.Kind: "date", "name", ...); "" when
// the run has none for it.
type Field struct {
	Field, Method string
	ValueKind     string
	Kind          string // the gold value's kind; "" when the run does not record it
	Score         float64
	Threshold     float64
	From          string // the thresholds entry; "" when not held to one
	Pass          bool
	By            string
	JudgeReason   string
}

// Clause is one required gold clause of an explorer reply.
type Clause struct {
	Field, Gold   string
	Weight        float64
	Covered, Pass bool
	Method        string
	Predicted     string // the best predicted clause
	Score         *float64
	Threshold     *float64
	From          string
	// MissingAnchors are the numbers, dates, times and codes of the
	// clause the reply does not state, as the clause words them ("June
	// 3", "$49.99"; features.Wording); MissingNames the names it does not
	// mention.
	MissingAnchors []string
	MissingNames   []string
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
