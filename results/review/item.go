package review

import "strconv"

// Version is the version of review.jsonl this package writes; every item
// carries it in "review".
const Version = 1

// Item is one line of review.jsonl: one comparison of a run whose deciding
// score was uncertain, with what an annotator needs to judge it, and the
// judgement (HumanLabel, HumanScore, Note) the annotator fills in.
//
// (DialogID, Trial, TurnNo, Field) is its key: the turn of the run and the
// field path as in turns.parquet's field_scores ("crm.find.city",
// "response", "response.clause[2]").
type Item struct {
	Review int    `json:"review"` // Version
	ID     string `json:"id"`     // "r0001", in the order written

	DialogID string `json:"dialog_id"`
	Trial    *int64 `json:"trial"`
	TurnNo   int64  `json:"turn_no"`
	Field    string `json:"field"`

	Kind      string `json:"kind"`       // "action" or "response"
	SubMetric string `json:"sub_metric"` // truthfulness.values, truthfulness.response, completeness.response
	// Tool is the gold call ("sales_db.aggregate"); ToolDescription and
	// ParamDescription come from the tool definitions given to aem review
	// (--tools), empty without.
	Tool             string `json:"tool,omitempty"`
	ToolDescription  string `json:"tool_description,omitempty"`
	ParamDescription string `json:"param_description,omitempty"`

	// Gold and Predicted are the compared texts: the parameter values, the
	// replies, or a gold clause and the predicted clause closest to it
	// (the whole predicted reply for runs written before the clauses
	// column).
	Gold      string `json:"gold"`
	Predicted string `json:"predicted"`
	// GoldContext and PredictedContext are the whole call's arguments (for
	// a parameter) or the whole replies (for a clause); empty when Gold
	// and Predicted are already the whole thing.
	GoldContext      string `json:"gold_context,omitempty"`
	PredictedContext string `json:"predicted_context,omitempty"`

	// Score is the scorer's score (the first scorer's under a judge),
	// Threshold what it was held to and ThresholdFrom the entry it came
	// from; By is who decided, Verdict what was decided ("pass", "fail").
	Score         float64 `json:"score"`
	Threshold     float64 `json:"threshold"`
	ThresholdFrom string  `json:"threshold_from"`
	By            string  `json:"by"`
	Verdict       string  `json:"verdict"`
	// SamePair counts the comparisons of the run with the same gold and
	// predicted texts that lay in the band (this one included); one label
	// stands for all of them in the annotator's mind, but it is applied to
	// this key only.
	SamePair int `json:"same_pair"`

	// Run and Scorer identify where the item came from.
	Run    string `json:"run"`
	Scorer string `json:"scorer"`

	// The annotator's judgement: HumanLabel is true (the predicted value
	// means the same as the gold one), false, or null (not judged yet);
	// HumanScore an optional graded score; Note free text.
	HumanLabel *bool    `json:"human_label"`
	HumanScore *float64 `json:"human_score,omitempty"`
	Note       string   `json:"note,omitempty"`

	// Line is the 1-based line Read found the item on (0 for items not
	// read from a file); it is not written.
	Line int `json:"-"`
}

// Key identifies an item's comparison in its run.
type Key struct {
	DialogID string
	Trial    int64 // -1 for a dialog without trials
	TurnNo   int64
	Field    string
}

// Key returns the item's key.
func (it *Item) Key() Key {
	k := Key{DialogID: it.DialogID, Trial: -1, TurnNo: it.TurnNo, Field: it.Field}
	if it.Trial != nil {
		k.Trial = *it.Trial
	}
	return k
}

// String names the key in messages.
func (k Key) String() string {
	s := "dialog " + strconv.Quote(k.DialogID)
	if k.Trial >= 0 {
		s += " trial " + strconv.FormatInt(k.Trial, 10)
	}
	return s + " turn " + strconv.FormatInt(k.TurnNo, 10) + " field " + strconv.Quote(k.Field)
}

// Labelled reports whether the annotator judged the item.
func (it *Item) Labelled() bool { return it.HumanLabel != nil || it.HumanScore != nil }
