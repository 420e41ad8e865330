package metrics

import (
	"fmt"
	"testing"
)

func BenchmarkEvaluateExample(b *testing.B) {
	ds := loadJSONL(b, "../datasets/example/golden.jsonl")
	m := Default()
	for b.Loop() {
		if _, err := m.Evaluate(b.Context(), Lexical{}, ds); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLexicalSimilarity(b *testing.B) {
	for b.Loop() {
		LexicalSimilarity("EMEA Q3 revenue by product line", "EMEA Q3 profit by product line")
	}
}

// BenchmarkOrderInvariantBlock decides a reversed 50-turn block (Hungarian
// on a 50×50 matrix, 2,500 candidate pairings).
func BenchmarkOrderInvariantBlock(b *testing.B) {
	var turns []string
	for i := 1; i <= 50; i++ {
		turns = append(turns, toolTurn(i, "OrderInvariant_big", fmt.Sprintf(`"city-%d"`, i), fmt.Sprintf(`"city-%d"`, 51-i)))
	}
	d := blockDialog(b, turns...)
	sims := lexicalSims(Default().Requests(d))
	for b.Loop() {
		if _, err := Default().Decide(d, sims, "lexical"); err != nil {
			b.Fatal(err)
		}
	}
}
