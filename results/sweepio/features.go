package sweepio

import (
	"strings"

	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/rundir"
)

// EmbeddingModelOf reads the embedding model from a scorer ID such as
// "embed:use-lite@sha256:4b1f…": the first scorer's ID (before any
// "+composite:…" or "+judge:…") and the sha256 after "@sha256:" ("" when
// the scorer names none, as the lexical one).
func EmbeddingModelOf(scorerID string) composite.EmbeddingModel {
	first, _, _ := strings.Cut(scorerID, "+")
	_, sha, _ := strings.Cut(first, "@sha256:")
	return composite.EmbeddingModel{ID: first, SHA256: sha}
}

// comparedTexts returns the gold and predicted strings a turn's field
// score compared (rundir.Texts.Compared): for a gold clause, the clause
// and its best predicted clause.
func comparedTexts(t *turnView, fs rundir.FieldScoreRow) (gold, pred string, ok bool) {
	for _, c := range t.Clauses {
		if c.Field == fs.Field {
			if c.PredictedText == nil {
				return "", "", false
			}
			return c.Gold, *c.PredictedText, true
		}
	}
	return rundir.Texts{Kind: t.Kind, GoldToolID: t.GoldToolID, GoldAction: t.GoldAction, GoldArgs: t.GoldArgs,
		PredictArgs: t.PredictArgs, GoldResponse: t.GoldResponse, PredictResponse: t.PredResponse}.Compared(fs.Field)
}

// withFeatures sets a sample's features from the texts its field score
// compared, when they can be found.
func withFeatures(s *sweep.Sample, t *turnView, fs rundir.FieldScoreRow) {
	if g, p, ok := comparedTexts(t, fs); ok {
		s.Features, s.HasFeatures = features.Extract(g, p, fs.FirstScore()), true
	}
}
