package embed

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/aem-dev/aem/metrics"
)

// Scorer is the embedding similarity metrics.Scorer: the cosine of the two
// strings' vectors (Compare for the metric, Score for plain string lists).
// Identical strings score exactly 1 without reaching the model; repeated
// pairs are computed once per call. It is safe for concurrent use;
// concurrent calls share model batches through the Embedder.
type Scorer struct {
	e     *Embedder
	pairs atomic.Int64
	exact atomic.Int64
	// embedded counts the strings Compare sent to the model, by the kinds
	// of comparison that asked for them (kindsShared: more than one).
	embedded [kindsShared + 1]atomic.Int64
}

// kinds indexes Scorer.embedded; a kindMask has one bit per kind.
const (
	kindValue = iota
	kindReply
	kindClause
	kindsShared
)

type kindMask uint8

func maskOf(k metrics.CompareKind) kindMask {
	switch k {
	case metrics.CompareValue:
		return 1 << kindValue
	case metrics.CompareReply:
		return 1 << kindReply
	case metrics.CompareClause:
		return 1 << kindClause
	}
	return 0
}

var _ metrics.Scorer = (*Scorer)(nil)

// NewScorer returns a Scorer over e. The Scorer does not own e: close e
// when done with both.
func NewScorer(e *Embedder) *Scorer { return &Scorer{e: e} }

// ID is "embed:" + the model ID, e.g. "embed:use-lite@sha256:…".
func (s *Scorer) ID() string { return "embed:" + s.e.ModelID() }

// ScorerStats counts the pairs a Scorer was asked about, and the strings
// Compare sent to the model by what the comparisons asking for them
// compare. A string asked for under several kinds at once (a reply that is
// its own single clause) is embedded once and counted in Shared; strings
// that Score or Embed alone sent are in none of them.
type ScorerStats struct {
	Pairs        int64 // pairs scored
	ExactMatches int64 // pairs of identical strings (scored 1 without the model)

	EmbeddedValues  int64 // parameter values (metrics.CompareValue)
	EmbeddedReplies int64 // whole replies (metrics.CompareReply)
	EmbeddedClauses int64 // reply clauses (metrics.CompareClause)
	EmbeddedShared  int64 // asked for under more than one kind
}

// Stats returns the Scorer's counters; the Embedder's Stats cover the model side.
func (s *Scorer) Stats() ScorerStats {
	return ScorerStats{Pairs: s.pairs.Load(), ExactMatches: s.exact.Load(),
		EmbeddedValues: s.embedded[kindValue].Load(), EmbeddedReplies: s.embedded[kindReply].Load(),
		EmbeddedClauses: s.embedded[kindClause].Load(), EmbeddedShared: s.embedded[kindsShared].Load()}
}

type pair struct{ a, b string }

// Compare implements metrics.Scorer: the cosine of each comparison's Gold
// and Predicted strings (Kind, Field and Context do not change it), decided
// by metrics.ByEmbed. Strings and pairs shared between comparisons are
// embedded and scored once.
func (s *Scorer) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	gold, pred := make([]string, len(cs)), make([]string, len(cs))
	kinds := make(map[string]kindMask) // by sanitized text, as the Embedder sees it
	for i, c := range cs {
		gold[i], pred[i] = c.Gold, c.Predicted
		if c.Gold != c.Predicted {
			for _, t := range []string{c.Gold, c.Predicted} {
				kinds[sanitize(t, s.e.info.MaxTokens)] |= maskOf(c.Kind)
			}
		}
	}
	scores, err := s.score(ctx, gold, pred, kinds)
	if err != nil {
		return nil, err
	}
	out := make([]metrics.Similarity, len(cs))
	for i, sc := range scores {
		out[i] = metrics.Similarity{Score: sc, By: metrics.ByEmbed}
	}
	return out, nil
}

// Score returns the cosine similarity, in [-1, 1], of each (gold[i],
// predicted[i]) pair.
func (s *Scorer) Score(ctx context.Context, gold, predicted []string) ([]float64, error) {
	return s.score(ctx, gold, predicted, nil)
}

// score is Score; kinds, when set, says which kinds of comparison asked
// for each (sanitized) string, to count the strings embedded by kind.
func (s *Scorer) score(ctx context.Context, gold, predicted []string, kinds map[string]kindMask) ([]float64, error) {
	if len(gold) != len(predicted) {
		return nil, fmt.Errorf("scoring %d gold strings against %d predicted ones: the lists must have the same length", len(gold), len(predicted))
	}
	out := make([]float64, len(gold))
	s.pairs.Add(int64(len(gold)))
	// Strings needing vectors, each once; pairs deduped.
	need := make(map[string]int)
	var texts []string
	want := func(t string) {
		if _, ok := need[t]; !ok {
			need[t] = len(texts)
			texts = append(texts, t)
		}
	}
	pairs := make(map[pair][]int)
	var exact int64
	for i := range gold {
		if gold[i] == predicted[i] {
			out[i] = 1
			exact++
			continue
		}
		p := pair{gold[i], predicted[i]}
		if _, ok := pairs[p]; !ok {
			want(p.a)
			want(p.b)
		}
		pairs[p] = append(pairs[p], i)
	}
	s.exact.Add(exact)
	if len(texts) == 0 {
		return out, nil
	}
	vecs, embedded, err := s.e.embedShared(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding %d strings for %s: %w", len(texts), s.ID(), err)
	}
	if kinds != nil {
		s.countKinds(embedded, kinds)
	}
	for p, idx := range pairs {
		c := cosine(vecs[need[p.a]], vecs[need[p.b]])
		for _, i := range idx {
			out[i] = c
		}
	}
	return out, nil
}

// countKinds adds the strings embedded to the counts of the kinds that
// asked for them.
func (s *Scorer) countKinds(embedded []string, kinds map[string]kindMask) {
	for _, t := range embedded {
		switch m := kinds[t]; m {
		case 1 << kindValue:
			s.embedded[kindValue].Add(1)
		case 1 << kindReply:
			s.embedded[kindReply].Add(1)
		case 1 << kindClause:
			s.embedded[kindClause].Add(1)
		default:
			if m != 0 {
				s.embedded[kindsShared].Add(1)
			}
		}
	}
}
