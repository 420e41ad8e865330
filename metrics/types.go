package metrics

import "github.com/aem-dev/aem/tooldef"

// Role is who produced a turn in the golden dataset.
type Role string

// Roles as they appear in the dataset's `turn` column.
const (
	RoleAgent Role = "Agent" // a reply in natural language: a response turn
	RoleTool  Role = "Tool"  // a tool call: an action turn
	RoleUser  Role = "User"  // context only, never scored
)

// Kind is what a scored turn is checked as.
type Kind string

// Turn kinds.
const (
	KindResponse Kind = "response"
	KindAction   Kind = "action"
	KindContext  Kind = "context"
)

// Reason names why a turn failed. The empty Reason means the turn passed.
type Reason string

// Failure reasons, listed in precedence order: when a turn fails several
// checks, the first one in this list becomes its primary FailureReason.
const (
	ReasonMissingTurn          Reason = "missing_turn"
	ReasonUnexpectedTurn       Reason = "unexpected_turn"
	ReasonToolMismatch         Reason = "tool_mismatch"
	ReasonActionMismatch       Reason = "action_mismatch"
	ReasonUnparseableArguments Reason = "unparseable_arguments"
	ReasonMissingParameters    Reason = "missing_parameters"
	ReasonExtraParameters      Reason = "extra_parameters"
	ReasonInvalidType          Reason = "invalid_parameter_type"
	ReasonInconsistentValues   Reason = "inconsistent_parameter_values"
	ReasonIncompleteResponse   Reason = "incomplete_response"
	ReasonInconsistentResponse Reason = "inconsistent_response"
	ReasonPriorActionFailed    Reason = "prior_action_failed"
)

// Reasons lists every failure reason in precedence order.
func Reasons() []Reason {
	return []Reason{
		ReasonMissingTurn, ReasonUnexpectedTurn, ReasonToolMismatch, ReasonActionMismatch,
		ReasonUnparseableArguments, ReasonMissingParameters, ReasonExtraParameters,
		ReasonInvalidType, ReasonInconsistentValues,
		ReasonIncompleteResponse, ReasonInconsistentResponse, ReasonPriorActionFailed,
	}
}

// ThresholdBound reports whether a failure of this reason comes from
// comparisons held to a similarity threshold (parameter values, replies,
// clauses), so that moving the threshold can change it. The other reasons
// are structural (a missing turn, a wrong tool, missing keys, a bad type);
// prior_action_failed is neither: it follows from an earlier turn.
func (r Reason) ThresholdBound() bool {
	switch r {
	case ReasonInconsistentValues, ReasonIncompleteResponse, ReasonInconsistentResponse:
		return true
	}
	return false
}

// Call is one tool call: the tool, the action on it and its arguments.
// Args holds decoded JSON (json.Number for numbers); in gold calls a value
// may be an alternatives spec ({"$any": [...], "$optional": true}).
type Call struct {
	ToolID string
	Action string
	Args   map[string]any
	// UnparsedArgs is a predicted call's arguments as the agent wrote them
	// when they are not a JSON object (Args is then nil): the agent's
	// mistake, failing as unparseable_arguments. Gold calls never have it.
	UnparsedArgs string
}

// Turn is one row of a golden dataset: the gold (expected) output paired
// with the predicted one.
type Turn struct {
	DialogID string
	TurnNo   int
	Role     Role

	// HasGold is false when the gold side is absent (an unexpected predicted
	// turn); HasPredict is false when the prediction is absent (a missing turn).
	HasGold    bool
	HasPredict bool

	GoldResponse    string
	PredictResponse string
	Gold            Call
	Predict         Call
	// GoldNoCall marks a Tool turn whose gold says no tool should be called
	// (an irrelevant request); HasGold is true and Gold is empty. The turn
	// passes when no call is predicted.
	GoldNoCall bool

	Tags []string
	// DependsOn lists the earlier turn numbers whose output this turn
	// consumes; nil when the dataset does not say.
	DependsOn []int
	// UserTurn is the turn_no of the User turn this turn answers, as the
	// alignment of predictions decided it (package align, for a predicted
	// step with no gold: the user turn it was made in); -1 when none is
	// known; 0 to take it from the rows (the last User turn before).
	UserTurn int

	HumanLabel *bool
	HumanScore *float64
	Weight     *float64 // nil means 1
	Critical   bool
	LatencyMS  *float64
}

// Kind reports how the turn is checked, from its role.
func (t Turn) Kind() Kind {
	switch t.Role {
	case RoleAgent:
		return KindResponse
	case RoleTool:
		return KindAction
	default:
		return KindContext
	}
}

// Dialog is one conversation: its turns in turn_no order.
type Dialog struct {
	ID    string
	Turns []Turn
	// Tools are the tool definitions offered in the dialog; nil when none
	// are given, and then no check uses a schema.
	Tools *tooldef.Set
}

// Outcome is the result of one sub-metric on one turn.
type Outcome string

// Sub-metric outcomes. OutcomeNA means the sub-metric does not apply to the
// turn (structure for a response turn, say).
const (
	OutcomePass Outcome = "pass"
	OutcomeFail Outcome = "fail"
	OutcomeNA   Outcome = "n/a"
)

// FieldScore records how one parameter value (or one reply, or one gold
// clause, or a reply's coverage) was compared.
type FieldScore struct {
	// Field is "tool.action.param" (nested: "tool.action.param.sub[0]");
	// "response" for replies, "response.coverage" for their coverage and
	// "response.clause[i]" for gold clause i (ClauseScore).
	Field  string
	Method string // one of the Method constants: "exact", "parsed_equal", "differs", "semantic", "missing", "coverage", ...
	// Kind is the kind of the gold value (values.Kind: "date", "money",
	// "identifier", "name", ...) whose comparator or threshold decided;
	// "text" for replies and their clauses; empty for a reply's coverage,
	// a container compared as a whole and a value gold does not have.
	Kind  string
	Score float64 // 1 for exact/typed matches, the similarity for semantic ones, the covered share for "coverage"
	// Threshold is the threshold the value was held to and ThresholdFrom
	// the thresholds entry it came from ("fields.<key>", "types.<type>",
	// "sub_metrics.<name>", "threshold"): set for semantic comparisons,
	// for $any values decided semantically (from the deciding alternative)
	// and for gold clauses with no predicted clause at all; zero and empty
	// otherwise.
	Threshold     float64
	ThresholdFrom string
	// By is who scored a comparison that reached the Scorer (Similarity.By:
	// "embed", "lexical", "judge", ...); empty when none did (exact, typed, missing).
	By   string
	Pass bool
	// Judge is Similarity.Judge of the deciding comparison: set when an
	// escalating scorer asked a judge about it.
	Judge *JudgeNote
	// Cosine is Similarity.Cosine of the deciding comparison: the
	// embedding similarity when Score is something else (a fitted
	// composite's probability); nil otherwise.
	Cosine *float64
}

// ClauseScore records how one clause of a gold reply was checked for
// completeness (see Metric.WithVocabulary). FieldScore holds the best
// predicted clause's comparison: Field "response.clause[i]", Method
// "exact", "semantic" or "missing" (no predicted clause), "not_required"
// for a clause that carries no task content (never compared), and Pass
// whether its score reached its threshold.
type ClauseScore struct {
	FieldScore
	// Text is the gold clause.
	Text string
	// Weight is how much task content the clause carries
	// (features.Vocabulary.Weight); Required is Weight > 0.
	Weight   float64
	Required bool
	// Predicted is the index of the best predicted clause (among
	// SplitClauses of the predicted reply) and PredictedText that clause;
	// -1 and "" when none was compared.
	Predicted     int
	PredictedText string
	// MissingAnchors are the clause's anchors (numbers, dates, times,
	// codes: features.Anchors) that the predicted reply does not state,
	// leaving out those the user said before. A clause missing one is not
	// covered, however similar its wording.
	MissingAnchors []string
	// MissingNames are the clause's names (features.MissingNames: "Alice
	// Chen", "North America") that the predicted reply does not mention by
	// any of their words or as an acronym, leaving out those the user
	// said before. A clause missing one is not covered.
	MissingNames []string
	// Covered is Required && Pass && no anchor or name is missing.
	Covered bool
}

// Verdict is the decision on one scored turn.
type Verdict struct {
	DialogID string
	TurnNo   int
	// PredictTurnNo is the predicted turn matched to this gold turn; it
	// differs from TurnNo only inside order-invariant blocks.
	PredictTurnNo int
	Kind          Kind

	Pass          bool
	FailureReason Reason   // primary reason; empty when Pass
	FailedChecks  []Reason // every failing check, in precedence order
	MissingKeys   []string
	ExtraKeys     []string
	FieldScores   []FieldScore
	// Clauses are the gold reply's clauses as completeness checked them
	// (response turns with a prediction); nil otherwise.
	Clauses []ClauseScore

	Structure    Outcome
	Completeness Outcome
	Truthfulness Outcome

	ChainLength int    // length of the action chain this turn belongs to (0 for responses)
	ChainBucket string // "single", "two_step", "three_plus"; "" for responses

	// RootCause is true for a failed turn that is not a cascade.
	RootCause bool
	// CascadeFrom is the turn_no of the root cause a cascade inherits from; 0 when none.
	CascadeFrom int
	// OwnReason is the reason the turn's own checks gave, kept for cascades
	// whose FailureReason is prior_action_failed.
	OwnReason Reason

	// Threshold is the threshold of the comparison that decided the turn's
	// semantic checks: among the FieldScores held to a threshold, the one
	// with the lowest score - threshold (the failing one, else the
	// narrowest pass). Nil when no value, reply or clause was held to a
	// threshold (exact and typed matches only, missing and unexpected
	// turns).
	Threshold *float64
	Scorer    string // Scorer.ID()

	// UserTurn is the turn_no of the User turn the turn was expected in
	// (the last User turn before a gold turn; for a prediction with no
	// gold, the one it was made in, when known); 0 when none.
	UserTurn int

	// ReadOnly marks the verdict of a read-only call kept as context
	// (Kind KindContext, see ReadOnlyCall): listed with its alignment, not
	// scored (Pass true, every sub-metric n/a, no failure reason).
	ReadOnly bool
}

// DialogResult is the composed verdict for one dialog.
type DialogResult struct {
	DialogID         string
	TurnCount        int // scored turns (Turns also holds the read-only calls kept as context)
	PassedCount      int
	SuccessRate      float64 // passed / scored, unweighted
	Score            float64 // per the composition rule
	TestPass         bool
	FirstFailureTurn int // 0 when no turn failed
	RootCause        Reason
	RootCauseCount   int
	CascadingCount   int

	StructureRate    float64 // share of turns passing structure, among those where it applies; 1 when none
	CompletenessRate float64
	TruthfulnessRate float64

	// Fields of a Strands Agents EvaluationOutput.
	Reason string // human-readable, names the failing turns
	Label  string // "pass" or "fail"

	// Turns are the verdicts of the scored turns and of the read-only
	// calls kept as context (Verdict.ReadOnly), in (TurnNo, PredictTurnNo)
	// order; ContextTurns counts the latter.
	Turns        []Verdict
	ContextTurns int
}
