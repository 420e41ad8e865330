package review

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/tooldef"
)

// Options says which comparisons Select exports.
type Options struct {
	// Band is the uncertain range [Band[0], Band[1]] of the deciding
	// score; used when Near is 0.
	Band [2]float64
	// Near, when above 0, selects the comparisons whose score lies within
	// ±Near of the threshold they were held to instead of a band.
	Near float64
	// Limit is the most items exported (default DefaultLimit).
	Limit int
	// Tools gives the tools' and parameters' descriptions; nil for none.
	Tools *tooldef.Set
	// MaxText is the most characters of a text kept (default 2000).
	MaxText int
}

// Defaults.
const (
	DefaultLimit   = 200
	defaultMaxText = 2000
	// maxPairs bounds the distinct (gold, predicted) pairs whose
	// occurrences are counted (SamePair is a lower bound beyond it).
	maxPairs = 1 << 20
)

// DefaultBand is the uncertain band of scores when none is given.
var DefaultBand = [2]float64{0.4, 0.8}

// ErrOptions is wrapped by the error for options that cannot be used.
var ErrOptions = errors.New("bad review options")

// ParseBand reads a band "LO:HI" with 0 <= LO < HI.
func ParseBand(s string) ([2]float64, error) {
	lo, hi, ok := strings.Cut(s, ":")
	a, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	b, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	if !ok || err1 != nil || err2 != nil || math.IsNaN(a) || math.IsNaN(b) || a >= b {
		return [2]float64{}, fmt.Errorf("%w: band %q: give LO:HI with LO < HI, e.g. 0.4:0.8", ErrOptions, s)
	}
	return [2]float64{a, b}, nil
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Near < 0 || math.IsNaN(o.Near):
		return fmt.Errorf("%w: near %v: give a distance above 0", ErrOptions, o.Near)
	case o.Near == 0 && !(o.Band[0] < o.Band[1]):
		return fmt.Errorf("%w: band %v:%v is empty", ErrOptions, o.Band[0], o.Band[1])
	case o.Limit < 0 || o.MaxText < 0:
		return fmt.Errorf("%w: limits cannot be negative", ErrOptions)
	}
	return nil
}

// Stats says what Select saw.
type Stats struct {
	// Compared counts the comparisons a scorer decided; Candidates those
	// in the band; Pairs the distinct (gold, predicted) pairs among them.
	Compared, Candidates, Pairs int
	// Strata counts the (sub-metric, field) groups with candidates;
	// Represented those with an item (one of their pairs exported, maybe
	// as another group's item).
	Strata, Represented int
	// NoText counts candidates whose texts could not be found (a value
	// that is not a string); they are not exported.
	NoText int
}

// candidate is a comparison in the band, with its item built.
type candidate struct {
	item   Item
	margin float64 // |score − threshold|
	seq    int
	pair   uint64
}

// stratum keeps the Limit candidates closest to their threshold, one per
// distinct pair.
type stratum struct {
	key   string
	seen  int // candidates, duplicates included
	heap  candHeap
	pairs map[uint64]bool
}

// candHeap keeps the farthest from the threshold on top (to be evicted).
type candHeap []*candidate

func (h candHeap) Len() int           { return len(h) }
func (h candHeap) Less(i, j int) bool { return closer(h[j], h[i]) }
func (h candHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)        { *h = append(*h, x.(*candidate)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// closer orders candidates: nearer the threshold first, then input order.
func closer(a, b *candidate) bool {
	if a.margin != b.margin {
		return a.margin < b.margin
	}
	return a.seq < b.seq
}

// Select reads the run's turns in one pass and returns the items to
// review: the comparisons a scorer decided whose deciding score lies in
// the band (or near the threshold), deduplicated by (gold, predicted)
// pair, stratified by (sub-metric, field) so that every group is
// represented before any gets a second item, the nearest to the
// threshold first within a group, at most Limit of them. Memory is
// bounded by the number of groups times Limit.
func Select(ctx context.Context, rd *rundir.Run, opts Options) ([]Item, Stats, error) {
	if err := opts.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if opts.Limit == 0 {
		opts.Limit = DefaultLimit
	}
	if opts.MaxText == 0 {
		opts.MaxText = defaultMaxText
	}
	var st Stats
	strata := map[string]*stratum{}
	counts := map[uint64]int{}
	seq := 0
	for t, err := range rd.Turns(ctx) {
		if err != nil {
			return nil, st, err
		}
		for _, fs := range t.AllScores() {
			if !fs.ScorerDecided() {
				continue
			}
			st.Compared++
			score := fs.FirstScore()
			if !inBand(opts, score, fs) {
				continue
			}
			st.Candidates++
			c, ok := newCandidate(&t, fs, score, opts)
			if !ok {
				st.NoText++
				continue
			}
			seq++
			c.seq = seq
			if n, ok := counts[c.pair]; ok || len(counts) < maxPairs {
				counts[c.pair] = n + 1
			}
			key := c.item.SubMetric + " " + strataField(c.item.Field)
			s := strata[key]
			if s == nil {
				s = &stratum{key: key, pairs: map[uint64]bool{}}
				strata[key] = s
			}
			s.seen++
			s.add(c, opts.Limit)
		}
	}
	st.Pairs, st.Strata = len(counts), len(strata)
	items := pick(strata, opts.Limit, &st)
	for i := range items {
		items[i].ID = fmt.Sprintf("r%04d", i+1)
		items[i].Run, items[i].Scorer = rd.Location, rd.Summary.Scorer
		items[i].SamePair = max(1, counts[pairHash(items[i].Gold, items[i].Predicted)])
	}
	return items, st, nil
}

func inBand(o Options, score float64, fs rundir.FieldScoreRow) bool {
	if o.Near > 0 {
		// A judge's threshold does not move: near it means nothing.
		return !fs.Judged() && math.Abs(score-fs.Threshold) <= o.Near
	}
	return score >= o.Band[0] && score <= o.Band[1]
}

func (s *stratum) add(c *candidate, limit int) {
	if s.pairs[c.pair] {
		return // the same pair is already kept here
	}
	if len(s.heap) >= limit {
		if !closer(c, s.heap[0]) {
			return
		}
		delete(s.pairs, heap.Pop(&s.heap).(*candidate).pair)
	}
	heap.Push(&s.heap, c)
	s.pairs[c.pair] = true
}

// pick takes items round-robin over the strata (most candidates first),
// the nearest first within each, skipping pairs already taken.
func pick(strata map[string]*stratum, limit int, st *Stats) []Item {
	var ss []*stratum
	for _, s := range strata {
		slices.SortFunc(s.heap, func(a, b *candidate) int {
			if closer(a, b) {
				return -1
			}
			return 1
		})
		ss = append(ss, s)
	}
	slices.SortFunc(ss, func(a, b *stratum) int {
		if a.seen != b.seen {
			return b.seen - a.seen
		}
		return strings.Compare(a.key, b.key)
	})
	var out []Item
	taken := map[uint64]bool{}
	pos := make([]int, len(ss))
	for more := true; more && len(out) < limit; {
		more = false
		for i, s := range ss {
			for pos[i] < len(s.heap) && taken[s.heap[pos[i]].pair] {
				pos[i]++
			}
			if pos[i] >= len(s.heap) || len(out) >= limit {
				continue
			}
			c := s.heap[pos[i]]
			pos[i]++
			taken[c.pair] = true
			out = append(out, c.item)
			more = true
		}
	}
	// A group is represented when one of its pairs was taken, by it or by
	// another group holding the same pair.
	for _, s := range ss {
		if slices.ContainsFunc(s.heap, func(c *candidate) bool { return taken[c.pair] }) {
			st.Represented++
		}
	}
	return out
}

// indices matches array indices in a field path.
var indices = regexp.MustCompile(`\[\d+\]`)

// strataField is the field part of a stratum: the path with array indices
// folded (every element of a list, every clause of a reply, is one group).
func strataField(field string) string {
	return indices.ReplaceAllString(field, "[]")
}

func pairHash(gold, pred string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(gold))
	h.Write([]byte{0})
	h.Write([]byte(pred))
	return h.Sum64()
}

// clauseField matches a clause's field path, "response.clause[2]".
var clauseField = regexp.MustCompile(`^response\.clause\[(\d+)\]$`)

// newCandidate builds the item of one comparison; ok is false when its
// texts cannot be found.
func newCandidate(t *rundir.TurnRow, fs rundir.FieldScoreRow, score float64, opts Options) (*candidate, bool) {
	it := Item{
		Review: Version, DialogID: t.DialogID, Trial: t.Trial, TurnNo: t.TurnNo, Field: fs.Field,
		Kind: t.Kind, SubMetric: rundir.SubMetricOf(t.Kind, fs.Field),
		Score: score, Threshold: fs.Threshold, ThresholdFrom: fs.ThresholdFrom, Verdict: "fail",
	}
	if fs.Pass {
		it.Verdict = "pass"
	}
	if fs.By != nil {
		it.By = *fs.By
	}
	texts := rundir.TextsOf(t)
	gold, pred, ok := texts.Compared(fs.Field)
	switch {
	case ok && t.Kind == string(metrics.KindAction):
		it.GoldContext, it.PredictedContext = deref(t.GoldArgs), deref(t.PredictArgs)
		describe(&it, t, opts.Tools)
	case !ok && clauseRow(t, fs.Field) != nil:
		c := clauseRow(t, fs.Field)
		if c.PredictedText == nil {
			return nil, false
		}
		gold, pred = c.Gold, *c.PredictedText
		it.GoldContext, it.PredictedContext = deref(t.GoldResponse), deref(t.PredictResponse)
	case !ok && t.GoldResponse != nil && t.PredictResponse != nil:
		// A run written before the clauses column: the gold clause
		// against the whole reply.
		m := clauseField.FindStringSubmatch(fs.Field)
		if m == nil {
			return nil, false
		}
		i, _ := strconv.Atoi(m[1])
		clauses := metrics.SplitClauses(*t.GoldResponse)
		if i >= len(clauses) {
			return nil, false
		}
		gold, pred, it.GoldContext = clauses[i], *t.PredictResponse, *t.GoldResponse
	case !ok:
		return nil, false
	}
	it.Gold, it.Predicted = cut(gold, opts.MaxText), cut(pred, opts.MaxText)
	it.GoldContext, it.PredictedContext = cut(it.GoldContext, opts.MaxText), cut(it.PredictedContext, opts.MaxText)
	return &candidate{item: it, margin: math.Abs(score - fs.Threshold), pair: pairHash(it.Gold, it.Predicted)}, true
}

// clauseRow is the turn's clause of that field path, nil when none.
func clauseRow(t *rundir.TurnRow, field string) *rundir.ClauseRow {
	for i := range t.Clauses {
		if t.Clauses[i].Field == field {
			return &t.Clauses[i]
		}
	}
	return nil
}

// describe fills the tool and its descriptions.
func describe(it *Item, t *rundir.TurnRow, tools *tooldef.Set) {
	if t.GoldToolID == nil {
		return
	}
	c := metrics.Call{ToolID: *t.GoldToolID}
	if t.GoldAction != nil {
		c.Action = *t.GoldAction
	}
	it.Tool = c.FunctionName()
	if tools == nil {
		return
	}
	def := tools.Resolve(c.DefinitionNames()...)
	if def == nil {
		return
	}
	it.ToolDescription = def.Description
	rest := strings.TrimPrefix(it.Field, c.FieldBase()+".")
	param, _, _ := strings.Cut(rest, ".")
	param, _, _ = strings.Cut(param, "[")
	if def.Parameters != nil {
		if p := def.Parameters.Properties[param]; p != nil {
			it.ParamDescription = p.Description
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
