package batch

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"slices"
	"strconv"

	"github.com/aem-dev/aem/rundir"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/metrics"
)

// convertDialog turns a judged dialog into output rows.
func convertDialog(d *golden.Dialog, res *metrics.DialogResult) ([]rundir.TurnRow, []int, rundir.DialogRow, error) {
	byNo := make(map[int]int, len(d.Turns))
	for i, t := range d.Turns {
		byNo[t.TurnNo] = i
	}
	turns := make([]rundir.TurnRow, 0, len(res.Turns))
	src := make([]int, 0, len(res.Turns))
	for _, v := range res.Turns {
		gi, ok := byNo[v.TurnNo]
		if !ok {
			return nil, nil, rundir.DialogRow{}, fmt.Errorf("dialog %q: verdict for turn %d, which the dialog does not have", d.ID, v.TurnNo)
		}
		pi, ok := byNo[v.PredictTurnNo]
		if !ok {
			pi = gi
		}
		tr, err := turnRow(v, &d.Turns[gi], &d.Turns[pi])
		if err != nil {
			return nil, nil, rundir.DialogRow{}, fmt.Errorf("dialog %q turn %d: %w", d.ID, v.TurnNo, err)
		}
		tr.Trial = d.Trial
		turns = append(turns, tr)
		src = append(src, gi)
	}
	dr := rundir.DialogRow{
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
	return turns, src, dr, nil
}

func turnRow(v metrics.Verdict, gold, pred *metrics.Turn) (rundir.TurnRow, error) {
	tr := rundir.TurnRow{
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
		FieldScores:   make([]rundir.FieldScoreRow, len(v.FieldScores)),
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
		tr.FieldScores[i] = rundir.FieldScoreRow{Field: fs.Field, Method: fs.Method, Kind: optStr(fs.Kind), Score: fs.Score, Threshold: fs.Threshold,
			ThresholdFrom: fs.ThresholdFrom, Pass: fs.Pass, By: optStr(fs.By)}
		tr.FieldScores[i].Cosine, tr.FieldScores[i].JudgeReason, tr.FieldScores[i].JudgeError = judgeNote(fs.Judge)
		if fs.Cosine != nil && fs.Judge == nil {
			c := *fs.Cosine // a composite's comparison: Score is its probability
			tr.FieldScores[i].Cosine = &c
		}
	}
	if v.Clauses != nil {
		tr.Clauses = make([]rundir.ClauseRow, len(v.Clauses))
		for i := range v.Clauses {
			tr.Clauses[i] = clauseRow(&v.Clauses[i])
		}
	}
	if gold.HasGold && !gold.GoldNoCall {
		switch gold.Kind() {
		case metrics.KindAction:
			args, err := golden.EncodeArgs(gold.Gold.Args)
			if err != nil {
				return rundir.TurnRow{}, fmt.Errorf("encoding gold args: %w", err)
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
					return rundir.TurnRow{}, fmt.Errorf("encoding predicted args: %w", err)
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
func clauseRow(c *metrics.ClauseScore) rundir.ClauseRow {
	r := rundir.ClauseRow{Field: c.Field, Gold: c.Text, Weight: c.Weight, Required: c.Required, Covered: c.Covered,
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

// goldDigest hashes the gold side of every turn of a dialog: IDs, roles,
// gold outputs (a gold "no call" too), tags, dependencies, weight and
// criticality, and the dialog's tool definitions. Predictions, human labels
// and latencies are left out, and so are the turns without a gold side
// (unexpected predictions, which differ between releases), so two systems
// scored on the same golden dataset share it. Fields are length-prefixed.
func goldDigest(d *golden.Dialog) ([32]byte, error) {
	h := sha256.New()
	str := func(s string) {
		writeLen(h, len(s))
		h.Write([]byte(s))
	}
	str(d.ID)
	gold := 0
	for i := range d.Turns {
		if d.Turns[i].HasGold {
			gold++
		}
	}
	writeLen(h, gold)
	for i := range d.Turns {
		t := &d.Turns[i]
		if !t.HasGold {
			continue
		}
		str(strconv.Itoa(t.TurnNo))
		str(string(t.Role))
		str(t.GoldResponse)
		str(t.Gold.ToolID)
		str(t.Gold.Action)
		args := ""
		if t.Kind() == metrics.KindAction || len(t.Gold.Args) > 0 {
			a, err := golden.EncodeArgs(t.Gold.Args)
			if err != nil {
				return [32]byte{}, fmt.Errorf("dialog %q turn %d: encoding gold args: %w", d.ID, t.TurnNo, err)
			}
			args = a
		}
		str(args)
		tags := slices.Clone(t.Tags)
		writeLen(h, len(tags))
		for _, tag := range tags {
			str(tag)
		}
		writeLen(h, len(t.DependsOn))
		for _, dep := range t.DependsOn {
			writeLen(h, dep)
		}
		w := 1.0
		if t.Weight != nil {
			w = *t.Weight
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], math.Float64bits(w))
		h.Write(b[:])
		if t.Critical {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
		if t.GoldNoCall {
			str("no_call") // absent from datasets without it, so their digests stay as they were
		}
	}
	if d.Tools != nil {
		str("tools")
		str(string(d.Tools.JSON()))
	}
	var out [32]byte
	h.Sum(out[:0])
	return out, nil
}

func writeLen(h hash.Hash, n int) {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n))
	h.Write(b[:])
}
