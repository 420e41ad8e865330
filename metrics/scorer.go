package metrics

import "context"

// CompareKind says what a semantic comparison compares; a scorer that
// prompts a model (a judge) words its question by it.
type CompareKind string

// Comparison kinds.
const (
	// CompareValue is a string parameter value of an action turn (a leaf
	// of a nested value, or one $any alternative).
	CompareValue CompareKind = "value"
	// CompareReply is a whole predicted reply against the gold reply
	// (truthfulness of a response turn).
	CompareReply CompareKind = "reply"
	// CompareClause is one gold clause against one predicted clause
	// (completeness of a response turn).
	CompareClause CompareKind = "clause"
)

// Comparison is one semantic comparison the metric asks its Scorer to
// score: what is compared (Kind, Field, Context) besides the two strings.
// Gold and Predicted always differ: identical strings are decided without
// a scorer. Comparison is comparable and is the key of Similarities, so
// the same question is asked once per Compare call.
type Comparison struct {
	Kind CompareKind
	// Field is where the strings sit: "tool.action.param" or a nested path
	// such as "tool.action.param.sub[0]" for values, "response" for
	// replies, "response.clause[i]" (i = the gold clause) for clauses.
	Field string
	// Context describes the field for a scorer that can use it (a judge):
	// for values, "<tool>: <tool description>" and "<param>: <parameter
	// description>" on separate lines, each when the dialog's tool
	// definitions give it; empty otherwise, and for replies and clauses.
	Context string
	// ValueKind is the gold value's kind (package values: "name",
	// "category", "text", ...) for value comparisons; empty for replies
	// and clauses. A scorer fitted per kind (a composite) picks its model
	// by it.
	ValueKind string
	Gold      string
	Predicted string
	// Among groups alternatives: comparisons with the same Kind, Field,
	// Gold and a non-empty Among are one decision, which the best of them
	// makes (a gold clause against each clause of one predicted reply;
	// Among is those clauses, one a line). A scorer that pays per
	// comparison (an LLM judge) may leave alternatives that cannot change
	// the decision undecided (Similarity.Spared). Empty for values and
	// whole replies.
	Among string
	// Moot marks a comparison the metric records but whose score decides
	// no verdict: a gold clause whose numbers, dates, codes or names the
	// predicted reply lacks is not covered, however similar its wording.
	// A scorer that pays per comparison answers it the cheapest way it has.
	Moot bool
}

// Deciders recorded in Similarity.By and FieldScore.By: who scored a
// semantic comparison. A scorer names itself with one of these or with
// its own short name (a judge: "judge"; a fitted composite: "composite").
const (
	ByEmbed   = "embed"   // embedding cosine (package embed)
	ByLexical = "lexical" // Lexical: word and trigram overlap
	ByJudge   = "judge"   // an LLM judge (package judge), held to JudgeThreshold
)

// Similarity is a Scorer's answer for one Comparison. The comparison
// passes when Score >= the threshold the thresholds lookup gives for its
// field, sub-metric and decider (see Thresholds.For).
//
// Extension point: a scorer with more to say (a judge's reason, the
// cosine an escalation started from) adds fields here; metrics copies
// what it records into FieldScore.
type Similarity struct {
	Score float64 // in [-1, 1]; 1 = same meaning. NaN is refused.
	By    string  // who decided: ByEmbed, ByLexical, ByJudge, "composite", ...
	// Cosine is the embedding similarity a decider started from when Score
	// is not it (a fitted composite's probability, a judge's score); nil
	// otherwise.
	Cosine *float64
	// Judge is set by an escalating scorer (embed+judge) on the
	// comparisons it sent to a judge; nil otherwise.
	Judge *JudgeNote
	// Spared is set by an escalating scorer on an alternative (see
	// Comparison.Among) it did not send to the judge although its first
	// score lay in the band, because another alternative decides the
	// same question: one scored above the band, or one the judge found
	// equivalent scoring at least as high. Score is the first scorer's;
	// the metric never keeps a spared alternative as the best.
	Spared bool
}

// JudgeNote is what an escalating scorer records about a comparison it
// sent to a judge.
type JudgeNote struct {
	// FirstScore is the first scorer's score (the embedding cosine, or the
	// fitted composite's probability) that lay in the uncertain band, and
	// FirstBy who that scorer was (ByEmbed, ...).
	FirstScore float64
	FirstBy    string
	// Cosine is the embedding similarity the first scorer started from:
	// FirstScore itself for a similarity, the cosine under a fitted
	// composite's probability (Similarity.Cosine). turns.parquet's cosine
	// column holds it, so that one column never mixes two scales.
	Cosine float64
	// Reason is the judge's one-sentence reason; empty on a judge error.
	Reason string
	// Error says why the judge gave no answer; the first scorer then
	// decided (Similarity.By is its, Score the FirstScore).
	Error string
}

// JudgeThreshold is the threshold a judge's decision (By == ByJudge) is
// held to, whatever the thresholds lookup holds for the field (Thresholds.For
// gives it, from "judge"): a judge's score is at least 0.5 exactly when it
// answered "equivalent".
const JudgeThreshold = 0.5

// Scorer scores semantic comparisons. Compare returns one Similarity per
// comparison, in order. Implementations batch internally and must be safe
// for concurrent use. ID names the scorer and its model (for example
// "embed:use-lite@sha256:…") and is recorded in every output.
type Scorer interface {
	Compare(ctx context.Context, cs []Comparison) ([]Similarity, error)
	ID() string
}
