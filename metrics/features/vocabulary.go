package features

import (
	"math"
	"slices"
	"strings"
)

// Vocabulary holds how often words occur in a dataset's gold replies (the
// number of replies using each word), learned in a first pass over the
// input, and weighs how informative a gold clause is.
//
// A clause carries task content when it states an anchor (a number, date,
// time or code: Anchors), a name (a capitalised word inside a sentence, an
// acronym), or a content word that is neither an English function word nor
// common in the dataset's gold replies: used by at least CommonShare of
// them, and by at least CommonMin. Its weight is the sum of its words'
// informativeness: a name or anchor weighs as much as the rarest word can
// (log(N+1)), a content word its inverse document frequency
// log((N+1)/(df+1)), and a word the user already said in the dialog
// (Context) nothing: restating the question adds no information. A clause
// of weight 0 ("Anything else?", "Here is what I found.", "Let me know if
// you need more.") is not required for completeness.
//
// Build it with Add over every gold reply, in any order (the counts do not
// depend on it), then use it read-only: it is then safe for concurrent use.
type Vocabulary struct {
	replies int
	df      map[string]int
}

// Common words: a content word used by at least CommonShare of the gold
// replies, and by at least CommonMin of them, is common: openers and
// sign-offs repeat across replies, facts do not. The minimum keeps a small
// dataset (where every word is in some share of a few replies) from
// declaring everything common.
const (
	CommonShare = 0.10
	CommonMin   = 5
)

// NewVocabulary returns an empty vocabulary: with no replies added, every
// content word is informative.
func NewVocabulary() *Vocabulary { return &Vocabulary{df: map[string]int{}} }

// Add counts the words of one gold reply.
func (v *Vocabulary) Add(reply string) {
	v.replies++
	seen := map[string]bool{}
	for _, t := range Tokenize(reply) {
		if t.Kind == Word && !functionWords[t.Lower] && !seen[t.Lower] {
			seen[t.Lower] = true
			v.df[t.Lower]++
		}
	}
}

// Replies is the number of replies added.
func (v *Vocabulary) Replies() int { return v.replies }

// common reports a content word used by many gold replies.
func (v *Vocabulary) common(lower string) bool {
	df := v.df[lower]
	return df >= CommonMin && float64(df) >= CommonShare*float64(v.replies)
}

// idf is the inverse document frequency of a word.
func (v *Vocabulary) idf(lower string) float64 {
	return math.Log(float64(v.replies+1) / float64(v.df[lower]+1))
}

// Context is the words a user has said in a dialog before a reply,
// case-folded; Vocabulary.Weight gives them no weight.
type Context map[string]bool

// AddUtterance adds the words and anchors of a user turn to the context.
func (c Context) AddUtterance(utterance Text) {
	for _, t := range utterance.Tokens {
		c[t.Lower] = true
	}
	for _, a := range utterance.Anchors {
		c[a] = true
	}
}

// Weight is how informative a clause is (0: it carries no task content),
// given what the user said before (ctx, may be nil). A nil Vocabulary is
// an empty one.
func (v *Vocabulary) Weight(clause Text, ctx Context) float64 {
	if v == nil {
		v = NewVocabulary()
	}
	top := math.Log(float64(v.replies + 2))
	w := 0.0
	for _, a := range clause.Anchors {
		if !ctx[a] {
			w += top
		}
	}
	ts := clause.Tokens
	titledClause := titled(ts)
	for _, t := range ts {
		switch {
		case t.Kind != Word || functionWords[t.Lower] || ctx[t.Lower]:
		case isName(t, titledClause):
			w += top
		case !v.common(t.Lower) && !numberWord(t.Lower):
			w += math.Max(v.idf(t.Lower), 0.1)
		}
	}
	return w
}

// numberWord reports a spelled-out number, which Anchors already counts.
func numberWord(lower string) bool {
	head, _, _ := strings.Cut(lower, "-")
	_, small := smallNumbers[head]
	_, ten := tens[head]
	return small || ten || slices.Contains([]string{"first", "second", "third", "fourth", "quarter"}, lower)
}
