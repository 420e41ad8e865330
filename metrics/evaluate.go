package metrics

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/values"
)

// Metric is a validated Config, ready to decide verdicts: New checks the Config
// once, and every method uses it as it was. It is read-only and safe for
// concurrent use; build one per run and share it.
type Metric struct {
	cfg   Config
	vocab *features.Vocabulary // read-only once set; nil: an empty one
}

// New validates cfg (see Config.Validate) and returns the Metric that
// decides with it. The Metric keeps its own copy of cfg's maps.
func New(cfg Config) (*Metric, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("metric config: %w", err)
	}
	t := &cfg.Thresholds
	t.SubMetrics, t.Types, t.Fields, t.Composite = maps.Clone(t.SubMetrics), maps.Clone(t.Types), maps.Clone(t.Fields), maps.Clone(t.Composite)
	t.Kinds, t.FieldKinds = maps.Clone(t.Kinds), maps.Clone(t.FieldKinds)
	cfg.Composition.MinRates = maps.Clone(cfg.Composition.MinRates)
	cfg.ReadOnlyTools = slices.Clone(cfg.ReadOnlyTools)
	return &Metric{cfg: cfg}, nil
}

// Default is the Metric of DefaultConfig.
func Default() *Metric { return &Metric{cfg: DefaultConfig()} }

// WithVocabulary returns a Metric that decides like m but weighs the
// clauses of gold replies with v: how many of the dataset's gold replies
// use each word (see AddReplies). Completeness requires only the gold
// clauses that carry task content (weight > 0: features.Vocabulary.Weight,
// given the words the user said earlier in the dialog), and a reply is
// complete when it covers at least the completeness.response share of
// their weight (Thresholds.Coverage). v must not change afterwards. A
// Metric without a vocabulary (nil v) treats every content word as
// informative; Evaluate learns one from the dialogs it is given.
func (m *Metric) WithVocabulary(v *features.Vocabulary) *Metric {
	return &Metric{cfg: m.cfg, vocab: v}
}

// Vocabulary returns the vocabulary the Metric weighs gold clauses with;
// nil when it has none.
func (m *Metric) Vocabulary() *features.Vocabulary { return m.vocab }

// AddReplies counts the gold replies of d's response turns into v: the
// statistics completeness weighs gold clauses by. Counting every dialog of
// a dataset, in any order, gives the same vocabulary.
func AddReplies(v *features.Vocabulary, d Dialog) {
	for _, t := range d.Turns {
		if t.Role == RoleAgent && t.HasGold {
			v.Add(t.GoldResponse)
		}
	}
}

// Config returns the configuration the Metric decides with (a copy: its
// maps are the Metric's own, not to be modified).
func (m *Metric) Config() Config { return m.cfg }

// Similarities holds the scorer's answer for each requested Comparison.
type Similarities map[Comparison]Similarity

// Requests lists every semantic comparison Decide will need an answer for,
// in a deterministic order without duplicates: parameter values that did
// not match by the exact, typed or $any-literal paths, reply against reply,
// each required gold clause (one that carries task content: see
// WithVocabulary) not found verbatim against each predicted clause, and, inside
// order-invariant blocks, every cross pairing. Identical strings are never
// requested. A dialog that Decide would reject (see ErrBadSpec,
// ErrBadDialog) yields nil.
func (m *Metric) Requests(d Dialog) []Comparison { return m.requests(d, nil) }

// requests is Requests keeping the dialog's reply plans in replies (nil:
// none kept).
func (m *Metric) requests(d Dialog, plan *dialogPlan) []Comparison {
	seen := map[Comparison]bool{}
	var cs []Comparison
	record := func(c Comparison) (Similarity, error) {
		if !seen[c] {
			seen[c] = true
			cs = append(cs, c)
		}
		return Similarity{}, nil
	}
	// The causes of failures (attribute) ask no comparison: not worked out here.
	if _, _, _, err := m.decideDialog(d, record, "", plan); err != nil {
		return nil
	}
	return cs
}

// Similarities asks s, in ONE Compare call, every comparison the dialogs
// need (their Requests, deduplicated across dialogs) and returns the
// answers, for Decide. An error of s, or an answer missing or NaN, is
// returned wrapped with ErrScorer. Plan does the same and keeps what
// deciding the dialogs needs besides the answers.
func (m *Metric) Similarities(ctx context.Context, s Scorer, dialogs []Dialog) (Similarities, error) {
	return m.Plan(dialogs).Similarities(ctx, s)
}

// Plan is the deciding of a group of dialogs in two steps that share their
// work: Similarities lists every comparison the dialogs need and asks a
// Scorer in one call, Decide decides a dialog with the answers. What does
// not depend on the answers (how replies split into clauses, the clauses'
// weights, the anchors and names a prediction misses) is worked out in the
// first step and reused in the second, where Metric.Similarities then
// Metric.Decide work it out twice. A Plan is not safe for concurrent use.
type Plan struct {
	m       *Metric
	dialogs []Dialog
	plans   []*dialogPlan // per dialog
}

// Plan starts the deciding of dialogs (see Plan).
func (m *Metric) Plan(dialogs []Dialog) *Plan {
	p := &Plan{m: m, dialogs: dialogs, plans: make([]*dialogPlan, len(dialogs))}
	for i := range p.plans {
		p.plans[i] = newDialogPlan()
	}
	return p
}

// Similarities asks s, in ONE Compare call, every comparison the Plan's
// dialogs need (their Requests, deduplicated across dialogs) and returns
// the answers, for Decide. An error of s, or an answer missing or NaN, is
// returned wrapped with ErrScorer.
func (p *Plan) Similarities(ctx context.Context, s Scorer) (Similarities, error) {
	sims := Similarities{}
	var cs []Comparison
	for i, d := range p.dialogs {
		for _, c := range p.m.requests(d, p.plans[i]) {
			if _, ok := sims[c]; !ok {
				sims[c] = Similarity{}
				cs = append(cs, c)
			}
		}
	}
	if len(cs) == 0 {
		return sims, nil
	}
	answers, err := s.Compare(ctx, cs)
	if err != nil {
		return nil, fmt.Errorf("%w: %s scoring %d comparisons: %w", ErrScorer, s.ID(), len(cs), err)
	}
	if len(answers) != len(cs) {
		return nil, fmt.Errorf("%w: %s returned %d answers for %d comparisons", ErrScorer, s.ID(), len(answers), len(cs))
	}
	for i, a := range answers {
		if math.IsNaN(a.Score) {
			return nil, fmt.Errorf("%w: %s returned NaN for %s %s: gold %q vs predicted %q", ErrScorer, s.ID(), cs[i].Kind, cs[i].Field, clip(cs[i].Gold), clip(cs[i].Predicted))
		}
		sims[cs[i]] = a
	}
	return sims, nil
}

// Decide decides the Plan's dialog i with sims (from Similarities, or any
// that hold the comparisons it needs) as Metric.Decide does.
func (p *Plan) Decide(i int, sims Similarities, scorerID string) (DialogResult, error) {
	return p.m.decide(p.dialogs[i], sims, scorerID, p.plans[i])
}

// Decide decides one dialog with similarities computed beforehand (see
// Requests, Similarities) and composes its result. It returns an error for
// a malformed spec (*SpecError), an invalid dialog (ErrBadDialog), or a
// needed comparison missing from sims (ErrMissingSimilarity). scorerID is
// recorded in every verdict.
func (m *Metric) Decide(d Dialog, sims Similarities, scorerID string) (DialogResult, error) {
	return m.decide(d, sims, scorerID, nil)
}

// decide is Decide with the dialog's reply plans kept in replies (nil: none).
func (m *Metric) decide(d Dialog, sims Similarities, scorerID string, plan *dialogPlan) (DialogResult, error) {
	lookup := func(c Comparison) (Similarity, error) {
		s, ok := sims[c]
		if !ok {
			return Similarity{}, fmt.Errorf("gold %q vs predicted %q: %w", clip(c.Gold), clip(c.Predicted), ErrMissingSimilarity)
		}
		return s, nil
	}
	js, ctx, rows, err := m.decideDialog(d, lookup, scorerID, plan)
	if err != nil {
		return DialogResult{}, err
	}
	attribute(js, rows, m.cfg.Cascade)
	return compose(d, m.cfg, js, ctx), nil
}

// Evaluate is New(cfg) then Metric.Evaluate: a one-off evaluation. Code
// that decides many batches builds the Metric once.
func Evaluate(ctx context.Context, s Scorer, cfg Config, dialogs []Dialog) ([]DialogResult, error) {
	m, err := New(cfg)
	if err != nil {
		return nil, err
	}
	return m.Evaluate(ctx, s, dialogs)
}

// Evaluate decides dialogs with s: Similarities (one Compare call for all
// of them), then Decide for each. Results are in input order. Without a
// vocabulary (WithVocabulary), the gold replies of dialogs are its
// vocabulary.
func (m *Metric) Evaluate(ctx context.Context, s Scorer, dialogs []Dialog) ([]DialogResult, error) {
	if m.vocab == nil {
		v := features.NewVocabulary()
		for _, d := range dialogs {
			AddReplies(v, d)
		}
		m = m.WithVocabulary(v)
	}
	p := m.Plan(dialogs)
	sims, err := p.Similarities(ctx, s)
	if err != nil {
		return nil, err
	}
	out := make([]DialogResult, 0, len(dialogs))
	for i := range dialogs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := p.Decide(i, sims, s.ID())
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// decideDialog decides every scored turn; verdicts are ordered by (TurnNo,
// PredictTurnNo). It also returns the verdicts of the read-only calls kept
// as context (contextRow), and the dialog's rows without them for
// attribute, which finds the failures' causes.
func (m *Metric) decideDialog(d Dialog, sim simFunc, scorerID string, plan *dialogPlan) ([]decided, []Verdict, []Turn, error) {
	rows, err := prepare(d)
	if err != nil {
		return nil, nil, nil, err
	}
	j := &decider{cfg: &m.cfg, kinds: values.Comparer{Tolerance: m.cfg.NumericTolerance}, sim: sim, scorerID: scorerID, tools: d.Tools, vocab: m.vocab, rows: rows, utterances: userUtterances(rows), plan: plan}
	var ctx []Verdict
	scored := rows[:0:0]
	for i := range rows {
		if j.contextRow(&rows[i]) {
			ctx = append(ctx, j.context(&rows[i]))
			continue
		}
		scored = append(scored, rows[i])
	}
	singles, blocks, err := groupRows(d, scored)
	if err != nil {
		return nil, nil, nil, err
	}
	var out []decided
	for _, r := range singles {
		js, err := j.row(r)
		if err != nil {
			return nil, nil, nil, err
		}
		out = append(out, js...)
	}
	for _, b := range blocks {
		js, err := j.matchBlock(b)
		if err != nil {
			return nil, nil, nil, err
		}
		out = append(out, js...)
	}
	slices.SortStableFunc(out, func(a, b decided) int {
		return cmp.Or(cmp.Compare(a.v.TurnNo, b.v.TurnNo), cmp.Compare(a.v.PredictTurnNo, b.v.PredictTurnNo))
	})
	return out, ctx, scored, nil
}

// groupRows splits the scored rows into those decided on their own and the
// order-invariant blocks (in order of first appearance). User rows are left out.
func groupRows(d Dialog, rows []Turn) (singles []*Turn, blocks [][]*Turn, err error) {
	index := map[string]int{}
	for i := range rows {
		r := &rows[i]
		if r.Kind() == KindContext {
			continue
		}
		group, err := blockGroup(d, r)
		if err != nil {
			return nil, nil, err
		}
		if group != "" && r.GoldNoCall {
			return nil, nil, badDialog(d, "turn %d: a gold \"no call\" cannot be in an order-invariant block: drop its %s tag", r.TurnNo, OrderInvariantPrefix+group)
		}
		if group == "" {
			singles = append(singles, r)
			continue
		}
		k, ok := index[group]
		if !ok {
			k = len(blocks)
			index[group] = k
			blocks = append(blocks, nil)
		}
		blocks[k] = append(blocks[k], r)
	}
	return singles, blocks, nil
}

// row decides a turn outside any order-invariant block.
func (j *decider) row(r *Turn) ([]decided, error) {
	switch {
	case r.HasGold && r.HasPredict:
		v, err := j.pair(r, r)
		return []decided{v}, err
	case r.HasGold:
		return []decided{j.missing(r)}, nil
	default:
		return []decided{j.unexpected(r)}, nil
	}
}

// prepare copies the dialog's turns sorted by TurnNo and rejects what
// cannot be decided.
func prepare(d Dialog) ([]Turn, error) {
	rows := slices.Clone(d.Turns)
	slices.SortStableFunc(rows, func(a, b Turn) int { return cmp.Compare(a.TurnNo, b.TurnNo) })
	seen := map[int]bool{}
	for i := range rows {
		r := &rows[i]
		r.DialogID = d.ID
		if seen[r.TurnNo] {
			return nil, badDialog(d, "turn_no %d appears twice: give each turn its own number", r.TurnNo)
		}
		seen[r.TurnNo] = true
		if err := checkTurn(d, r, seen); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// checkTurn validates one turn; seen holds the turn numbers before it.
func checkTurn(d Dialog, r *Turn, seen map[int]bool) error {
	if r.Role != RoleAgent && r.Role != RoleTool && r.Role != RoleUser {
		return badDialog(d, "turn %d: unknown role %q: use Agent, Tool or User", r.TurnNo, r.Role)
	}
	if r.Kind() != KindContext && !r.HasGold && !r.HasPredict {
		return badDialog(d, "turn %d has neither a gold nor a predicted output", r.TurnNo)
	}
	for _, dep := range r.DependsOn {
		if dep >= r.TurnNo || !seen[dep] {
			return badDialog(d, "turn %d depends_on %d, which is not an earlier turn of the dialog", r.TurnNo, dep)
		}
	}
	if r.Weight != nil && (!finite(*r.Weight) || *r.Weight < 0) {
		return badDialog(d, "turn %d weight %v: must be a finite number >= 0", r.TurnNo, *r.Weight)
	}
	if r.Kind() == KindAction && r.HasGold && !r.GoldNoCall {
		if err := ValidateGoldArgs(r.Gold.Args); err != nil {
			var se *SpecError
			if errors.As(err, &se) {
				se.DialogID, se.TurnNo = d.ID, r.TurnNo
			}
			return err
		}
	}
	if r.GoldNoCall && (r.Role != RoleTool || r.Gold.ToolID != "" || r.Gold.Action != "" || len(r.Gold.Args) > 0) {
		return badDialog(d, "turn %d: a gold \"no call\" must be a Tool turn without a gold call", r.TurnNo)
	}
	if r.Gold.UnparsedArgs != "" {
		return badDialog(d, "turn %d: gold args are not a JSON object: give the expected arguments as one", r.TurnNo)
	}
	return nil
}

// clip shortens long strings in error messages.
func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
