package align

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// Mode is how strictly the predicted steps must follow the gold turns.
type Mode string

// Match modes (see the package documentation).
const (
	Strict    Mode = "strict"
	Superset  Mode = "superset"
	Subset    Mode = "subset"
	Unordered Mode = "unordered"
)

// ParseMode checks a --match value ("" is strict).
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case "":
		return Strict, nil
	case Strict, Superset, Subset, Unordered:
		return m, nil
	}
	return "", fmt.Errorf("match mode %q: use strict, superset, subset or unordered", s)
}

// Options configures Join. The zero value is strict matching with the
// default naming and no ignored tools.
type Options struct {
	Mode Mode
	// IgnoreTools lists function names (or resolved tool ids) whose calls
	// are dropped before aligning: helper calls such as think.
	IgnoreTools []string
	Naming      Naming
	// ReadOnlyTools names tools whose calls change nothing, besides those
	// whose definitions say so (metrics.ReadOnlyCall): their calls, gold or
	// predicted, are aligned among themselves as context, never missing or
	// unexpected.
	ReadOnlyTools []string
}

// Step is one predicted step: a call (Role Tool) or a reply (Role Agent),
// or a message of the user's (Role User, Response the text), which is no
// prediction but bounds the alignment (see the package documentation).
type Step struct {
	Role metrics.Role
	// Name is the function name as the agent gave it (calls).
	Name string
	// Args are the decoded arguments.
	Args map[string]any
	// UnparsedArgs is the agent's arguments as written when they are not a
	// JSON object (metrics.Call.UnparsedArgs: scored unparseable_arguments).
	UnparsedArgs string
	Response     string
}

// Joined is a gold dialog joined with its predictions.
type Joined struct {
	// Dialog holds the gold turns (User turns included) with the matched
	// predictions, and the unexpected predictions, sorted by turn_no.
	Dialog metrics.Dialog
	// PredOf[i] is the index (in the steps given to Join) of the prediction
	// on Dialog.Turns[i]; -1 when the turn has none.
	PredOf []int
	// Ignored, Context and Allowed are predictions left out: calls of an
	// ignored tool; replies when the gold has none; extra calls that
	// superset mode allows. Indexes into the steps given to Join.
	Ignored, Context, Allowed []int
	// Unscored lists the gold turn numbers that subset mode leaves out
	// (gold calls the prediction did not make).
	Unscored []int
	// ReadOnly lists the predictions of read-only calls (kept as context,
	// matched with a gold read-only call or not): indexes into the steps.
	ReadOnly []int
}

// candidate is a prediction taking part in the alignment.
type candidate struct {
	index int // into the steps given to Join
	seq   int // 0-based position among the agent's steps (user messages left out)
	seg   int // user messages before it
	call  metrics.Call
	step  *Step
}

// Join aligns pred with the gold turns of gold (their own predicted sides
// are replaced) and builds the joined dialog. Gold rows without a gold side
// are dropped: with predictions from elsewhere they mean nothing.
func Join(gold metrics.Dialog, pred []Step, opts Options) (Joined, error) {
	if opts.Mode == "" {
		opts.Mode = Strict
	}
	rows := slices.Clone(gold.Turns)
	slices.SortStableFunc(rows, func(a, b metrics.Turn) int { return a.TurnNo - b.TurnNo })
	var (
		scored, readGold []*metrics.Turn
		calls            []metrics.Call
		replies          bool
		maxTurn          int
		joined           = Joined{Dialog: metrics.Dialog{ID: gold.ID, Tools: gold.Tools}}
		userRows         []metrics.Turn
	)
	readOnly := func(c metrics.Call) bool { return metrics.ReadOnlyCall(gold.Tools, opts.ReadOnlyTools, c) }
	for i := range rows {
		r := &rows[i]
		maxTurn = max(maxTurn, r.TurnNo)
		switch {
		case r.Kind() == metrics.KindContext:
			userRows = append(userRows, *r)
		case r.HasGold && r.Kind() == metrics.KindAction && !r.GoldNoCall && readOnly(r.Gold):
			readGold = append(readGold, r)
			calls = append(calls, r.Gold)
		case r.HasGold:
			scored = append(scored, r)
			if r.Kind() == metrics.KindAction {
				calls = append(calls, r.Gold)
			} else {
				replies = true
			}
		}
	}
	var cands, reads []candidate
	users, seq := 0, 0
	for i := range pred {
		p := &pred[i]
		if p.Role == metrics.RoleUser {
			users++
			continue
		}
		c := candidate{index: i, seq: seq, seg: users, step: p}
		seq++
		if p.Role == metrics.RoleTool {
			c.call.ToolID, c.call.Action = opts.Naming.Resolve(p.Name, calls)
			c.call.Args, c.call.UnparsedArgs = p.Args, p.UnparsedArgs
			switch {
			case slices.Contains(opts.IgnoreTools, p.Name) || slices.Contains(opts.IgnoreTools, c.call.ToolID):
				joined.Ignored = append(joined.Ignored, i)
				continue
			case readOnly(c.call):
				reads = append(reads, c)
				joined.ReadOnly = append(joined.ReadOnly, i)
				continue
			}
		} else if !replies {
			joined.Context = append(joined.Context, i)
			continue
		}
		cands = append(cands, c)
	}
	b := newBounds(userRows, users)
	if err := joined.align(scored, cands, opts.Mode, maxTurn, b); err != nil {
		return Joined{}, fmt.Errorf("dialog %q: %w", gold.ID, err)
	}
	// Read-only calls are context: aligned among themselves, in any order
	// and by tool, and every one of either side listed.
	if err := joined.align(readGold, reads, readOnlyMode, maxTurn, b); err != nil {
		return Joined{}, fmt.Errorf("dialog %q: %w", gold.ID, err)
	}
	for _, t := range userRows {
		joined.add(t, -1)
	}
	joined.sort()
	return joined, nil
}

// readOnlyMode aligns read-only calls: unordered, by tool (no pairing of
// different tools), nothing dropped.
const readOnlyMode Mode = "read-only"

// align matches the gold rows with the candidates in mode, within the
// user turns b allows, and adds the joined rows: the gold rows with their
// match or none, and the unmatched candidates numbered after the gold
// turns (maxTurn + their 1-based position in the agent's sequence) with
// the user turn they were made in.
func (j *Joined) align(gold []*metrics.Turn, cands []candidate, mode Mode, maxTurn int, b *bounds) error {
	weigh := mode
	if mode == readOnlyMode {
		weigh = Superset
	}
	w, err := newWeigher(weigh, len(gold)+len(cands)+1)
	if err != nil {
		return err
	}
	w.bounds = b
	var match []int      // per gold row: candidate index or -1
	var blockOf []string // per candidate: the block whose window holds it
	if mode == Unordered || mode == readOnlyMode {
		match = w.assign(gold, cands)
		blockOf = make([]string, len(cands))
	} else {
		match, blockOf = w.sequence(gold, cands)
	}
	matched := make([]bool, len(cands))
	for gi, r := range gold {
		t := *r
		t.HasPredict, t.Predict, t.PredictResponse = false, metrics.Call{}, ""
		ci := match[gi]
		switch {
		case ci >= 0:
			matched[ci] = true
			t.HasPredict = true
			t.Predict, t.PredictResponse = cands[ci].call, cands[ci].step.Response
			j.add(t, cands[ci].index)
		case mode == Subset:
			j.Unscored = append(j.Unscored, t.TurnNo)
		default:
			j.add(t, -1)
		}
	}
	for ci, c := range cands {
		if matched[ci] {
			continue
		}
		if mode == Superset {
			j.Allowed = append(j.Allowed, c.index)
			continue
		}
		t := metrics.Turn{DialogID: j.Dialog.ID, TurnNo: maxTurn + c.seq + 1, Role: c.step.Role, HasPredict: true,
			Predict: c.call, PredictResponse: c.step.Response, UserTurn: b.userTurn(c.seg)}
		if blockOf[ci] != "" {
			t.Tags = []string{blockOf[ci]}
		}
		j.add(t, c.index)
	}
	return nil
}

func (j *Joined) add(t metrics.Turn, pred int) {
	j.Dialog.Turns = append(j.Dialog.Turns, t)
	j.PredOf = append(j.PredOf, pred)
}

// sort orders the rows by turn number, keeping PredOf parallel.
func (j *Joined) sort() {
	idx := make([]int, len(j.PredOf))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return j.Dialog.Turns[a].TurnNo - j.Dialog.Turns[b].TurnNo })
	turns := make([]metrics.Turn, len(idx))
	preds := make([]int, len(idx))
	for k, i := range idx {
		turns[k], preds[k] = j.Dialog.Turns[i], j.PredOf[i]
	}
	j.Dialog.Turns, j.PredOf = turns, preds
}

// weigher scores (gold, prediction) pairs with the tiered objective.
type weigher struct {
	mode             Mode
	q                int64 // resolution of pair quality
	sub, tool, exact int64 // tier units
	bounds           *bounds
}

// newWeigher sizes the tiers so that no number of lower-tier pairs (at most
// n) adds up to one higher-tier pair, and the total stays far from overflow.
func newWeigher(mode Mode, n int) (*weigher, error) {
	nn := int64(n)
	q := int64(1000)
	for q > 1 && float64(nn)*float64(nn)*float64(nn)*float64(nn)*float64(q+1) > 1e18 {
		q /= 10
	}
	if float64(nn)*float64(nn)*float64(nn)*float64(nn)*float64(q+1) > 1e18 {
		return nil, fmt.Errorf("%d gold turns and predictions are too many to align", n-1)
	}
	w := &weigher{mode: mode, q: q}
	w.sub = nn*(q+1) + 1
	w.tool = nn*(w.sub+q+1) + 1
	w.exact = nn*(w.tool+w.sub+q+1) + 1
	return w, nil
}

// pair returns the weight of matching gold row g with candidate c, and
// false when they cannot be matched.
func (w *weigher) pair(g *metrics.Turn, c *candidate) (int64, bool) {
	if g.Role != c.step.Role || !w.bounds.allow(g.TurnNo, c.seg) {
		return 0, false
	}
	if g.Kind() == metrics.KindResponse {
		return w.exact + int64(min(1, max(0, metrics.LexicalSimilarity(g.GoldResponse, c.step.Response)))*float64(w.q)), true
	}
	q := int64(argQuality(g.Gold.Args, c.call.Args) * float64(w.q))
	switch {
	case g.Gold.ToolID == c.call.ToolID && g.Gold.Action == c.call.Action:
		return w.exact + q, true
	case g.Gold.ToolID == c.call.ToolID:
		return w.tool + q, true
	case w.mode == Strict || w.mode == Unordered:
		return w.sub + q, true
	}
	return 0, false
}

// sequence aligns in order: a dynamic programme over gold units (a single
// turn, or an order-invariant block matched to a window of predictions).
// It returns the candidate matched to each gold row (-1 when none) and, for
// each candidate inside a block's window, the block's tag.
func (w *weigher) sequence(scored []*metrics.Turn, cands []candidate) ([]int, []string) {
	units := blockUnits(scored)
	n, m := len(units), len(cands)
	dp := make([][]int64, n+1)
	for i := range dp {
		dp[i] = make([]int64, m+1)
	}
	for i := 1; i <= n; i++ {
		u := units[i-1]
		for j := 0; j <= m; j++ {
			best := dp[i-1][j]
			if j > 0 {
				best = max(best, dp[i][j-1])
				if u.tag == "" {
					if x, ok := w.pair(scored[u.rows[0]], &cands[j-1]); ok {
						best = max(best, dp[i-1][j-1]+x)
					}
				} else {
					for k := max(0, j-len(u.rows)-2); k < j; k++ {
						s, _ := w.block(scored, u, cands[k:j])
						best = max(best, dp[i-1][k]+s)
					}
				}
			}
			dp[i][j] = best
		}
	}
	match := make([]int, len(scored))
	for i := range match {
		match[i] = -1
	}
	blockOf := make([]string, m)
	for i, j := n, m; i > 0; {
		u := units[i-1]
		switch {
		case j > 0 && dp[i][j] == dp[i][j-1]:
			j--
			continue
		case j > 0 && u.tag == "":
			if x, ok := w.pair(scored[u.rows[0]], &cands[j-1]); ok && dp[i-1][j-1]+x == dp[i][j] && x > 0 {
				match[u.rows[0]] = j - 1
				i, j = i-1, j-1
				continue
			}
		case j > 0:
			if k, asg, ok := w.window(dp[i-1], dp[i][j], scored, u, cands, j); ok {
				for a, c := range asg {
					if c >= 0 {
						match[u.rows[a]] = k + c
					}
				}
				for c := k; c < j; c++ {
					blockOf[c] = u.tag
				}
				i, j = i-1, k
				continue
			}
		}
		i-- // the gold unit is left unmatched
	}
	return match, blockOf
}

// window finds the window [k, j) whose block score explains dp[i][j],
// preferring the shortest one.
func (w *weigher) window(prev []int64, target int64, scored []*metrics.Turn, u unit, cands []candidate, j int) (int, []int, bool) {
	for k := j - 1; k >= max(0, j-len(u.rows)-2); k-- {
		s, asg := w.block(scored, u, cands[k:j])
		if s > 0 && prev[k]+s == target {
			return k, asg, true
		}
	}
	return 0, nil, false
}

// block matches a block's gold rows to a window of candidates in any order
// (an exact assignment); it returns the total weight and, per block row,
// the matched candidate's offset in the window (-1 when none).
func (w *weigher) block(scored []*metrics.Turn, u unit, win []candidate) (int64, []int) {
	size := max(len(u.rows), len(win))
	m := make([][]int64, size)
	for a := range m {
		m[a] = make([]int64, size)
		for b := 0; a < len(u.rows) && b < len(win); b++ {
			if x, ok := w.pair(scored[u.rows[a]], &win[b]); ok {
				m[a][b] = x
			}
		}
	}
	asg := metrics.MaxWeightAssignment(m)
	var total int64
	out := make([]int, len(u.rows))
	for a := range u.rows {
		out[a] = -1
		if b := asg[a]; b < len(win) && m[a][b] > 0 {
			out[a], total = b, total+m[a][b]
		}
	}
	return total, out
}

// assign matches every gold row with any candidate (unordered mode).
func (w *weigher) assign(scored []*metrics.Turn, cands []candidate) []int {
	u := unit{rows: make([]int, len(scored))}
	for i := range u.rows {
		u.rows[i] = i
	}
	_, asg := w.block(scored, u, cands)
	return asg
}

// unit is one element of the gold sequence: a single row (tag "") or the
// rows of an order-invariant block, placed at its first row.
type unit struct {
	tag  string
	rows []int // indexes into scored
}

func blockUnits(scored []*metrics.Turn) []unit {
	var units []unit
	at := map[string]int{}
	for i, r := range scored {
		tag := blockTag(r)
		if tag == "" {
			units = append(units, unit{rows: []int{i}})
			continue
		}
		if k, ok := at[tag]; ok {
			units[k].rows = append(units[k].rows, i)
			continue
		}
		at[tag] = len(units)
		units = append(units, unit{tag: tag, rows: []int{i}})
	}
	return units
}

func blockTag(t *metrics.Turn) string {
	for _, tag := range t.Tags {
		if strings.HasPrefix(tag, metrics.OrderInvariantPrefix) {
			return tag
		}
	}
	return ""
}

// argQuality is the mean of the key overlap (Jaccard) and the share of gold
// arguments given with an equal value; 1 when both are empty.
func argQuality(gold, pred map[string]any) float64 {
	if len(gold) == 0 && len(pred) == 0 {
		return 1
	}
	common, equal := 0, 0
	for k, g := range gold {
		p, ok := pred[k]
		if !ok {
			continue
		}
		common++
		if sameValue(g, p) {
			equal++
		}
	}
	union := len(gold) + len(pred) - common
	share := 0.0
	if len(gold) > 0 {
		share = float64(equal) / float64(len(gold))
	}
	return (float64(common)/float64(union) + share) / 2
}

// sameValue compares a gold value (possibly a {"$any": [...]} spec) with a
// predicted one, exactly.
func sameValue(g, p any) bool {
	if m, ok := g.(map[string]any); ok {
		if alts, ok := m["$any"].([]any); ok {
			for _, a := range alts {
				if reflect.DeepEqual(a, p) {
					return true
				}
			}
			return false
		}
	}
	return reflect.DeepEqual(g, p)
}

// bounds says which user turn a gold row belongs to and which predictions
// may answer it: when the gold has User turns and the predictions carry
// the user's messages, the k-th predicted user message stands for the
// k-th gold User turn, and a gold row of user turn k (the rows after the
// k-th User row and before the next) can be matched only by a prediction
// made after the k-th user message and before the next. Predictions after
// the last user message the predictions carry answer the gold's remaining
// user turns (a log that stops recording the user stays scoreable); user
// messages beyond the gold's belong to its last user turn. A nil *bounds
// allows every pair.
type bounds struct {
	seg   map[int]int // gold turn_no -> gold User rows before it
	users []int       // turn_no of the gold's k-th User row, k from 1
	n     int         // the user messages the predictions carry
}

// newBounds bounds the alignment by user turns; nil when the gold has no
// User turns or the predictions carry no user message.
func newBounds(userRows []metrics.Turn, predUsers int) *bounds {
	if len(userRows) == 0 || predUsers == 0 {
		return nil
	}
	b := &bounds{seg: map[int]int{}, n: predUsers}
	for _, u := range userRows {
		b.users = append(b.users, u.TurnNo)
	}
	return b
}

// segOf is the user turn (0: before the first) of gold turn turnNo.
func (b *bounds) segOf(turnNo int) int {
	k, _ := slices.BinarySearch(b.users, turnNo)
	return k
}

// allow reports whether a gold row may be matched by a prediction made
// after seg user messages.
func (b *bounds) allow(goldTurnNo, seg int) bool {
	if b == nil {
		return true
	}
	g, last := b.segOf(goldTurnNo), len(b.users)
	if seg == b.n && b.n < last {
		return g >= seg
	}
	return g == min(seg, last)
}

// userTurn is the turn_no of the gold User turn a prediction made after
// seg user messages belongs to (metrics.Turn.UserTurn); -1 when none
// (before the first, or without bounds).
func (b *bounds) userTurn(seg int) int {
	if b == nil || seg == 0 {
		return -1
	}
	return b.users[min(seg, len(b.users))-1]
}
