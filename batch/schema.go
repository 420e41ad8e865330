package batch

import "github.com/aem-dev/aem/metrics"

// File names inside a run directory written by `aem run`.
const (
	TurnsFile   = "turns.parquet"
	DialogsFile = "dialogs.parquet"
	SummaryFile = "summary.json"
)

// FieldScoreRow is one compared value inside a TurnRow.
type FieldScoreRow struct {
	Field     string  `parquet:"field" json:"field"`
	Method    string  `parquet:"method" json:"method"`
	Score     float64 `parquet:"score" json:"score"`
	Threshold float64 `parquet:"threshold" json:"threshold"`
	Pass      bool    `parquet:"pass" json:"pass"`
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

	Threshold float64 `parquet:"threshold" json:"threshold"`
	Scorer    string  `parquet:"scorer" json:"scorer"`
}

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
}

// Summary is summary.json: run-level totals and the settings a run was
// made with. Compare refuses to pair runs whose Scorer, Thresholds or
// Dataset differ.
type Summary struct {
	Version int `json:"version"`
	// Dataset identifies the golden dataset: the sha256 of the gold side of
	// every turn in input order (predictions excluded, so two releases
	// scored on the same golden dataset share it).
	Dataset    string             `json:"dataset"`
	Input      string             `json:"input"`
	Scorer     string             `json:"scorer"`
	Thresholds metrics.Thresholds `json:"thresholds"`
	Settings   map[string]string  `json:"settings"`

	Dialogs int `json:"dialogs"`
	Turns   int `json:"turns"`
	Passed  int `json:"passed"`

	Correctness     float64            `json:"correctness"`
	SubMetrics      map[string]float64 `json:"sub_metrics"` // "structure", "completeness", "truthfulness"
	DialogPassRate  float64            `json:"dialog_pass_rate"`
	MeanDialogScore float64            `json:"mean_dialog_score"`

	// FailureReasons counts failed turns by primary reason, split by
	// root cause and cascade.
	FailureReasons map[string]ReasonCount `json:"failure_reasons"`
	// ByChainBucket is correctness by action-chain bucket.
	ByChainBucket map[string]BucketStat `json:"by_chain_bucket"`
	// LatencyCorrelation is set when the dataset has a latency_ms column:
	// Pearson and Spearman correlation of accumulated dialog latency with
	// dialog score.
	LatencyCorrelation *LatencyCorrelation `json:"latency_correlation,omitempty"`

	Timings map[string]float64 `json:"timings_seconds"`
}

// ReasonCount splits the failures of one reason into root causes and cascades.
type ReasonCount struct {
	Total     int `json:"total"`
	RootCause int `json:"root_cause"`
	Cascade   int `json:"cascade"`
}

// BucketStat is correctness within one action-chain bucket.
type BucketStat struct {
	Turns       int     `json:"turns"`
	Passed      int     `json:"passed"`
	Correctness float64 `json:"correctness"`
}

// LatencyCorrelation relates accumulated dialog latency to dialog score.
type LatencyCorrelation struct {
	Dialogs  int     `json:"dialogs"`
	Pearson  float64 `json:"pearson"`
	Spearman float64 `json:"spearman"`
}
