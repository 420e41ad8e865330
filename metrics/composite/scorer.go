package composite

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// ByComposite is the decider a Scorer records for the comparisons it
// scores (metrics.Similarity.By); the metric holds them to
// metrics.Thresholds.Composite.
const ByComposite = metrics.ByComposite

// DefaultKey is the key of the model that applies to value and reply
// comparisons whose sub-metric has no model of its own (a model fitted on
// all labels pooled, or on labelled pairs).
const DefaultKey = metrics.CompositeDefault

// SubMetricOf is the sub-metric whose model applies to a comparison kind:
// parameter values and whole replies. Clause comparisons have none: a
// clause's similarity feeds completeness coverage as it is.
func SubMetricOf(k metrics.CompareKind) string {
	switch k {
	case metrics.CompareValue:
		return metrics.SubTruthValues
	case metrics.CompareReply:
		return metrics.SubTruthResponse
	}
	return ""
}

// ErrEmbeddingModel means a model was fitted with another embedding model
// than the one scoring the run.
var ErrEmbeddingModel = errors.New("composite fitted with another embedding model")

// Scorer applies fitted composites over another scorer: for every value
// and reply comparison whose sub-metric has a model (or DefaultKey does),
// the score becomes the model's probability of the comparison's features,
// computed from the texts and the inner scorer's cosine; the cosine is
// kept in Similarity.Cosine. Other comparisons pass through unchanged.
// It is safe for concurrent use when the inner scorer is.
type Scorer struct {
	inner  metrics.Scorer
	models map[string]*Model
	id     string
}

// NewScorer validates the models and checks that each was fitted with
// the inner scorer's embedding model (ID, and the sha256 of its weights
// when the model records one).
func NewScorer(inner metrics.Scorer, models map[string]*Model) (*Scorer, error) {
	for k, m := range models {
		if !metrics.CompositeKey(k) {
			return nil, fmt.Errorf("%w: composite %q: a composite applies to %s, %s, %s or a value kind (kinds.name, ...)", ErrModel, k, metrics.SubTruthValues, metrics.SubTruthResponse, DefaultKey)
		}
		if err := m.Validate(); err != nil {
			return nil, fmt.Errorf("composite %q: %w", k, err)
		}
		if err := m.CheckEmbeddingModel(inner.ID()); err != nil {
			return nil, fmt.Errorf("composite %q: %w", k, err)
		}
	}
	b, err := json.Marshal(models) // map keys sorted: the same models give the same bytes
	if err != nil {
		return nil, fmt.Errorf("composite: %w", err)
	}
	sum := sha256.Sum256(b)
	return &Scorer{inner: inner, models: models, id: inner.ID() + "+composite:" + hex.EncodeToString(sum[:6])}, nil
}

// CheckEmbeddingModel refuses a model fitted with another embedding model
// than the scorer scorerID ("embed:use-lite@sha256:…").
func (m *Model) CheckEmbeddingModel(scorerID string) error {
	want := m.EmbeddingModel
	_, sha, _ := strings.Cut(scorerID, "@sha256:")
	same := want.ID == scorerID || (want.SHA256 != "" && want.SHA256 == sha)
	if !same {
		return fmt.Errorf("%w: it was fitted on cosines of %s, this run scores with %s; refit it with 'aem sweep --fit' on a run of this model, or run with --model set to the one it was fitted with",
			ErrEmbeddingModel, want.ID, scorerID)
	}
	return nil
}

// ID is the inner scorer's followed by "+composite:" and 12 hex digits of
// the models' sha256, so runs scored with other fits differ in their
// scorer (resume and compare check it) while the embedding model stays
// first, as thresholds.ModelOf reads it.
func (s *Scorer) ID() string { return s.id }

// ModelFor returns the model that applies to a comparison, or nil: its
// value kind's (a value comparison of kind name: "kinds.name"), else its
// sub-metric's, else the default one. Clause comparisons have none.
func (s *Scorer) ModelFor(c metrics.Comparison) *Model {
	sub := SubMetricOf(c.Kind)
	if sub == "" {
		return nil
	}
	if m, ok := s.models[metrics.KindKey(c.ValueKind)]; ok && c.Kind == metrics.CompareValue {
		return m
	}
	if m, ok := s.models[sub]; ok {
		return m
	}
	return s.models[DefaultKey]
}

// Compare implements metrics.Scorer.
func (s *Scorer) Compare(ctx context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	sims, err := s.inner.Compare(ctx, cs)
	if err != nil {
		return nil, err
	}
	if len(sims) != len(cs) {
		return nil, fmt.Errorf("composite: the inner scorer %s returned %d answers for %d comparisons", s.inner.ID(), len(sims), len(cs))
	}
	out := make([]metrics.Similarity, len(sims))
	for i, c := range cs {
		out[i] = sims[i]
		m := s.ModelFor(c)
		if m == nil {
			continue
		}
		cos := sims[i].Score
		out[i] = metrics.Similarity{Score: m.Probability(features.Extract(c.Gold, c.Predicted, cos)), By: ByComposite, Cosine: &cos}
	}
	return out, nil
}
