package rundir

import (
	"fmt"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
)

// RowsOf is the Parquet projection of a judged dialog, the one place
// verdicts become rows: one TurnRow per verdict of res, each with the gold
// and predicted outputs of the turns of d it judges (gold[i] is the index
// in d.Turns of the turn TurnRow i judges), and the dialog's DialogRow.
// TurnRow.Verdict and DialogRow.Result go the other way. Package batch
// calls it as it commits each dialog; a new column is filled here.
func RowsOf(d *golden.Dialog, res *metrics.DialogResult) (turns []TurnRow, gold []int, dialog DialogRow, err error) {
	byNo := make(map[int]int, len(d.Turns))
	for i, t := range d.Turns {
		byNo[t.TurnNo] = i
	}
	turns = make([]TurnRow, 0, len(res.Turns))
	gold = make([]int, 0, len(res.Turns))
	for _, v := range res.Turns {
		gi, ok := byNo[v.TurnNo]
		if !ok {
			return nil, nil, DialogRow{}, fmt.Errorf("dialog %q: verdict for turn %d, which the dialog does not have", d.ID, v.TurnNo)
		}
		pi, ok := byNo[v.PredictTurnNo]
		if !ok {
			pi = gi
		}
		tr, err := turnRow(v, &d.Turns[gi], &d.Turns[pi])
		if err != nil {
			return nil, nil, DialogRow{}, fmt.Errorf("dialog %q turn %d: %w", d.ID, v.TurnNo, err)
		}
		tr.Trial = d.Trial
		turns = append(turns, tr)
		gold = append(gold, gi)
	}
	dr := DialogRow{
		DialogID:         res.DialogID,
		TurnCount:        int64(res.TurnCount),
		PassedCount:      int64(res.PassedCount),
		SuccessRate:      res.SuccessRate,
		TestPass:         res.TestPass,
		FirstFailureTurn: optInt(res.FirstFailureTurn),
		RootCause:        optStr(string(res.RootCause)),
		RootCauseCount:   int64(res.RootCauseCount),
		CascadingCount:   int64(res.CascadingCount),
		StructureRate:    res.StructureRate,
		CompletenessRate: res.CompletenessRate,
		TruthfulnessRate: res.TruthfulnessRate,
		Score:            res.Score,
		Reason:           res.Reason,
		Label:            res.Label,
		Trial:            d.Trial,
	}
	var lat float64
	hasLat := false
	for _, t := range d.Turns {
		if t.LatencyMS != nil {
			lat += *t.LatencyMS
			hasLat = true
		}
	}
	if hasLat {
		dr.LatencyMS = &lat
	}
	return turns, gold, dr, nil
}

func turnRow(v metrics.Verdict, gold, pred *metrics.Turn) (TurnRow, error) {
	tr := TurnRow{
		DialogID:      v.DialogID,
		TurnNo:        int64(v.TurnNo),
		PredictTurnNo: int64(v.PredictTurnNo),
		Role:          string(gold.Role),
		Kind:          string(v.Kind),
		Pass:          v.Pass,
		FailureReason: optStr(string(v.FailureReason)),
		FailedChecks:  reasons(v.FailedChecks),
		MissingKeys:   nonNil(v.MissingKeys),
		ExtraKeys:     nonNil(v.ExtraKeys),
		FieldScores:   make([]FieldScoreRow, len(v.FieldScores)),
		Structure:     string(v.Structure),
		Completeness:  string(v.Completeness),
		Truthfulness:  string(v.Truthfulness),
		ChainLength:   int64(v.ChainLength),
		ChainBucket:   optStr(v.ChainBucket),
		RootCause:     v.RootCause,
		CascadeFrom:   optInt(v.CascadeFrom),
		OwnReason:     optStr(string(v.OwnReason)),
		Tags:          nonNil(gold.Tags),
		HumanLabel:    gold.HumanLabel,
		HumanScore:    gold.HumanScore,
		Weight:        gold.Weight,
		Critical:      gold.Critical,
		LatencyMS:     gold.LatencyMS,
		Threshold:     v.Threshold,
		Scorer:        v.Scorer,
		ReadOnly:      &v.ReadOnly,
		UserTurn:      optInt(v.UserTurn),
	}
	for i, fs := range v.FieldScores {
		tr.FieldScores[i] = FieldScoreRow{Field: fs.Field, Method: fs.Method, Kind: optStr(fs.Kind), Score: fs.Score, Threshold: fs.Threshold,
			ThresholdFrom: fs.ThresholdFrom, Pass: fs.Pass, By: optStr(fs.By)}
		tr.FieldScores[i].Cosine, tr.FieldScores[i].JudgeReason, tr.FieldScores[i].JudgeError = judgeNote(fs.Judge)
		if fs.Cosine != nil && fs.Judge == nil {
			c := *fs.Cosine // a composite's comparison: Score is its probability
			tr.FieldScores[i].Cosine = &c
		}
	}
	if v.Clauses != nil {
		tr.Clauses = make([]ClauseRow, len(v.Clauses))
		for i := range v.Clauses {
			tr.Clauses[i] = clauseRow(&v.Clauses[i])
		}
	}
	if gold.HasGold && !gold.GoldNoCall {
		switch gold.Kind() {
		case metrics.KindAction:
			args, err := golden.EncodeArgs(gold.Gold.Args)
			if err != nil {
				return TurnRow{}, fmt.Errorf("encoding gold args: %w", err)
			}
			tr.GoldToolID, tr.GoldAction, tr.GoldArgs = &gold.Gold.ToolID, &gold.Gold.Action, &args
		case metrics.KindResponse:
			tr.GoldResponse = &gold.GoldResponse
		}
	}
	if pred.HasPredict {
		switch pred.Kind() {
		case metrics.KindAction:
			args := pred.Predict.UnparsedArgs // the agent's malformed output, as it was
			if args == "" {
				var err error
				if args, err = golden.EncodeArgs(pred.Predict.Args); err != nil {
					return TurnRow{}, fmt.Errorf("encoding predicted args: %w", err)
				}
			}
			tr.PredictToolID, tr.PredictAction, tr.PredictArgs = &pred.Predict.ToolID, &pred.Predict.Action, &args
		case metrics.KindResponse:
			tr.PredictResponse = &pred.PredictResponse
		}
	}
	return tr, nil
}

// judgeNote is what a row records of a judge's note: the embedding
// cosine, the judge's reason, or why it gave none; all nil without a note.
func judgeNote(n *metrics.JudgeNote) (cosine *float64, reason, failure *string) {
	if n == nil {
		return nil, nil, nil
	}
	cos := n.Cosine
	return &cos, optStr(n.Reason), optStr(n.Error)
}

// clauseRow records one gold clause; a clause that was never compared
// (not required) has no predicted clause, score or threshold.
func clauseRow(c *metrics.ClauseScore) ClauseRow {
	r := ClauseRow{Field: c.Field, Gold: c.Text, Weight: c.Weight, Required: c.Required, Covered: c.Covered,
		Method: c.Method, Pass: c.Pass, MissingAnchors: nonNil(c.MissingAnchors), MissingNames: nonNil(c.MissingNames), By: optStr(c.By)}
	if c.Predicted >= 0 {
		k := int64(c.Predicted)
		r.Predicted, r.PredictedText = &k, &c.PredictedText
	}
	if c.Required {
		score, th := c.Score, c.Threshold
		r.Score, r.Threshold, r.ThresholdFrom = &score, &th, optStr(c.ThresholdFrom)
	}
	r.Cosine, r.JudgeReason, r.JudgeError = judgeNote(c.Judge)
	return r
}

func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func optInt(n int) *int64 {
	if n == 0 {
		return nil
	}
	v := int64(n)
	return &v
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func reasons(rs []metrics.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}

// Verdict is what the row keeps of the turn's verdict, as a
// metrics.Verdict: kind, pass, the reasons, the cascade, the keys, the
// field scores, the user turn and whether it is read-only context (not the
// gold and predicted values, nor the clauses): RowsOf read backwards.
// Readers that explain verdicts (evalevents) build on it.
func (t *TurnRow) Verdict() metrics.Verdict {
	v := metrics.Verdict{DialogID: t.DialogID, TurnNo: int(t.TurnNo), PredictTurnNo: int(t.PredictTurnNo), Pass: t.Pass,
		FailureReason: metrics.Reason(orEmpty(t.FailureReason)), OwnReason: metrics.Reason(orEmpty(t.OwnReason)),
		MissingKeys: t.MissingKeys, ExtraKeys: t.ExtraKeys, Kind: metrics.Kind(t.Kind), ReadOnly: t.Context()}
	if t.UserTurn != nil {
		v.UserTurn = int(*t.UserTurn)
	}
	if t.CascadeFrom != nil {
		v.CascadeFrom = int(*t.CascadeFrom)
	}
	for _, fs := range t.FieldScores {
		v.FieldScores = append(v.FieldScores, metrics.FieldScore{Field: fs.Field, Method: fs.Method, Kind: orEmpty(fs.Kind), Score: fs.Score, Threshold: fs.Threshold, Pass: fs.Pass})
	}
	return v
}

// Result is the row's composed verdict as a metrics.DialogResult, without
// its turns.
func (d *DialogRow) Result() metrics.DialogResult {
	return metrics.DialogResult{DialogID: d.DialogID, Score: d.Score, TestPass: d.TestPass, Reason: d.Reason,
		RootCause: metrics.Reason(orEmpty(d.RootCause))}
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
