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
}

var _ metrics.Scorer = (*Scorer)(nil)

// NewScorer returns a Scorer over e. The Scorer does not own e: close e
// when done with both.
func NewScorer(e *Embedder) *Scorer { return &Scorer{e: e} }

// ID is "embed:" + the model ID, e.g. "embed:use-lite@sha256:…".
func (s *Scorer) ID() string { return "embed:" + s.e.ModelID() }

// ScorerStats counts the pairs a Scorer was asked about.
type ScorerStats struct {
	Pairs        int64 // pairs scored
	ExactMatches int64 // pairs of identical strings (scored 1 without the model)
}

// Stats returns the Scorer's counters; the Embedder's Stats cover the model side.
func (s *Scorer) Stats() ScorerStats {
	return ScorerStats{Pairs: s.pairs.Load(), ExactMatches: s.exact.Load()}
}

type pair struct{ a, b string }

// Compare implements metrics.Scorer: the cosine of each comparison's Gold
// and Predicted strings (Kind, Field and Context do not change it), decided
// by metrics.ByEmbed. Strings and pairs shared between comparisons are
// embedded and scored once.
func (s *Scorer) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	gold, pred := make([]string, len(cs)), make([]string, len(cs))
	for i, c := range cs {
		gold[i], pred[i] = c.Gold, c.Predicted
	}
	scores, err := s.Score(ctx, gold, pred)
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
	vecs, err := s.e.embedShared(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("embedding %d strings for %s: %w", len(texts), s.ID(), err)
	}
	for p, idx := range pairs {
		c := cosine(vecs[need[p.a]], vecs[need[p.b]])
		for _, i := range idx {
			out[i] = c
		}
	}
	return out, nil
}
