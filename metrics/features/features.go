package features

import (
	"math"
	"strings"
)

// Feature names, in the order of a Vector.
const (
	Cosine           = "cosine"            // the embedding similarity, as given
	TokenOverlap     = "token_overlap"     // Dice coefficient of the sets of case-folded words
	CharOverlap      = "char_overlap"      // Dice coefficient of the character-trigram multisets
	BigramOverlap    = "bigram_overlap"    // Dice coefficient of the word-bigram sets (with start and end marks)
	Order            = "order"             // the shared words' longest common subsequence over their number: 1 = same order
	NumberMismatch   = "number_mismatch"   // share of the anchors (Anchors) stated on one side only
	NameMismatch     = "name_mismatch"     // share of the names found on one side only
	NegationMismatch = "negation_mismatch" // 1 when exactly one side negates
	LengthRatio      = "length_ratio"      // shorter over longer, in words
)

// Names returns the feature names in Vector order. Every name keeps its
// meaning for as long as it exists: a change of definition gets a new name,
// so a model fitted on one definition is never applied to another.
func Names() []string {
	return []string{Cosine, TokenOverlap, CharOverlap, BigramOverlap, Order, NumberMismatch, NameMismatch, NegationMismatch, LengthRatio}
}

// Vector is the features of one comparison, in Names order.
type Vector [9]float64

// Extract computes the features of a (gold, predicted) pair whose
// embedding cosine is cosine. Every feature but the cosine lies in [0, 1];
// a NaN cosine stays NaN for the caller to refuse.
func Extract(gold, pred string, cosine float64) Vector {
	g, p := Tokenize(gold), Tokenize(pred)
	gw, pw := Words(g), Words(p)
	return Vector{
		cosine,
		dice(setOfWords(gw), setOfWords(pw)),
		diceCounts(trigrams(gw), trigrams(pw)),
		dice(bigrams(gw), bigrams(pw)),
		order(gw, pw),
		mismatch(Anchors(g), Anchors(p)),
		nameMismatch(g, p),
		b2f(negated(g) != negated(p)),
		lengthRatio(len(gw), len(pw)),
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func setOfWords(ws []string) map[string]int {
	m := make(map[string]int, len(ws))
	for _, w := range ws {
		m[w] = 1
	}
	return m
}

// dice is 2|A∩B| / (|A|+|B|) of two sets; 1 when both are empty.
func dice(a, b map[string]int) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common := 0
	for k := range a {
		if b[k] > 0 {
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// diceCounts is dice over multisets: 2 Σ min(a,b) / (Σa + Σb).
func diceCounts(a, b map[string]int) float64 {
	na, nb, common := 0, 0, 0
	for k, x := range a {
		na += x
		common += min(x, b[k])
	}
	for _, y := range b {
		nb += y
	}
	if na+nb == 0 {
		return 1
	}
	return 2 * float64(common) / float64(na+nb)
}

// trigrams counts the character trigrams of the words joined by single
// spaces and padded with a space at each end.
func trigrams(ws []string) map[string]int {
	m := map[string]int{}
	if len(ws) == 0 {
		return m
	}
	r := []rune(" " + strings.Join(ws, " ") + " ")
	for i := 0; i+3 <= len(r); i++ {
		m[string(r[i:i+3])]++
	}
	return m
}

// bigrams returns the set of adjacent word pairs, with a start and an end
// mark, so a one-word text has two ("^ paris", "paris $").
func bigrams(ws []string) map[string]int {
	m := map[string]int{}
	if len(ws) == 0 {
		return m
	}
	prev := "^"
	for _, w := range append(ws[:len(ws):len(ws)], "$") {
		m[prev+" "+w] = 1
		prev = w
	}
	return m
}

// order is the longest common subsequence of the two word sequences,
// restricted to the words they share, over the number of shared word
// occurrences: 1 when the shared words come in the same order ("the dog
// bit the man" / "the dog bit a man"), lower when they are reordered ("the
// man bit the dog"). 1 when fewer than two words are shared.
func order(a, b []string) float64 {
	ca, cb := map[string]int{}, map[string]int{}
	for _, w := range a {
		ca[w]++
	}
	for _, w := range b {
		cb[w]++
	}
	var sa, sb []string
	for _, w := range a {
		if cb[w] > 0 {
			sa = append(sa, w)
		}
	}
	for _, w := range b {
		if ca[w] > 0 {
			sb = append(sb, w)
		}
	}
	shared := min(len(sa), len(sb))
	if shared < 2 {
		return 1
	}
	return float64(lcs(sa, sb)) / float64(shared)
}

// lcs is the length of the longest common subsequence, in O(len(a)·len(b))
// time and O(len(b)) space.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			default:
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// mismatch is the share of the union of two sorted anchor lists that only
// one side states; 0 when neither states any.
func mismatch(a, b []string) float64 {
	onlyA, onlyB := len(DiffAnchors(a, b)), len(DiffAnchors(b, a))
	union := len(a) + len(b) - (len(a) - onlyA) // shared counted once
	if union <= 0 {
		return 0
	}
	return math.Min(1, float64(onlyA+onlyB)/float64(union))
}

// nameMismatch is the share of name tokens (of both sides) not found on
// the other side; 0 when neither side has a name.
func nameMismatch(g, p []Token) float64 {
	fg, ng := nameMatches(g, p)
	fp, np := nameMatches(p, g)
	if ng+np == 0 {
		return 0
	}
	return float64(ng-fg+np-fp) / float64(ng+np)
}

// lengthRatio is the shorter length over the longer; 1 when both are 0.
func lengthRatio(a, b int) float64 {
	if max(a, b) == 0 {
		return 1
	}
	return float64(min(a, b)) / float64(max(a, b))
}
