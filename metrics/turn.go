package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/values"
	"github.com/aem-dev/aem/tooldef"
)

// rank orders reasons as Reasons lists them (precedence).
func rank(r Reason) int { return slices.Index(Reasons(), r) }

// decided is one verdict plus what attribution and matching need.
type decided struct {
	v       Verdict
	row     *Turn       // the row the verdict's TurnNo names
	diffs   []valueDiff // failing values, for cascade evidence
	quality float64     // match quality in [0,1], for order-invariant assignment
}

// decider decides the verdicts of one dialog's turns.
type decider struct {
	cfg        *Config         // the Metric's, validated once by New
	kinds      values.Comparer // the value kinds' comparators, with cfg's numeric tolerance
	sim        simFunc
	scorerID   string
	tools      *tooldef.Set // the dialog's tool definitions; nil when none
	vocab      *features.Vocabulary
	rows       []Turn      // the dialog's rows, sorted by TurnNo (User rows give context)
	utterances []utterance // the User rows, analyzed once (contextBefore)
	plan       *dialogPlan // what both passes of a Plan share; nil: worked out at each use
}

// utterance is what the user said at a turn.
type utterance struct {
	turnNo int
	text   features.Text
}

// decide is the metric's one comparison site: the scorer's answer s for
// the comparison at field passes when its score is >= the threshold the
// lookup gives for q, asked with s's decider. Every semantic FieldScore
// comes from here, with the threshold applied and the entry it came from.
func (j *decider) decide(field string, q ThresholdQuery, s Similarity) FieldScore {
	q.By = s.By
	th := j.cfg.Thresholds.For(q)
	return FieldScore{Field: field, Method: MethodSemantic, Score: s.Score, Threshold: th.Value, ThresholdFrom: th.From, By: s.By,
		Judge: s.Judge, Cosine: s.Cosine, Pass: s.Score >= th.Value}
}

func (j *decider) newVerdict(g *Turn, predictTurnNo int) Verdict {
	return Verdict{
		DialogID: g.DialogID, TurnNo: g.TurnNo, PredictTurnNo: predictTurnNo, Kind: g.Kind(),
		Structure: OutcomeNA, Completeness: OutcomeNA, Truthfulness: OutcomeNA,
		Scorer: j.scorerID, UserTurn: j.userTurn(g),
	}
}

// userTurn is the turn_no of the User turn t answers (Verdict.UserTurn):
// the one the alignment gave it, else the last User row before it; 0 when
// none.
func (j *decider) userTurn(t *Turn) int {
	switch {
	case t.UserTurn > 0:
		return t.UserTurn
	case t.UserTurn < 0:
		return 0
	}
	last := 0
	for _, u := range j.utterances {
		if u.turnNo < t.TurnNo {
			last = u.turnNo
		}
	}
	return last
}

// pair decides gold row g against the prediction of row p (g == p outside
// order-invariant blocks). Both rows must have the same role.
func (j *decider) pair(g, p *Turn) (decided, error) {
	var (
		out decided
		err error
	)
	if g.GoldNoCall {
		return j.unexpected(p), nil // a call where gold says none should be made
	}
	if g.Kind() == KindAction {
		out, err = j.action(g, p)
	} else {
		out, err = j.response(g, p)
	}
	if err != nil {
		return decided{}, fmt.Errorf("dialog %q turn %d: %w", g.DialogID, g.TurnNo, err)
	}
	if d, ok := deciding(out.v.FieldScores, out.v.Clauses...); ok {
		out.v.Threshold = &d.Threshold
	}
	finish(&out.v)
	return out, nil
}

// missing is the verdict for a gold turn with no predicted counterpart:
// missing_turn, or a pass when gold says no call should be made.
func (j *decider) missing(g *Turn) decided {
	out := decided{v: j.newVerdict(g, 0), row: g, quality: 1}
	if g.GoldNoCall {
		out.v.Structure, out.v.Completeness, out.v.Truthfulness = OutcomePass, OutcomePass, OutcomePass
		finish(&out.v)
		return out
	}
	failAll(&out.v, ReasonMissingTurn)
	return out
}

// unexpected is the verdict for a predicted turn with no gold counterpart.
func (j *decider) unexpected(p *Turn) decided {
	out := decided{v: j.newVerdict(p, p.TurnNo), row: p}
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

// action checks structure, key completeness and value truthfulness; with
// tool definitions also whether the predicted tool is offered and the
// predicted values' types.
func (j *decider) action(g, p *Turn) (decided, error) {
	out := decided{v: j.newVerdict(g, p.TurnNo), row: g}
	v := &out.v
	wins := goldWinsOf(GoldConflicts(j.tools, g.Gold))
	toolOK, actionOK, offered := j.structure(g.Gold, p.Predict, wins)
	v.fail(toolOK, ReasonToolMismatch)
	v.fail(actionOK, ReasonActionMismatch)
	v.Structure = outcome(toolOK && actionOK)
	if !offered {
		v.FieldScores = append(v.FieldScores, FieldScore{Field: p.Predict.FunctionName(), Method: MethodNotOffered})
	}
	if p.Predict.UnparsedArgs != "" {
		v.fail(false, ReasonUnparseableArguments)
		v.Completeness, v.Truthfulness = OutcomeFail, OutcomeFail
		v.FieldScores = append(v.FieldScores, FieldScore{Field: g.Gold.FieldBase(), Method: MethodUnparseable})
		out.quality = (b2f(toolOK) + b2f(actionOK)) / 4
		return out, nil
	}

	tool := j.tools.Resolve(g.Gold.DefinitionNames()...)
	v.MissingKeys, v.ExtraKeys = keyDiff(g.Gold.Args, p.Predict.Args, tool)
	v.fail(len(v.MissingKeys) == 0, ReasonMissingParameters)
	v.fail(len(v.ExtraKeys) == 0, ReasonExtraParameters)
	v.Completeness = outcome(len(v.MissingKeys) == 0 && len(v.ExtraKeys) == 0)

	c := &comparer{j: j, badType: j.typeErrors(g.Gold, p.Predict, wins), tool: tool, base: g.Gold.FieldBase()}
	if err := j.values(c, g, p, tool); err != nil {
		return decided{}, err
	}
	c.typesUnvisited()
	v.FieldScores, out.diffs = append(v.FieldScores, c.scores...), c.diffs
	typeOK, valuesOK := true, true
	for _, s := range c.scores {
		switch {
		case s.Method == MethodType:
			typeOK = false
		case !s.Pass && !(s.Method == MethodMissing && isTopMissing(s.Field, v.MissingKeys, g)):
			valuesOK = false
		}
	}
	v.fail(typeOK, ReasonInvalidType)
	v.fail(valuesOK, ReasonInconsistentValues)
	v.Truthfulness = outcome(typeOK && valuesOK)
	out.quality = (b2f(toolOK) + b2f(actionOK) + keyJaccard(g.Gold.Args, p.Predict.Args) + c.meanScore()) / 4
	return out, nil
}

// structure compares the calls' names. With tool definitions, a predicted
// tool they do not offer is a tool mismatch (offered false), unless it is
// the gold's own tool, which they do not offer either (the gold wins), and
// two names that find the same definition match (math_factorial for
// math.factorial).
func (j *decider) structure(gold, pred Call, wins goldWins) (toolOK, actionOK, offered bool) {
	gt, ga := Named(gold.ToolID, gold.Action)
	pt, pa := Named(pred.ToolID, pred.Action)
	toolOK, actionOK = gt == pt, ga == pa
	if j.tools == nil {
		return toolOK, actionOK, true
	}
	def := j.tools.Resolve(pred.DefinitionNames()...)
	switch {
	case def == nil && toolOK && actionOK && wins.waives("", RuleOffered):
		return true, true, true
	case def == nil:
		return false, actionOK, false
	case def == j.tools.Resolve(gold.DefinitionNames()...):
		return true, true, true
	}
	return toolOK, actionOK, true
}

// typeErrors maps the path of every predicted value that breaks its tool's
// schema in its type or shape to the violation's detail: a type the schema
// does not allow at any depth, and, below the top level, a required key
// left out or a key a closed object does not allow (at the top level those
// are missing_parameters and extra_parameters, checked against gold). Nil
// without tool definitions or when the predicted tool is not offered. A
// rule the gold call itself breaks at a field (wins) is not applied there;
// where it breaks the type, the gold's type is held instead.
func (j *decider) typeErrors(gold, pred Call, wins goldWins) map[string]string {
	pt := j.tools.Resolve(pred.DefinitionNames()...)
	if pt == nil {
		return nil
	}
	base := gold.FieldBase()
	var out map[string]string
	add := func(field, detail string) {
		if out == nil {
			out = map[string]string{}
		}
		out[base+"."+field] = detail
	}
	for _, viol := range pt.ValidateArgs(pred.Args) {
		if shapeRule(viol) && !wins.waives(viol.Field, viol.Rule) {
			add(viol.Field, viol.Detail)
		}
	}
	for field, detail := range wins.goldTypeErrors(gold.Args, pred.Args) {
		add(field, detail)
	}
	return out
}

// values compares every gold parameter in key order: missing top-level keys
// are recorded with method "missing" (unless they may be left out: see
// omittable), or "default" when their default is the gold value; present
// ones go through the chain. A parameter the prediction gives where gold
// leaves it out, with its default, is recorded "default" too.
func (j *decider) values(c *comparer, g, p *Turn, tool *tooldef.Tool) error {
	base := g.Gold.FieldBase()
	for _, k := range sortedKeys(g.Gold.Args) {
		path := base + "." + k
		pv, present := p.Predict.Args[k]
		switch {
		case present:
			if err := c.value(path, paramOf(tool, path, k), g.Gold.Args[k], pv, true); err != nil {
				return err
			}
		case defaulted(tool.Args(), k, g.Gold.Args[k]):
			c.scores = append(c.scores, defaultScore(path))
		case !omittable(tool, k, g.Gold.Args[k]):
			c.scores = append(c.scores, FieldScore{Field: path, Method: MethodMissing})
		}
	}
	for _, k := range sortedKeys(p.Predict.Args) {
		if _, inGold := g.Gold.Args[k]; !inGold && givenDefault(tool.Args(), k, p.Predict.Args[k]) {
			c.scores = append(c.scores, defaultScore(base+"."+k))
		}
	}
	return nil
}

// isTopMissing reports whether a "missing" score is a top-level missing key
// (a completeness failure, not a truthfulness one).
func isTopMissing(field string, missing []string, g *Turn) bool {
	base := g.Gold.FieldBase() + "."
	for _, k := range missing {
		if field == base+k {
			return true
		}
	}
	return false
}

// keyDiff returns the gold keys absent from pred that may not be left out
// (see omittable) and the pred keys absent from gold that are not a
// parameter of the tool given its default, each sorted.
func keyDiff(gold, pred map[string]any, tool *tooldef.Tool) (missing, extra []string) {
	for _, k := range sortedKeys(gold) {
		if _, ok := pred[k]; ok || omittable(tool, k, gold[k]) {
			continue
		}
		missing = append(missing, k)
	}
	for _, k := range sortedKeys(pred) {
		if _, ok := gold[k]; ok || givenDefault(tool.Args(), k, pred[k]) {
			continue
		}
		extra = append(extra, k)
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

// response checks clause coverage (completeness) and truthfulness: the
// whole-reply similarity, and the reply's hard facts against the gold
// reply's. A reply that contradicts a gold fact (another amount, date,
// time, weekday, identifier or name; a no for a yes; a negated statement)
// fails truthfulness whatever its similarity, with a FieldScore of method
// "contradicted" naming both facts, whether or not the user stated the
// fact first: what the user said may excuse a reply for not repeating a
// fact (completeness), never for contradicting it.
func (j *decider) response(g, p *Turn) (decided, error) {
	out := decided{v: j.newVerdict(g, p.TurnNo), row: g}
	v := &out.v
	gold, pred := g.GoldResponse, p.PredictResponse
	truth := FieldScore{Field: "response", Method: MethodExact, Score: 1, Pass: true}
	if gold != pred {
		s, err := j.sim(Comparison{Kind: CompareReply, Field: "response", Gold: gold, Predicted: pred})
		if err != nil {
			return decided{}, fmt.Errorf("response: %w", err)
		}
		truth = j.decide("response", ThresholdQuery{SubMetric: SubTruthResponse}, s)
	}
	truth.Kind = string(values.Text)
	plan := j.replyPlan(gold, pred, g.TurnNo)
	clauses, coverage, err := j.coverage(plan)
	if err != nil {
		return decided{}, err
	}
	v.FieldScores, v.Clauses = []FieldScore{truth, coverage}, clauses
	for _, c := range plan.contradictions {
		v.FieldScores = append(v.FieldScores, FieldScore{Field: FactField(c), Method: MethodContradicted, Kind: string(values.Text)})
	}
	truthful := truth.Pass && len(plan.contradictions) == 0
	v.fail(coverage.Pass, ReasonIncompleteResponse)
	v.fail(truthful, ReasonInconsistentResponse)
	v.Completeness, v.Truthfulness = outcome(coverage.Pass), outcome(truthful)
	if !coverage.Pass || !truthful {
		out.diffs = []valueDiff{{gold: []string{gold}, pred: pred}}
	}
	out.quality = (clamp01(truth.Score) + coverage.Score) / 2
	return out, nil
}

// contextBefore is what the user said in the dialog before turn turnNo:
// restating it carries no task content.
func (j *decider) contextBefore(turnNo int) features.Context {
	ctx := features.Context{}
	for _, u := range j.utterances {
		if u.turnNo >= turnNo {
			break
		}
		ctx.AddUtterance(u.text)
	}
	return ctx
}

// userUtterances are the User rows of rows (sorted by TurnNo), analyzed.
func userUtterances(rows []Turn) []utterance {
	var out []utterance
	for _, r := range rows {
		if r.Role == RoleUser {
			out = append(out, utterance{r.TurnNo, features.Analyze(r.GoldResponse)})
		}
	}
	return out
}

// coverage checks every gold clause of plan and returns the reply's
// coverage: the share of the required clauses' weight that the prediction
// covers, held to Thresholds.Coverage. A clause is required when it
// carries task content (its weight, given what the user said before, is
// above 0); it is covered when its best-matching predicted clause passes
// the completeness.clause threshold and the predicted reply states every
// anchor and mentions every name of the clause the user did not state
// first. A clause found verbatim is exact and needs no scorer call; a
// clause that is not required is never compared. With no required clause
// the coverage is 1.
func (j *decider) coverage(plan *replyPlan) ([]ClauseScore, FieldScore, error) {
	out := slices.Clone(plan.gold)
	var required, covered float64
	for i := range out {
		cs := &out[i]
		if !cs.Required {
			continue
		}
		// Missing an anchor or a name, the clause is not covered whatever
		// its similarity: its comparisons are moot.
		if err := j.bestClause(cs, plan, len(cs.MissingAnchors) > 0 || len(cs.MissingNames) > 0); err != nil {
			return nil, FieldScore{}, fmt.Errorf("%s: %w", cs.Field, err)
		}
		cs.Covered = cs.Pass && len(cs.MissingAnchors) == 0 && len(cs.MissingNames) == 0
		required += cs.Weight
		if cs.Covered {
			covered += cs.Weight
		}
	}
	share := 1.0
	if required > 0 {
		share = covered / required
	}
	th := j.cfg.Thresholds.Coverage()
	return out, FieldScore{Field: "response.coverage", Method: MethodCoverage, Score: share, Threshold: th.Value,
		ThresholdFrom: th.From, Pass: share >= th.Value}, nil
}

// replyPlan is what coverage works out about a gold reply and a predicted
// one before any comparison: both split into clauses, and each gold
// clause's weight, whether it is required, and the anchors and names of it
// the prediction misses. It depends on the two texts and on what the user
// said before the turn, nothing else, so a Plan keeps it from the pass
// that lists a dialog's comparisons to the pass that decides it.
type replyPlan struct {
	gold  []ClauseScore // one per gold clause, before its comparisons
	pred  []string      // the predicted reply's clauses
	among string        // pred joined by newlines: Comparison.Among
	// contradictions are the predicted reply's facts that contradict the
	// gold reply's (values.Contradictions), whatever the user said.
	contradictions []values.Contradiction
}

// FactPrefix starts the Field of a reply's contradicted fact:
// "response.fact(amount): \"$89.00\" vs \"$98.00\"" (see FactField).
const FactPrefix = "response.fact("

// FactField is the Field of the FieldScore that records a contradicted
// fact of a reply: its kind, the gold fact and the predicted one.
func FactField(c values.Contradiction) string {
	return fmt.Sprintf("%s%s): %q vs %q", FactPrefix, c.Kind, c.Gold, c.Pred)
}

// replyKey identifies a replyPlan within a dialog: the gold turn (what the
// user said before it) and the two replies.
type replyKey struct {
	turnNo     int
	gold, pred string
}

// dialogPlan keeps what a Plan's two passes over a dialog share: its
// replyPlans, the kinds of its gold values and the kinds' rulings on
// them (values.Classify and the comparators parse a value every way a
// kind can be written, so once is enough).
type dialogPlan struct {
	replies map[replyKey]*replyPlan
	kinds   map[kindKey]values.Kind
	rulings map[rulingKey]values.Ruling
}

// rulingKey identifies one comparison of two values of a kind under a
// parameter's key.
type rulingKey struct {
	key        string
	kind       values.Kind
	gold, pred string
}

// compareKind is j.kinds.CompareAt, kept in j.plan for the Plan's other
// pass (the rules parse both values every way the kind is written).
func (j *decider) compareKind(key string, k values.Kind, gold, pred string) values.Ruling {
	if j.plan == nil {
		return j.kinds.CompareAt(key, k, gold, pred)
	}
	rk := rulingKey{key, k, gold, pred}
	if v, ok := j.plan.rulings[rk]; ok {
		return v
	}
	v := j.kinds.CompareAt(key, k, gold, pred)
	j.plan.rulings[rk] = v
	return v
}

// kindKey identifies a gold value within a dialog: its field path and its
// scalar value (a string, json.Number or bool).
type kindKey struct {
	path string
	gold any
}

// kind returns the kind kept for key; ok is false without one (or
// without a plan).
func (p *dialogPlan) kind(key kindKey) (values.Kind, bool) {
	if p == nil {
		return "", false
	}
	k, ok := p.kinds[key]
	return k, ok
}

// keepKind keeps the kind of key for the Plan's other pass.
func (p *dialogPlan) keepKind(key kindKey, k values.Kind) {
	if p != nil {
		p.kinds[key] = k
	}
}

func newDialogPlan() *dialogPlan {
	return &dialogPlan{replies: map[replyKey]*replyPlan{}, kinds: map[kindKey]values.Kind{}, rulings: map[rulingKey]values.Ruling{}}
}

// replyPlan returns the plan of gold against pred at gold turn turnNo,
// from j.plan when it is there.
func (j *decider) replyPlan(gold, pred string, turnNo int) *replyPlan {
	k := replyKey{turnNo, gold, pred}
	if j.plan != nil {
		if p, ok := j.plan.replies[k]; ok {
			return p
		}
	}
	p := newReplyPlan(gold, pred, j.vocab, j.contextBefore(turnNo))
	if j.plan != nil {
		j.plan.replies[k] = p
	}
	return p
}

func newReplyPlan(gold, pred string, vocab *features.Vocabulary, ctx features.Context) *replyPlan {
	gc := SplitClauses(gold)
	p := &replyPlan{gold: make([]ClauseScore, 0, len(gc)), pred: SplitClauses(pred)}
	p.among = strings.Join(p.pred, "\n")
	pt := features.Analyze(pred)
	for i, g := range gc {
		gt := features.Analyze(g)
		cs := ClauseScore{Text: g, Weight: vocab.Weight(gt, ctx), Predicted: -1}
		cs.Field, cs.Kind = fmt.Sprintf("response.clause[%d]", i), string(values.Text)
		cs.Required = cs.Weight > 0
		if !cs.Required {
			cs.Method, cs.Pass = MethodNotRequired, true
		} else {
			cs.MissingAnchors = features.DiffAnchors(ownAnchors(gt, ctx), pt.Anchors)
			cs.MissingNames = features.MissingNames(gt.Tokens, pt.Tokens, ctx)
		}
		p.gold = append(p.gold, cs)
	}
	if gold != pred {
		p.contradictions = values.Contradictions(gc, p.pred)
	}
	return p
}

// ownAnchors are the anchors of a gold clause the user did not state
// before (ctx), sorted.
func ownAnchors(clause features.Text, ctx features.Context) []string {
	var out []string
	for _, a := range clause.Anchors {
		if !ctx[a] {
			out = append(out, a)
		}
	}
	return out
}

// bestClause decides gold clause cs.Text against the predicted clauses
// (alternatives of one decision: Comparison.Among) and keeps the best in
// cs: one found verbatim (exact, no scorer call), else the widest margin
// over its threshold (with one threshold for all, the highest score; the
// first of equals). A spared alternative is never kept: another decides
// for it. With no predicted clause it is missing, held to the threshold
// no clause could reach. moot marks the comparisons Moot: the clause's
// coverage does not turn on them.
func (j *decider) bestClause(cs *ClauseScore, plan *replyPlan, moot bool) error {
	q, pc := ThresholdQuery{SubMetric: SubCompleteClause}, plan.pred
	defer func() { cs.Kind = string(values.Text) }()
	if k := slices.Index(pc, cs.Text); k >= 0 {
		cs.FieldScore = FieldScore{Field: cs.Field, Method: MethodExact, Score: 1, Pass: true}
		cs.Predicted, cs.PredictedText = k, pc[k]
		return nil
	}
	if len(pc) == 0 {
		th := j.cfg.Thresholds.For(q)
		cs.FieldScore = FieldScore{Field: cs.Field, Method: MethodMissing, Threshold: th.Value, ThresholdFrom: th.From}
		return nil
	}
	found := false
	for k, p := range pc {
		s, err := j.sim(Comparison{Kind: CompareClause, Field: cs.Field, Gold: cs.Text, Predicted: p, Among: plan.among, Moot: moot})
		if err != nil {
			return err
		}
		if s.Spared {
			continue
		}
		if fs := j.decide(cs.Field, q, s); !found || fs.Score-fs.Threshold > cs.Score-cs.Threshold {
			cs.FieldScore, cs.Predicted, cs.PredictedText, found = fs, k, p, true
		}
	}
	if !found {
		return fmt.Errorf("every alternative of gold clause %q was spared: %w", clip(cs.Text), ErrScorer)
	}
	return nil
}
