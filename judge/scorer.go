package judge

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
)

// Band is the uncertain band of the first scorer's scores, bounds
// included: an Escalation asks the judge about the comparisons whose score
// lies in it.
type Band struct{ Low, High float64 }

// DefaultBand is where an embedding cosine is least trustworthy: single
// words and near-identical sentences of different meaning score there
// (revenue/profit 0.66, NYC/New York City 0.80 with USE-lite).
var DefaultBand = Band{Low: 0.35, High: 0.8}

// DefaultProbabilityBand is the band of a fitted composite's probability
// when none is given: where the composite is less than 80% sure either
// way. A composite's probability is calibrated on human labels, so the
// same band means the same uncertainty whatever the model (aem sweep
// --fit measures it on held-out labels).
var DefaultProbabilityBand = Band{Low: 0.2, High: 0.8}

// EveryScore is the band of `--scorer judge`: every comparison goes to
// the judge.
var EveryScore = Band{Low: math.Inf(-1), High: math.Inf(1)}

// Bands are an Escalation's uncertain bands, one per scale of the first
// scorer's score: Similarity for a similarity (an embedding cosine, a
// lexical score), Probability for a fitted composite's probability (the
// comparisons the first scorer answers with By metrics.ByComposite).
type Bands struct {
	Similarity Band
	// Probability is set when the first scorer may answer with a fitted
	// composite's probability; nil otherwise (a probability would then
	// meet DefaultProbabilityBand).
	Probability *Band
}

// For is the band for a first score decided by by.
func (b Bands) For(by string) Band {
	if by != composite.ByComposite {
		return b.Similarity
	}
	if b.Probability == nil {
		return DefaultProbabilityBand
	}
	return *b.Probability
}

// String is "0.35:0.8", "0.35:0.8 composite 0.2:0.8" with a probability
// band, "all" when every score is in.
func (b Bands) String() string {
	s := b.Similarity.String()
	if b.Probability == nil || *b.Probability == EveryScore && b.Similarity == EveryScore {
		return s
	}
	return s + " composite " + b.Probability.String()
}

// Contains reports whether score lies in the band.
func (b Band) Contains(score float64) bool { return score >= b.Low && score <= b.High }

// String is the band as ParseBand reads it ("0.35:0.8"; "all" for EveryScore).
func (b Band) String() string {
	if b == EveryScore {
		return "all"
	}
	return strconv.FormatFloat(b.Low, 'g', -1, 64) + ":" + strconv.FormatFloat(b.High, 'g', -1, 64)
}

// ParseBand reads a similarity band: "LOW:HIGH" (two scores in [-1, 1],
// LOW <= HIGH) or "all".
func ParseBand(s string) (Band, error) { return parseBand(s, -1, "0.35:0.8") }

// ParseProbabilityBand reads a band of a composite's probability:
// "LOW:HIGH" (in [0, 1], LOW <= HIGH) or "all".
func ParseProbabilityBand(s string) (Band, error) { return parseBand(s, 0, "0.2:0.8") }

func parseBand(s string, min float64, example string) (Band, error) {
	if s == "all" {
		return EveryScore, nil
	}
	lo, hi, ok := strings.Cut(s, ":")
	if !ok {
		return Band{}, fmt.Errorf("judge band %q: write LOW:HIGH, for example %s", s, example)
	}
	l, err1 := strconv.ParseFloat(strings.TrimSpace(lo), 64)
	h, err2 := strconv.ParseFloat(strings.TrimSpace(hi), 64)
	switch {
	case err1 != nil || err2 != nil:
		return Band{}, fmt.Errorf("judge band %q: LOW and HIGH must be numbers, for example %s", s, example)
	case l < min || h > 1 || math.IsNaN(l) || math.IsNaN(h):
		return Band{}, fmt.Errorf("judge band %q: the bounds must lie in [%g, 1]", s, min)
	case l > h:
		return Band{}, fmt.Errorf("judge band %q: LOW is above HIGH", s)
	}
	return Band{Low: l, High: h}, nil
}

// Escalation is a metrics.Scorer that scores every comparison with a first
// scorer (the embedding, or fitted composites over it) and asks the judge
// about those whose score lies in the band for its scale (Bands.For: a
// similarity or a composite's probability); the judge's answer decides
// them (metrics.ByJudge, its score, its reason) and the first score is
// kept (Similarity.Judge.FirstScore). A judge error leaves the first
// scorer's decision, with the error recorded. With EveryScore every
// comparison goes to the judge, and the first scorer's score is still
// there for the side-by-side calibration and as the fallback.
//
// Alternatives of one decision (metrics.Comparison.Among: a gold clause
// against each clause of a predicted reply, of which the best decides) are
// escalated as a group, so that a covered clause costs one call, not one
// per clause of the reply: none when one alternative scores above the
// band (the first scorer passes it with confidence; the band is meant to
// hold the threshold); otherwise the in-band ones from the highest first
// score down, one per round across all groups, until the judge finds one
// equivalent. The alternatives left out are Spared (the metric does not
// keep them as the best); each lies below an alternative the first scorer
// or the judge accepted, so the decision is the one judging them all
// would give. An alternative that gets a judge error counts as not
// equivalent. A Moot comparison (no verdict turns on it) is never sent.
// It is safe for concurrent use.
type Escalation struct {
	first metrics.Scorer
	judge *Judge
	bands Bands

	comparisons, escalated, spared, moot, judgeErrors atomic.Int64
}

var _ metrics.Scorer = (*Escalation)(nil)

// NewEscalation returns an Escalation over first and j. It owns neither.
func NewEscalation(first metrics.Scorer, j *Judge, bands Bands) *Escalation {
	return &Escalation{first: first, judge: j, bands: bands}
}

// ID names both scorers and the bands, so that runs judged differently are
// never compared as equals:
// "embed:use-lite@sha256:…+judge:gpt-4o-mini@prompt-2[band 0.35:0.8]".
func (e *Escalation) ID() string {
	return e.first.ID() + "+" + e.judge.ID() + "[band " + e.bands.String() + "]"
}

// Bands returns the bands the Escalation asks the judge in.
func (e *Escalation) Bands() Bands { return e.bands }

// Compare implements metrics.Scorer.
func (e *Escalation) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out, err := e.first.Compare(ctx, cs)
	if err != nil {
		return nil, err
	}
	if len(out) != len(cs) {
		return nil, fmt.Errorf("%s returned %d answers for %d comparisons", e.first.ID(), len(out), len(cs))
	}
	e.comparisons.Add(int64(len(cs)))
	ask, queues := e.plan(cs, out)
	for len(ask) > 0 {
		if err := e.ask(ctx, cs, out, ask); err != nil {
			return nil, err
		}
		// The next round: the next alternative of each group whose head
		// the judge did not find equivalent.
		ask = ask[:0]
		for qi := range queues {
			q := &queues[qi]
			if q.done(out) {
				continue
			}
			ask, q.next = append(ask, q.members[q.next]), q.next+1
		}
	}
	for _, q := range queues {
		for _, i := range q.members[q.next:] {
			out[i].Spared = true
		}
	}
	e.spared.Add(int64(sparedCount(queues)))
	return out, nil
}

// queue is one group of alternatives still to judge: its in-band
// members, highest first score first, and how many have been sent.
type queue struct {
	members []int
	next    int
}

// done reports whether the member sent last was found equivalent, or
// none is left to send.
func (q *queue) done(out []metrics.Similarity) bool {
	if q.next > 0 {
		if s := out[q.members[q.next-1]]; s.By == metrics.ByJudge && s.Score >= metrics.JudgeThreshold {
			return true
		}
	}
	return q.next == len(q.members)
}

// sparedCount is the number of in-band alternatives never sent.
func sparedCount(queues []queue) int {
	n := 0
	for _, q := range queues {
		n += len(q.members) - q.next
	}
	return n
}

// plan returns the first round to send (every in-band comparison that is
// no alternative, and the first of each group's in-band alternatives)
// and the groups' queues, the first already taken. Groups come in order
// of their first comparison; a group with an alternative above the band
// has no queue, its in-band ones are spared at once.
func (e *Escalation) plan(cs []metrics.Comparison, out []metrics.Similarity) (ask []int, queues []queue) {
	type groupKey struct {
		kind                      metrics.CompareKind
		field, gold, alternatives string
	}
	index := map[groupKey]int{}
	var groups []queue
	above := map[int]bool{}
	for i, s := range out {
		band := e.bands.For(s.By)
		c := cs[i]
		if c.Moot {
			if band.Contains(s.Score) {
				e.moot.Add(1)
			}
			continue
		}
		if c.Among == "" {
			if band.Contains(s.Score) {
				ask = append(ask, i)
			}
			continue
		}
		k := groupKey{c.Kind, c.Field, c.Gold, c.Among}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, queue{})
		}
		switch {
		case s.Score > band.High:
			above[g] = true
		case band.Contains(s.Score):
			groups[g].members = append(groups[g].members, i)
		}
	}
	for g, q := range groups {
		if above[g] {
			for _, i := range q.members {
				out[i].Spared = true
			}
			e.spared.Add(int64(len(q.members)))
			continue
		}
		if len(q.members) == 0 {
			continue
		}
		slices.SortStableFunc(q.members, func(a, b int) int { return cmp.Compare(out[b].Score, out[a].Score) })
		ask = append(ask, q.members[0])
		q.next = 1
		queues = append(queues, q)
	}
	return ask, queues
}

// ask sends the comparisons at indices at to the judge and records its
// answers in out.
func (e *Escalation) ask(ctx context.Context, cs []metrics.Comparison, out []metrics.Similarity, at []int) error {
	req := make([]Comparison, len(at))
	for k, i := range at {
		c := cs[i]
		req[k] = Comparison{Kind: Kind(c.Kind), Field: c.Field, Context: c.Context, Gold: c.Gold, Predicted: c.Predicted}
	}
	e.escalated.Add(int64(len(req)))
	vs, err := e.judge.Compare(ctx, req)
	if err != nil {
		return err
	}
	for k, v := range vs {
		s := &out[at[k]]
		note := &metrics.JudgeNote{FirstScore: s.Score, FirstBy: s.By, Cosine: s.Score}
		if s.Cosine != nil {
			note.Cosine = *s.Cosine
		}
		s.Judge = note
		if v.Err != nil {
			e.judgeErrors.Add(1)
			note.Error = v.Err.Error()
			continue
		}
		s.Score, s.By, note.Reason = v.Score, metrics.ByJudge, v.Reason
	}
	return nil
}

// Escalates reports that an Escalation lets a judge decide: the batch
// pipeline then records what the first scorer alone would have decided.
func (e *Escalation) Escalates() bool { return true }

// EscalationStats counts what an Escalation did; the Judge's Stats cover
// the calls.
type EscalationStats struct {
	Comparisons int64 // comparisons scored by the first scorer
	Escalated   int64 // of those, sent to the judge (their score lay in the band)
	// Spared are in-band alternatives not sent: another alternative of
	// theirs scored above the band or was found equivalent.
	Spared int64
	// Moot are in-band comparisons not sent because no verdict turns on
	// them (metrics.Comparison.Moot).
	Moot        int64
	JudgeErrors int64 // escalated comparisons the judge gave no answer for (decided by the first scorer)
}

// Stats returns the counters so far.
func (e *Escalation) Stats() EscalationStats {
	return EscalationStats{Comparisons: e.comparisons.Load(), Escalated: e.escalated.Load(), Spared: e.spared.Load(),
		Moot: e.moot.Load(), JudgeErrors: e.judgeErrors.Load()}
}
