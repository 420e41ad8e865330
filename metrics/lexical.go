package metrics

import (
	"context"
	"math"
	"strings"
	"unicode"
)

// Lexical is a deterministic lexical similarity Scorer needing no model: the
// cosine of case-folded word and character-trigram count vectors. Identical
// strings score 1, strings sharing no word or trigram score 0. It is for
// tests and `--scorer lexical`; it sees spelling, not meaning ("profit" and
// "revenue" score 0, "NYC" and "New York City" score low). Safe for
// concurrent use.
type Lexical struct{}

// ID implements Scorer.
func (Lexical) ID() string { return "lexical" }

// Compare implements Scorer: each comparison scores LexicalSimilarity of
// its strings, decided by ByLexical. Kind, Field and Context are not used.
func (Lexical) Compare(ctx context.Context, cs []Comparison) ([]Similarity, error) {
	out := make([]Similarity, len(cs))
	for i, c := range cs {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = Similarity{Score: LexicalSimilarity(c.Gold, c.Predicted), By: ByLexical}
	}
	return out, nil
}

// LexicalSimilarity is the similarity Lexical computes for one pair.
func LexicalSimilarity(a, b string) float64 {
	if a == b {
		return 1
	}
	fa, fb := lexicalFeatures(a), lexicalFeatures(b)
	var dot, na, nb int64
	for k, x := range fa {
		na += int64(x) * int64(x)
		dot += int64(x) * int64(fb[k])
	}
	for _, y := range fb {
		nb += int64(y) * int64(y)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	if dot == na && dot == nb {
		return 1 // same features: exactly 1, not 0.9999999999999999
	}
	// Integer sums make the result independent of map iteration order.
	return clamp01(float64(dot) / (math.Sqrt(float64(na)) * math.Sqrt(float64(nb))))
}

// lexicalFeatures counts words ("w:word") and the trigrams of each word
// padded with spaces ("t: wo"), after lower-casing.
func lexicalFeatures(s string) map[string]int {
	f := map[string]int{}
	for _, w := range words(s) {
		f["w:"+w]++
		r := []rune(" " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			f["t:"+string(r[i:i+3])]++
		}
	}
	return f
}

// words splits text into lower-cased runs of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
