package composite

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// numbersMatter is a model that fails any comparison whose numbers differ
// and passes the rest.
func numbersMatter(scorerID string) *Model {
	return &Model{Features: []string{features.NumberMismatch}, Mean: []float64{0}, Scale: []float64{1}, Coefficients: []float64{-10},
		Intercept: 5, Threshold: 0.5, EmbeddingModel: EmbeddingModel{ID: scorerID}}
}

func TestScorerAppliesModelsByKind(t *testing.T) {
	inner := metrics.Lexical{}
	s, err := NewScorer(inner, map[string]*Model{metrics.SubTruthValues: numbersMatter("lexical")})
	if err != nil {
		t.Fatal(err)
	}
	cs := []metrics.Comparison{
		{Kind: metrics.CompareValue, Field: "t.a.when", Gold: "2024-06-14", Predicted: "2024-06-15"},
		{Kind: metrics.CompareValue, Field: "t.a.when", Gold: "2024-06-14", Predicted: "June 14, 2024"},
		{Kind: metrics.CompareReply, Field: "response", Gold: "It costs $5.", Predicted: "It costs $6."},
		{Kind: metrics.CompareClause, Field: "response.clause[0]", Gold: "It costs $5.", Predicted: "It costs $6."},
	}
	got, err := s.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := inner.Compare(context.Background(), cs)
	if got[0].By != ByComposite || got[0].Score > 0.01 || got[0].Cosine == nil || *got[0].Cosine != raw[0].Score {
		t.Errorf("changed date: %+v (cosine %v)", got[0], raw[0].Score)
	}
	if got[1].By != ByComposite || got[1].Score < 0.99 {
		t.Errorf("same date, other format: %+v", got[1])
	}
	// No model for replies and none by default; clauses never get one.
	for i := 2; i < 4; i++ {
		if got[i] != raw[i] {
			t.Errorf("comparison %d: %+v, want the inner scorer's %+v", i, got[i], raw[i])
		}
	}
	if !strings.HasPrefix(s.ID(), "lexical+composite:") || len(s.ID()) != len("lexical+composite:")+12 {
		t.Errorf("ID = %q, want the inner scorer's and the models' digest", s.ID())
	}
	// The default model covers replies too; other models, another ID.
	id := s.ID()
	s, _ = NewScorer(inner, map[string]*Model{DefaultKey: numbersMatter("lexical")})
	if s.ID() == id {
		t.Errorf("two fits, one ID %q", id)
	}
	got, _ = s.Compare(context.Background(), cs[2:])
	if got[0].By != ByComposite || got[1].By == ByComposite {
		t.Errorf("default model: %+v", got)
	}
}

func TestScorerRefuses(t *testing.T) {
	bad := numbersMatter("lexical")
	bad.Scale[0] = math.NaN()
	cases := []struct {
		name   string
		models map[string]*Model
		want   error
		says   string
	}{
		{"another embedding model", map[string]*Model{metrics.SubTruthValues: numbersMatter("embed:minilm@sha256:cd")}, ErrEmbeddingModel,
			"fitted on cosines of embed:minilm@sha256:cd, this run scores with lexical"},
		{"unknown sub-metric", map[string]*Model{"completeness.response": numbersMatter("lexical")}, ErrModel, "applies to"},
		{"invalid model", map[string]*Model{metrics.SubTruthResponse: bad}, ErrModel, "positive scale"},
	}
	for _, tc := range cases {
		_, err := NewScorer(metrics.Lexical{}, tc.models)
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want %v saying %q", tc.name, err, tc.want, tc.says)
		}
	}
}

func TestCheckEmbeddingModel(t *testing.T) {
	m := &Model{EmbeddingModel: EmbeddingModel{ID: "embed:use-lite@sha256:ab", SHA256: "ab"}}
	for id, ok := range map[string]bool{"embed:use-lite@sha256:ab": true, "embed:renamed@sha256:ab": true, "embed:use-lite@sha256:cd": false, "lexical": false} {
		if err := m.CheckEmbeddingModel(id); (err == nil) != ok {
			t.Errorf("%s: %v", id, err)
		}
	}
}
