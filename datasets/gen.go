package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// GenConfig configures Generate. Rates are probabilities in [0, 1].
type GenConfig struct {
	Seed     uint64
	Dialogs  int    // number of dialogs to yield
	IDPrefix string // dialog ids are IDPrefix + the index padded to 8 digits; "" means "gen-"

	MinTurns, MaxTurns int // turns per dialog, inclusive; both 0 means 3 and 12

	WrongRate      float64 // a predicted value (or reply) is wrong
	ParaphraseRate float64 // a predicted tool value is a paraphrase of gold (replies are reworded anyway)
	StructureRate  float64 // a predicted call names the wrong tool or action
	KeyRate        float64 // a predicted call drops or adds a parameter
	MissingRate    float64 // a gold turn has no prediction
	UnexpectedRate float64 // an extra predicted call with no gold turn
	OrderInvRate   float64 // a chain of independent calls is an order-invariant block
	AnyRate        float64 // a gold value is given as {"$any": [...]} alternatives

	DependsOn   bool    // record depends_on for chained calls (else attribution must infer)
	HumanLabels bool    // add human_label and human_score, following the annotation rubric (rubric.go)
	LabelNoise  float64 // share of human labels flipped, as annotators disagree (default 0.05)
	Latency     bool    // add latency_ms
}

// DefaultGenConfig returns the settings `aem gen` uses: about one turn in
// five fails, with cascades, paraphrases and order-invariant blocks.
func DefaultGenConfig() GenConfig {
	return GenConfig{
		Seed: 1, Dialogs: 1000, IDPrefix: "gen-",
		MinTurns: 3, MaxTurns: 12,
		WrongRate: 0.08, ParaphraseRate: 0.15, StructureRate: 0.02, KeyRate: 0.03,
		MissingRate: 0.02, UnexpectedRate: 0.02, OrderInvRate: 0.15, AnyRate: 0.05,
		DependsOn: false, HumanLabels: true, LabelNoise: 0.05, Latency: true,
	}
}

// withDefaults fills in the zero values that have a default.
func (c GenConfig) withDefaults() GenConfig {
	if c.MinTurns == 0 && c.MaxTurns == 0 {
		c.MinTurns, c.MaxTurns = 3, 12
	}
	if c.IDPrefix == "" {
		c.IDPrefix = "gen-"
	}
	return c
}

// Validate checks the ranges (after applying the defaults for zero values).
func (c GenConfig) Validate() error {
	c = c.withDefaults()
	if c.Dialogs < 0 {
		return fmt.Errorf("dialogs must be >= 0, got %d", c.Dialogs)
	}
	if c.MinTurns < 2 || c.MaxTurns < c.MinTurns {
		return fmt.Errorf("turns per dialog must satisfy 2 <= min <= max, got %d..%d", c.MinTurns, c.MaxTurns)
	}
	for _, r := range []struct {
		name string
		v    float64
	}{
		{"wrong", c.WrongRate}, {"paraphrase", c.ParaphraseRate}, {"structure", c.StructureRate}, {"key", c.KeyRate},
		{"missing", c.MissingRate}, {"unexpected", c.UnexpectedRate}, {"order-invariant", c.OrderInvRate}, {"any", c.AnyRate},
		{"label noise", c.LabelNoise},
	} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			return fmt.Errorf("%s rate must be in [0, 1], got %v", r.name, r.v)
		}
	}
	if c.WrongRate+c.ParaphraseRate > 1 {
		return errors.New("wrong rate + paraphrase rate must be <= 1")
	}
	return nil
}

// Generate yields cfg.Dialogs synthetic dialogs. The same config always
// gives the same dialogs; dialog i depends only on the seed and i, so any
// prefix of a larger run equals a smaller run. Call Validate first: an
// invalid config yields no dialogs at all.
func Generate(cfg GenConfig) iter.Seq[metrics.Dialog] {
	cfg = cfg.withDefaults()
	return func(yield func(metrics.Dialog) bool) {
		if cfg.Validate() != nil {
			return
		}
		for i := range cfg.Dialogs {
			// Fixed-width ids sort in generation order.
			g := newDialogGen(cfg, i, fmt.Sprintf("%s%08d", cfg.IDPrefix, i))
			if !yield(g.dialog()) {
				return
			}
		}
	}
}

// dialogGen builds one dialog.
type dialogGen struct {
	cfg   GenConfig
	rng   *rand.Rand
	zipf  map[string]*rand.Zipf
	id    string
	turns []metrics.Turn
	// changes records, per turn index, what the prediction did to the gold
	// turn, which the annotation rubric (rubric.go) judges.
	changes []change
	blocks  int
	target  int
}

func newDialogGen(cfg GenConfig, i int, id string) *dialogGen {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)*0x9e3779b97f4a7c15+1))
	return &dialogGen{cfg: cfg, rng: rng, zipf: map[string]*rand.Zipf{}, id: id}
}

func (g *dialogGen) chance(p float64) bool { return p > 0 && g.rng.Float64() < p }

// pick draws a value from a named pool with a Zipf skew: the first values
// are far more common, as in real traffic.
func (g *dialogGen) pick(pool string) string {
	vals := pools[pool]
	z, ok := g.zipf[pool]
	if !ok {
		z = rand.NewZipf(g.rng, 1.3, 2, uint64(len(vals)-1))
		g.zipf[pool] = z
	}
	return vals[z.Uint64()]
}

// other draws a value of the pool different from v (a wrong value).
func (g *dialogGen) other(pool, v string) string {
	vals := pools[pool]
	for range 8 {
		if w := vals[g.rng.IntN(len(vals))]; w != v {
			return w
		}
	}
	return v + "_x"
}

// paraphrase returns another way to say v, or "" when the table has none.
func (g *dialogGen) paraphrase(v string) string {
	alts := paraphrases[v]
	if len(alts) == 0 {
		return ""
	}
	return alts[g.rng.IntN(len(alts))]
}

func (g *dialogGen) add(t metrics.Turn, c change) {
	t.DialogID = g.id
	t.TurnNo = len(g.turns) + 1
	g.turns = append(g.turns, t)
	g.changes = append(g.changes, c)
}

func (g *dialogGen) dialog() metrics.Dialog {
	target := g.cfg.MinTurns + g.rng.IntN(g.cfg.MaxTurns-g.cfg.MinTurns+1)
	g.target = target
	g.add(metrics.Turn{Role: metrics.RoleUser, HasGold: true, GoldResponse: g.userAsk()}, unchanged)
	for len(g.turns) < target {
		left := target - len(g.turns)
		if left >= 2 && g.rng.Float64() < 0.65 {
			// A chain of calls, then usually a reply about it.
			n := 1 + g.rng.IntN(min(4, left-1))
			if n > 1 && g.rng.Float64() < 0.3 {
				n = 1 + g.rng.IntN(min(4, left-1)) // favour short chains
			}
			topic := g.chain(n)
			if len(g.turns) < target {
				g.reply(topic)
			}
		} else {
			g.reply(nil)
		}
	}
	g.finish()
	return metrics.Dialog{ID: g.id, Turns: g.turns}
}

func (g *dialogGen) userAsk() string {
	return userAsks[g.rng.IntN(len(userAsks))]
}

// topic is the value a chain carries from call to call, gold and predicted.
type topic struct {
	pool          string
	gold, predict string
	wrong         bool
	args          map[string]string // the chain's first gold value per string parameter, for the reply
}

// chain adds n tool calls from one template. The template's first call
// draws the topic; later calls consume it (a cascade when it is wrong), or,
// for an order-invariant block, are independent calls of the same kind.
func (g *dialogGen) chain(n int) *topic {
	tpl := templates[g.rng.IntN(len(templates))]
	if n >= 2 && g.chance(g.cfg.OrderInvRate) {
		g.block(tpl, n)
		return nil
	}
	tp := &topic{pool: tpl.topicPool, gold: g.pick(tpl.topicPool), args: map[string]string{}}
	tp.predict = tp.gold
	start := len(g.turns)
	for k := 0; k < n; k++ {
		step := tpl.steps[k%len(tpl.steps)]
		t, c := g.call(step, tp, k == 0)
		if g.cfg.DependsOn && k > 0 {
			t.DependsOn = []int{start + k} // previous call's turn_no
		}
		if k == 0 && g.rng.Float64() < 0.2 {
			t.Critical = true
		}
		for name, v := range t.Gold.Args {
			if s, ok := v.(string); ok && tp.args[name] == "" {
				tp.args[name] = s
			}
		}
		if tp.wrong && k > 0 {
			c = worst(c, consumedWrongValue)
		}
		g.add(t, c)
		// Room for an extra call: the rest of the chain must still fit.
		if len(g.turns)+(n-1-k) < g.target && g.chance(g.cfg.UnexpectedRate) {
			extra := g.callOf(step, tp.gold)
			g.add(metrics.Turn{Role: metrics.RoleTool, HasPredict: true, Predict: extra}, unexpectedTurn)
		}
	}
	return tp
}

// block adds n independent calls of the template's first step, tagged as
// one order-invariant block, with predictions in a shuffled order.
func (g *dialogGen) block(tpl template, n int) {
	g.blocks++
	tag := fmt.Sprintf("OrderInvariant_%d", g.blocks)
	step := tpl.steps[0]
	first := len(g.turns)
	seen := map[string]bool{}
	for range n {
		v := g.pick(tpl.topicPool)
		for tries := 0; seen[v] && tries < 10; tries++ {
			v = g.other(tpl.topicPool, v)
		}
		seen[v] = true
		tp := &topic{pool: tpl.topicPool, gold: v, predict: v}
		t, c := g.call(step, tp, true)
		t.Tags = []string{tag}
		g.add(t, c)
	}
	// Shuffle the predicted sides within the block. The changes stay with
	// the gold turns: an annotator judges each gold call against the
	// prediction that performs it, wherever it sits in the block.
	blk := g.turns[first:]
	g.rng.Shuffle(len(blk), func(i, j int) {
		blk[i].Predict, blk[j].Predict = blk[j].Predict, blk[i].Predict
		blk[i].HasPredict, blk[j].HasPredict = blk[j].HasPredict, blk[i].HasPredict
	})
}

// call builds one gold call and its prediction. When head is true the
// prediction may get the topic wrong, which later calls then carry.
func (g *dialogGen) call(step step, tp *topic, head bool) (metrics.Turn, change) {
	c := unchanged
	if head {
		switch r := g.rng.Float64(); {
		case r < g.cfg.WrongRate:
			tp.predict, tp.wrong, c = g.other(tp.pool, tp.gold), true, wrongValue
		case r < g.cfg.WrongRate+g.cfg.ParaphraseRate:
			if p := g.paraphrase(tp.gold); p != "" {
				tp.predict, c = p, reworded
			}
		}
	}
	gold := g.callOf(step, tp.gold)
	pred := metrics.Call{ToolID: step.tool, Action: step.action, Args: map[string]any{}}
	for _, p := range step.params {
		gv := gold.Args[p.name]
		var pv any
		if p.topic {
			pv = strings.ReplaceAll(p.format, "{}", tp.predict)
			if pv != gv && !tp.wrong {
				c = worst(c, reworded)
			}
		} else {
			pv = g.predictValue(p, gv)
			switch {
			case pv == gv:
			case isParaphrase(gv, pv):
				c = worst(c, reworded)
			default:
				c = worst(c, wrongValue)
			}
		}
		pred.Args[p.name] = pv
		if s, ok := gv.(string); ok && p.topic && g.chance(g.cfg.AnyRate) {
			if alt := g.paraphrase(tp.gold); alt != "" {
				gold.Args[p.name] = map[string]any{"$any": []any{s, strings.ReplaceAll(p.format, "{}", alt)}}
			}
		}
	}
	if g.chance(g.cfg.KeyRate) {
		c = worst(c, wrongKeys)
		if len(step.params) > 1 && g.rng.IntN(2) == 0 {
			delete(pred.Args, step.params[len(step.params)-1].name)
		} else {
			pred.Args["note"] = "extra"
		}
	}
	if g.chance(g.cfg.StructureRate) {
		c = worst(c, wrongCall)
		if g.rng.IntN(2) == 0 {
			pred.Action = step.wrongAction
		} else {
			pred.ToolID = step.tool + "_v2"
		}
	}
	t := metrics.Turn{Role: metrics.RoleTool, HasGold: true, Gold: gold, HasPredict: true, Predict: pred}
	if g.chance(g.cfg.MissingRate) {
		t.HasPredict, t.Predict, c = false, metrics.Call{}, missingTurn
	}
	return t, c
}

// callOf builds a gold call of step with topic value v.
func (g *dialogGen) callOf(step step, v string) metrics.Call {
	c := metrics.Call{ToolID: step.tool, Action: step.action, Args: map[string]any{}}
	for _, p := range step.params {
		switch {
		case p.topic:
			c.Args[p.name] = strings.ReplaceAll(p.format, "{}", v)
		case p.pool == "#int":
			c.Args[p.name] = json.Number(strconv.Itoa(p.lo + g.rng.IntN(p.hi-p.lo+1)))
		default:
			c.Args[p.name] = g.pick(p.pool)
		}
	}
	return c
}

// predictValue predicts a non-topic parameter: usually exact, sometimes a
// paraphrase, sometimes wrong.
func (g *dialogGen) predictValue(p param, gv any) any {
	r := g.rng.Float64()
	switch {
	case r < g.cfg.WrongRate/2:
		if n, ok := gv.(json.Number); ok {
			i, _ := strconv.Atoi(string(n))
			return json.Number(strconv.Itoa(i + 1 + g.rng.IntN(3)))
		}
		return g.other(p.pool, gv.(string))
	case r < g.cfg.WrongRate/2+g.cfg.ParaphraseRate:
		if s, ok := gv.(string); ok {
			if alt := g.paraphrase(s); alt != "" {
				return alt
			}
		}
	}
	return gv
}

func isParaphrase(gold, pred any) bool {
	gs, ok1 := gold.(string)
	ps, ok2 := pred.(string)
	if !ok1 || !ok2 {
		return false
	}
	for _, alt := range paraphrases[gs] {
		if alt == ps {
			return true
		}
	}
	return false
}

// reply adds an Agent turn. Real replies are free text: the gold reply and
// the agent's reply state the same concrete facts (the chain's values plus
// fresh numbers, dates, times and references) in different words, so almost
// every reply string is distinct, while tool-call values repeat. After a
// chain the reply restates the chain's topic (carrying a wrong predicted
// topic along, a cascade).
func (g *dialogGen) reply(tp *topic) {
	rk := replyKinds[""]
	v := g.pick("city")
	pv := v
	if tp != nil {
		rk = replyKinds[tp.pool]
		v, pv = tp.gold, tp.predict
	}
	// The facts: two or three of the kind's, in order, with their values.
	nf := 2 + g.rng.IntN(2)
	start := g.rng.IntN(len(rk) - nf + 1)
	fs := rk[start : start+nf]
	vals := g.factValues(tp)
	goldVals, predVals := copyWith(vals, "V", v), copyWith(vals, "V", pv)
	gold := g.composeReply(fs, goldVals, len(fs))
	c := reworded
	if tp != nil && tp.wrong {
		c = consumedWrongValue
	}
	var pred string
	switch r := g.rng.Float64(); {
	case r < g.cfg.WrongRate:
		// A wrong fact: one stated value differs from gold.
		pred, c = g.composeReply(fs, g.perturb(fs, predVals), len(fs)), worst(c, wrongValue)
	case r < g.cfg.WrongRate+0.05:
		pred, c = g.composeReply(fs, predVals, 1), worst(c, factLeftOut) // incomplete: only the first fact
	case r < g.cfg.WrongRate+0.05+0.05 && pv == v:
		pred, c = gold, unchanged // verbatim (rare for a generative agent, but it happens)
	default:
		// Same facts, the agent's own wording (the paraphrase rate has no
		// separate case here: a correct reply is nearly always reworded).
		pred = g.composeReply(fs, predVals, len(fs))
	}
	t := metrics.Turn{Role: metrics.RoleAgent, HasGold: true, GoldResponse: gold, HasPredict: true, PredictResponse: pred}
	if g.chance(g.cfg.MissingRate) {
		t.HasPredict, t.PredictResponse, c = false, "", missingTurn
	}
	g.add(t, c)
}

// copyWith returns a copy of m with k set to v.
func copyWith(m map[string]string, k, v string) map[string]string {
	c := make(map[string]string, len(m)+1)
	for a, b := range m {
		c[a] = b
	}
	c[k] = v
	return c
}

// factValues draws the concrete values a reply states. Values the chain
// already used (its date, period, region, recipient) are reused, so the
// reply agrees with the calls; the rest are fresh draws.
func (g *dialogGen) factValues(tp *topic) map[string]string {
	m := map[string]string{
		"D":      g.pick("date"),
		"D2":     g.pick("date"),
		"Q":      g.pick("quarter"),
		"R":      g.pick("region"),
		"P":      g.pick("person"),
		"TIER":   pools["tier"][g.rng.IntN(len(pools["tier"]))],
		"COND":   pools["weather"][g.rng.IntN(len(pools["weather"]))],
		"MONTH":  pools["month"][g.rng.IntN(len(pools["month"]))],
		"DIR":    []string{"up", "down"}[g.rng.IntN(2)],
		"AMT":    fmt.Sprintf("$%d.%dM", 1+g.rng.IntN(99), g.rng.IntN(10)),
		"AMT2":   fmt.Sprintf("$%d,%03d", 10+g.rng.IntN(990), g.rng.IntN(1000)),
		"PCT":    fmt.Sprintf("%d.%d", g.rng.IntN(30), g.rng.IntN(10)),
		"TEMP":   strconv.Itoa(-5 + g.rng.IntN(40)),
		"N":      strconv.Itoa(2 + g.rng.IntN(30)),
		"NIGHTS": strconv.Itoa(1 + g.rng.IntN(7)),
		"PRICE":  strconv.Itoa(89 + g.rng.IntN(1900)),
		"TIME":   fmt.Sprintf("%d:%02d", 6+g.rng.IntN(16), 5*g.rng.IntN(12)),
		"FLT":    fmt.Sprintf("%s %d", pools["airline"][g.rng.IntN(len(pools["airline"]))], 100+g.rng.IntN(9900)),
		"TICKET": strconv.Itoa(10000 + g.rng.IntN(90000)),
		"REF":    refCode(g.rng),
	}
	if tp != nil {
		for _, k := range []struct{ arg, key string }{{"date", "D"}, {"period", "Q"}, {"region", "R"}, {"to", "P"}} {
			if a, ok := tp.args[k.arg]; ok {
				m[k.key] = a
			}
		}
	}
	return m
}

// refCode is a booking-style reference such as "K7F2QZ".
func refCode(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	b := make([]byte, 6)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// perturb returns vals with one value that the facts state (other than the
// topic) changed: a wrong number, date or name.
func (g *dialogGen) perturb(fs []fact, vals map[string]string) map[string]string {
	var keys []string
	for _, f := range fs {
		for _, k := range placeholders(f.a) {
			if k != "V" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	out := copyWith(vals, "V", vals["V"])
	if len(keys) == 0 {
		return out
	}
	k := keys[g.rng.IntN(len(keys))]
	fresh := g.factValues(nil)
	for tries := 0; fresh[k] == vals[k] && tries < 8; tries++ {
		fresh = g.factValues(nil)
	}
	if fresh[k] == vals[k] {
		fresh[k] += "0" // still wrong, if oddly so
	}
	out[k] = fresh[k]
	return out
}

// placeholders lists the {KEY} names in s, in order.
func placeholders(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return out
		}
		out = append(out, s[i+1:i+j])
		s = s[i+j+1:]
	}
}

// composeReply writes the first n facts of fs with vals: an optional
// opener, each fact in one of its two wordings, an optional closer.
func (g *dialogGen) composeReply(fs []fact, vals map[string]string, n int) string {
	var b strings.Builder
	b.WriteString(openers[g.rng.IntN(len(openers))])
	for i, f := range fs[:n] {
		w := f.a
		if g.rng.IntN(2) == 1 {
			w = f.b
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(fill(w, vals))
	}
	b.WriteString(closers[g.rng.IntN(len(closers))])
	return b.String()
}

// fill replaces each {KEY} in s with vals[KEY].
func fill(s string, vals map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		b.WriteString(s[:i])
		b.WriteString(vals[s[i+1:i+j]])
		s = s[i+j+1:]
	}
}

// finish adds the per-turn extras: human labels and latencies.
func (g *dialogGen) finish() {
	for i := range g.turns {
		t := &g.turns[i]
		if g.rng.Float64() < 0.1 {
			w := float64(1 + g.rng.IntN(3))
			t.Weight = &w
		}
		if g.cfg.HumanLabels && t.Role != metrics.RoleUser {
			ok := g.changes[i].acceptable()
			if g.rng.Float64() < g.cfg.LabelNoise { // annotators disagree sometimes
				ok = !ok
			}
			score := 0.75 + 0.25*g.rng.Float64()
			if !ok {
				score = 0.4 * g.rng.Float64()
			}
			score = math.Round(score*1000) / 1000
			t.HumanLabel, t.HumanScore = &ok, &score
		}
		if g.cfg.Latency {
			base := 300.0
			if t.Role == metrics.RoleTool {
				base = 120
			}
			if !g.changes[i].acceptable() {
				base *= 1.6 // retries and longer generations on bad turns
			}
			ms := math.Round(base*math.Exp(0.6*g.rng.NormFloat64())*10) / 10
			t.LatencyMS = &ms
		}
	}
}
