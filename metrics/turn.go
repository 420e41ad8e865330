package metrics

import (
	"fmt"
	"math"
	"slices"
)

// rank orders reasons as the Reason constants are listed (precedence).
func rank(r Reason) int {
	for i, x := range []Reason{
		ReasonMissingTurn, ReasonUnexpectedTurn, ReasonToolMismatch, ReasonActionMismatch,
		ReasonMissingParameters, ReasonExtraParameters, ReasonInconsistentValues,
		ReasonIncompleteResponse, ReasonInconsistentResponse, ReasonPriorActionFailed,
	} {
		if x == r {
			return i
		}
	}
	return -1
}

// judged is one verdict plus what attribution and matching need.
type judged struct {
	v       Verdict
	row     *Turn       // the row the verdict's TurnNo names
	diffs   []valueDiff // failing values, for cascade evidence
	quality float64     // match quality in [0,1], for order-invariant assignment
}

// judger judges turns of one dialog.
type judger struct {
	cfg      Config
	sim      simFunc
	scorerID string
}

func (j *judger) newVerdict(g *Turn, predictTurnNo int) Verdict {
	return Verdict{
		DialogID: g.DialogID, TurnNo: g.TurnNo, PredictTurnNo: predictTurnNo, Kind: g.Kind(),
		Structure: OutcomeNA, Completeness: OutcomeNA, Truthfulness: OutcomeNA,
		Threshold: j.cfg.Thresholds.Threshold, Scorer: j.scorerID,
	}
}

// pair judges gold row g against the prediction of row p (g == p outside
// order-invariant blocks). Both rows must have the same role.
func (j *judger) pair(g, p *Turn) (judged, error) {
	var (
		out judged
		err error
	)
	if g.Kind() == KindAction {
		out, err = j.action(g, p)
	} else {
		out, err = j.response(g, p)
	}
	if err != nil {
		return judged{}, fmt.Errorf("dialog %q turn %d: %w", g.DialogID, g.TurnNo, err)
	}
	finish(&out.v)
	return out, nil
}

// missing is the verdict for a gold turn with no predicted counterpart.
func (j *judger) missing(g *Turn) judged {
	out := judged{v: j.newVerdict(g, 0), row: g}
	failAll(&out.v, ReasonMissingTurn)
	return out
}

// unexpected is the verdict for a predicted turn with no gold counterpart.
func (j *judger) unexpected(p *Turn) judged {
	out := judged{v: j.newVerdict(p, p.TurnNo), row: p}
	failAll(&out.v, ReasonUnexpectedTurn)
	return out
}

// failAll fails every sub-metric that applies to the verdict's kind.
func failAll(v *Verdict, r Reason) {
	if v.Kind == KindAction {
		v.Structure = OutcomeFail
	}
	v.Completeness, v.Truthfulness = OutcomeFail, OutcomeFail
	v.FailedChecks = []Reason{r}
	finish(v)
}

// finish orders the failed checks and sets Pass, FailureReason, OwnReason.
func finish(v *Verdict) {
	slices.SortFunc(v.FailedChecks, func(a, b Reason) int { return rank(a) - rank(b) })
	v.FailedChecks = slices.Compact(v.FailedChecks)
	v.Pass = len(v.FailedChecks) == 0
	v.FailureReason, v.OwnReason = "", ""
	if !v.Pass {
		v.FailureReason, v.OwnReason = v.FailedChecks[0], v.FailedChecks[0]
	}
}

func outcome(ok bool) Outcome {
	if ok {
		return OutcomePass
	}
	return OutcomeFail
}

func (v *Verdict) fail(ok bool, r Reason) {
	if !ok {
		v.FailedChecks = append(v.FailedChecks, r)
	}
}

// action judges structure, key completeness and value truthfulness.
func (j *judger) action(g, p *Turn) (judged, error) {
	out := judged{v: j.newVerdict(g, p.TurnNo), row: g}
	v := &out.v
	toolOK, actionOK := g.Gold.ToolID == p.Predict.ToolID, g.Gold.Action == p.Predict.Action
	v.fail(toolOK, ReasonToolMismatch)
	v.fail(actionOK, ReasonActionMismatch)
	v.Structure = outcome(toolOK && actionOK)

	v.MissingKeys, v.ExtraKeys = keyDiff(g.Gold.Args, p.Predict.Args)
	v.fail(len(v.MissingKeys) == 0, ReasonMissingParameters)
	v.fail(len(v.ExtraKeys) == 0, ReasonExtraParameters)
	v.Completeness = outcome(len(v.MissingKeys) == 0 && len(v.ExtraKeys) == 0)

	c := &comparer{tol: j.cfg.NumericTolerance, th: j.cfg.Thresholds, sim: j.sim}
	if err := j.values(c, g, p); err != nil {
		return judged{}, err
	}
	v.FieldScores, out.diffs = c.scores, c.diffs
	truthOK := true
	for _, s := range c.scores {
		truthOK = truthOK && (s.Pass || s.Method == MethodMissing && isTopMissing(s.Field, v.MissingKeys, g))
	}
	v.fail(truthOK, ReasonInconsistentValues)
	v.Truthfulness = outcome(truthOK)
	out.quality = (b2f(toolOK) + b2f(actionOK) + keyJaccard(g.Gold.Args, p.Predict.Args) + c.meanScore()) / 4
	return out, nil
}

// values compares every gold parameter in key order: missing top-level keys
// are recorded with method "missing"; present ones go through the chain.
func (j *judger) values(c *comparer, g, p *Turn) error {
	base := g.Gold.ToolID + "." + g.Gold.Action
	for _, k := range sortedKeys(g.Gold.Args) {
		path := base + "." + k
		pv, present := p.Predict.Args[k]
		if !present {
			if sp, ok := specOf(g.Gold.Args[k]); !ok || !sp.optional {
				c.scores = append(c.scores, FieldScore{Field: path, Method: MethodMissing})
			}
			continue
		}
		if err := c.value(path, path, g.Gold.Args[k], pv, true); err != nil {
			return err
		}
	}
	return nil
}

// isTopMissing reports whether a "missing" score is a top-level missing key
// (a completeness failure, not a truthfulness one).
func isTopMissing(field string, missing []string, g *Turn) bool {
	base := g.Gold.ToolID + "." + g.Gold.Action + "."
	for _, k := range missing {
		if field == base+k {
			return true
		}
	}
	return false
}

// keyDiff returns the required gold keys absent from pred and the pred keys
// absent from gold, each sorted. Gold keys whose spec is $optional may be
// absent.
func keyDiff(gold, pred map[string]any) (missing, extra []string) {
	for _, k := range sortedKeys(gold) {
		if _, ok := pred[k]; ok {
			continue
		}
		if sp, ok := specOf(gold[k]); ok && sp.optional {
			continue
		}
		missing = append(missing, k)
	}
	for _, k := range sortedKeys(pred) {
		if _, ok := gold[k]; !ok {
			extra = append(extra, k)
		}
	}
	return missing, extra
}

// keyJaccard is |common keys| / |all keys|, 1 when both are empty.
func keyJaccard(gold, pred map[string]any) float64 {
	common, all := 0, len(pred)
	for k := range gold {
		if _, ok := pred[k]; ok {
			common++
		} else {
			all++
		}
	}
	if all == 0 {
		return 1
	}
	return float64(common) / float64(all)
}

// response judges clause coverage (completeness) and whole-reply
// similarity (truthfulness).
func (j *judger) response(g, p *Turn) (judged, error) {
	out := judged{v: j.newVerdict(g, p.TurnNo), row: g}
	v := &out.v
	gold, pred := g.GoldResponse, p.PredictResponse
	th := j.cfg.Thresholds.For(SubTruthResponse, "")
	truth := FieldScore{Field: "response", Method: MethodExact, Score: 1, Pass: true}
	if gold != pred {
		s, err := j.sim(Comparison{Kind: CompareReply, Field: "response", Gold: gold, Predicted: pred})
		if err != nil {
			return judged{}, fmt.Errorf("response: %w", err)
		}
		truth = FieldScore{Field: "response", Method: MethodSemantic, Score: s.Score, Threshold: th, By: s.By, Pass: s.Score >= th}
	}
	clauses, coverage, err := j.coverage(gold, pred)
	if err != nil {
		return judged{}, err
	}
	complete := true
	for _, cs := range clauses {
		complete = complete && cs.Pass
	}
	v.FieldScores = append([]FieldScore{truth}, clauses...)
	v.fail(complete, ReasonIncompleteResponse)
	v.fail(truth.Pass, ReasonInconsistentResponse)
	v.Completeness, v.Truthfulness = outcome(complete), outcome(truth.Pass)
	if !complete || !truth.Pass {
		out.diffs = []valueDiff{{gold: []string{gold}, pred: pred}}
	}
	out.quality = (clamp01(truth.Score) + coverage) / 2
	return out, nil
}

// coverage scores every gold clause by its best-matching predicted clause.
// A clause found verbatim is exact and needs no scorer call.
func (j *judger) coverage(gold, pred string) ([]FieldScore, float64, error) {
	th := j.cfg.Thresholds.For(SubCompleteResponse, "")
	gc, pc := SplitClauses(gold), SplitClauses(pred)
	scores := make([]FieldScore, 0, len(gc))
	sum := 0.0
	for i, g := range gc {
		fs := FieldScore{Field: fmt.Sprintf("response.clause[%d]", i), Method: MethodMissing, Threshold: th}
		if slices.Contains(pc, g) {
			fs = FieldScore{Field: fs.Field, Method: MethodExact, Score: 1, Pass: true}
		} else if len(pc) > 0 {
			best, err := j.bestClause(fs.Field, g, pc)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", fs.Field, err)
			}
			fs.Method, fs.Score, fs.By, fs.Pass = MethodSemantic, best.Score, best.By, best.Score >= th
		}
		sum += clamp01(fs.Score)
		scores = append(scores, fs)
	}
	if len(gc) == 0 {
		return scores, 1, nil
	}
	return scores, sum / float64(len(gc)), nil
}

// bestClause is the best similarity of gold clause g (at field) with any
// predicted clause; the first of equal scores wins.
func (j *judger) bestClause(field, g string, pc []string) (Similarity, error) {
	best := Similarity{Score: math.Inf(-1)}
	for _, p := range pc {
		s, err := j.sim(Comparison{Kind: CompareClause, Field: field, Gold: g, Predicted: p})
		if err != nil {
			return Similarity{}, err
		}
		if s.Score > best.Score {
			best = s
		}
	}
	return best, nil
}
