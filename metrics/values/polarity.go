package values

import (
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics/features"
)

// answerOf reads the yes or no a reply opens with ("Yes, ...", "No.",
// "Nope!"): the word must be followed by punctuation, so "No problem" and
// "Yes we can" are no answers. It returns "yes", "no" or "".
func answerOf(clauses []string) string {
	if len(clauses) == 0 {
		return ""
	}
	c := strings.TrimSpace(clauses[0])
	word, rest := c, ""
	if i := strings.IndexAny(c, ",.!;:—-"); i > 0 {
		word, rest = c[:i], c[i:]
	}
	if rest == "" && len(clauses) == 1 && word != c {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(word)) {
	case "yes", "yeah", "yep", "yup", "correct", "affirmative":
		return "yes"
	case "no", "nope", "nah", "negative":
		return "no"
	}
	return ""
}

// answerEnd is where the yes or no clause c opens with ends (its
// separator included); ok is false when it opens with none.
func answerEnd(c string) (int, bool) {
	if answerOf([]string{c}) == "" {
		return 0, false
	}
	if i := strings.IndexAny(c, ",.!;:—-"); i > 0 {
		return i + 1, true
	}
	return len(c), true
}

// negationWords negate the clause they are in; "out of" ("out of stock")
// and the un- words below too.
var negationWords = map[string]bool{
	"not": true, "no": true, "never": true, "none": true, "nothing": true, "nobody": true, "nowhere": true,
	"cannot": true, "neither": true, "nor": true, "without": true, "unable": true, "unavailable": true,
	"unsuccessful": true,
}

// clauseSense is a clause's content words (negation words and function
// words aside; "unavailable" gives "available"), all its words, and
// whether it is negated.
type clauseSense struct {
	words, all map[string]bool
	negated    bool
}

// senseOf reads the sense of clause c from its tokens ts, leaving out
// the yes or no it opens with.
func senseOf(c string, ts []features.Token) clauseSense {
	if cut, ok := answerEnd(c); ok {
		k := 0
		for k < len(ts) && ts[k].Offset < cut {
			k++
		}
		ts = ts[k:]
	}
	s := clauseSense{words: map[string]bool{}, all: map[string]bool{}}
	for i, t := range ts {
		w := strings.ReplaceAll(t.Lower, "’", "'")
		s.all[w] = true
		switch {
		case negationWords[w] || strings.HasSuffix(w, "n't"):
			s.negated = true
			if stem, ok := strings.CutPrefix(w, "un"); ok && w != "unable" {
				s.words[stem] = true
			}
		case w == "out" && i+1 < len(ts) && ts[i+1].Lower == "of":
			s.negated = true
		case !features.IsFunctionWord(w) && t.Kind == features.Word:
			s.words[w] = true
		}
	}
	return s
}

// polarityMatch is the share of content words two clauses must share
// (Dice) for one's negation to contradict the other: a clause and its
// negation say the same thing but for "not".
const polarityMatch = 0.75

// polarityContradiction finds a yes against a no, or a gold clause
// whose closest predicted clause (most shared content words, see match:
// at least polarityMatch of them, two words at least) negates what it
// states, states what it negates, or swaps a word for its antonym. A gold clause the prediction repeats word for
// word is its own closest clause: it contradicts nothing.
func polarityContradiction(gold, pred []string, gt, pt [][]features.Token) (Contradiction, bool) {
	ga, pa := answerOf(gold), answerOf(pred)
	if ga != "" && pa != "" && ga != pa {
		return Contradiction{Kind: FactAnswer, Gold: answerWord(gold[0]), Pred: answerWord(pred[0])}, true
	}
	var ps []clauseSense // the predicted clauses' senses, once one is needed
	for gi, g := range gold {
		if slices.Contains(pred, g) {
			continue // said alike: its closest predicted clause is itself
		}
		if ps == nil {
			ps = make([]clauseSense, len(pred))
			for i, p := range pred {
				ps[i] = senseOf(p, pt[i])
			}
		}
		gs := senseOf(g, gt[gi])
		if len(gs.words) < 2 {
			continue
		}
		best, bestDice := -1, 0.0
		for i, p := range ps {
			if d := match(gs, p); d > bestDice {
				best, bestDice = i, d
			}
		}
		if best < 0 || bestDice < polarityMatch {
			continue
		}
		if gs.negated != ps[best].negated {
			return Contradiction{Kind: FactPolarity, Gold: strings.TrimSpace(g), Pred: strings.TrimSpace(pred[best])}, true
		}
		if gw, pw, ok := swappedAntonym(gs.all, ps[best].all); ok {
			return Contradiction{Kind: FactPolarity, Gold: gw, Pred: pw}, true
		}
	}
	return Contradiction{}, false
}

// match is how closely two clauses say the same thing: the Dice share of
// their content words, a word against its antonym counting as one shared
// word, so that "the refund was approved" and "the refund was denied"
// match as closely as a clause and its negation.
func match(g, p clauseSense) float64 {
	if len(g.words)+len(p.words) == 0 {
		return 0
	}
	n := 0
	for w := range g.words {
		if p.words[w] {
			n++
		}
	}
	if hasSwappedAntonym(g.words, p.words) {
		n++
	}
	return 2 * float64(n) / float64(len(g.words)+len(p.words))
}

// answerWord is the yes or no a clause opens with, as written.
func answerWord(c string) string {
	c = strings.TrimSpace(c)
	if i := strings.IndexAny(c, ",.!;:—-"); i > 0 {
		return c[:i]
	}
	return c
}

// antonyms are words of opposite sense: two clauses that share most of
// their words and differ by one of these ("at the back door" / "at the
// front door", "sort ascending" / "sort descending") contradict, and so
// do two categorical tokens that differ by one ("buy" / "sell"). A list of
// the language, not of any dataset.
var antonyms = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range strings.Split(`front back|left right|open closed|opened closed|increase decrease|enable disable|
		enabled disabled|add remove|include exclude|accept reject|accepted rejected|approve deny|approved denied|buy sell|
		debit credit|deposit withdraw|deposit withdrawal|upgrade downgrade|start stop|lock unlock|locked unlocked|
		minimum maximum|min max|lowest highest|low high|ascending descending|asc desc|north south|east west|
		morning evening|income expense|import export|inbound outbound|arrival departure|arrive depart|inside outside|
		upstairs downstairs|win lose|gain loss|profit loss|true false|valid invalid|public private|internal external|
		online offline|input output|first last|oldest newest|old new|earliest latest|before after|above below|
		higher lower|more less|plus minus|positive negative|success failure|succeeded failed|available unavailable|
		active inactive|paid unpaid|read unread|subscribe unsubscribe|join leave|hot cold|heavy light|fast slow|
		early late|long short|wide narrow|inclusive exclusive|male female|day night|yes no|on off|up down|
		confirm cancel|confirmed cancelled|confirmed canceled|approve decline|approved declined|accepted declined|
		grant deny|granted denied|allowed denied|included excluded|passed failed|pass fail|present absent|
		complete incomplete|completed incomplete|eligible ineligible|possible impossible|legal illegal|
		correct incorrect|visible hidden|full empty|opens closes|arrived departed|added removed|
		increased decreased|started stopped|bought sold|won lost|joined left|upgraded downgraded|
		imported exported|subscribed unsubscribed|entered exited|raised lowered|gained lost`, "|") {
		w := strings.Fields(p)
		m[w[0]] = append(m[w[0]], w[1])
		m[w[1]] = append(m[w[1]], w[0])
	}
	return m
}()

// hasSwappedAntonym reports what swappedAntonym finds, without naming
// it (and so without sorting: match calls it for every pair of clauses).
func hasSwappedAntonym(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] && slices.ContainsFunc(antonyms[w], func(x string) bool { return b[x] && !a[x] }) {
			return true
		}
	}
	return false
}

// swappedAntonym finds a word one side has and the other lacks whose
// antonym the other side has and the first lacks.
func swappedAntonym(a, b map[string]bool) (string, string, bool) {
	words := make([]string, 0, len(a))
	for w := range a {
		words = append(words, w)
	}
	slices.Sort(words) // a fixed order: the same pair is named every time
	for _, w := range words {
		if b[w] {
			continue
		}
		for _, x := range antonyms[w] {
			if b[x] && !a[x] {
				return w, x, true
			}
		}
	}
	return "", "", false
}
