package embed

import (
	"context"
	"testing"

	"github.com/aem-dev/aem/metrics"
)

// TestScorerCompare checks the metrics.Scorer adapter: one answer per
// comparison, in order, equal to Score on the same strings, decided by
// "embed", with strings shared between comparisons embedded once.
func TestScorerCompare(t *testing.T) {
	for _, be := range testBackends(t) {
		e := openTest(t, tinyDir(t), be, nil)
		s := NewScorer(e)
		ctx := context.Background()
		cs := []metrics.Comparison{
			{Kind: metrics.CompareValue, Field: "t.a.p", Gold: "the cat", Predicted: "the mat"},
			{Kind: metrics.CompareValue, Field: "t.a.q", Gold: "the cat", Predicted: "the mat"},
			{Kind: metrics.CompareReply, Field: "response", Gold: "hello world", Predicted: "world"},
			{Kind: metrics.CompareClause, Field: "response.clause[0]", Context: "ignored", Gold: "dog", Predicted: "the cat"},
		}
		got, err := s.Compare(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		if st := e.Stats(); st.StringsEmbedded != 5 { // the cat, the mat, hello world, world, dog
			t.Errorf("%s: embedded %d strings, want 5", be, st.StringsEmbedded)
		}
		// By the kinds that asked: "the cat" for a value and a clause (shared).
		byKind := ScorerStats{Pairs: 4, EmbeddedValues: 1, EmbeddedReplies: 2, EmbeddedClauses: 1, EmbeddedShared: 1}
		if st := s.Stats(); st != byKind {
			t.Errorf("%s: scorer stats %+v, want %+v", be, st, byKind)
		}
		// Asked again, with an identical pair: nothing more is embedded or counted.
		if _, err := s.Compare(ctx, append(cs, metrics.Comparison{Kind: metrics.CompareReply, Gold: "new", Predicted: "new"})); err != nil {
			t.Fatal(err)
		}
		byKind.Pairs, byKind.ExactMatches = 9, 1
		if st := s.Stats(); st != byKind {
			t.Errorf("%s: after a repeat: scorer stats %+v, want %+v", be, st, byKind)
		}
		want, err := s.Score(ctx, []string{"the cat", "the cat", "hello world", "dog"}, []string{"the mat", "the mat", "world", "the cat"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(cs) {
			t.Fatalf("%s: %d answers for %d comparisons", be, len(got), len(cs))
		}
		for i := range got {
			if got[i].Score != want[i] || got[i].By != metrics.ByEmbed {
				t.Errorf("%s: comparison %d = %+v, want score %v by %q", be, i, got[i], want[i], metrics.ByEmbed)
			}
		}
		if got[0].Score == 1 || got[0].Score != got[1].Score {
			t.Errorf("%s: the same pair at two fields scored %v and %v", be, got[0].Score, got[1].Score)
		}
		ctxDone, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := s.Compare(ctxDone, []metrics.Comparison{{Gold: "new words", Predicted: "other words"}}); err == nil {
			t.Errorf("%s: a cancelled Compare succeeded", be)
		}
	}
}
