package features

import (
	"slices"
	"strings"
	"unicode"
)

// functionWords are English closed-class words (articles, pronouns,
// prepositions, conjunctions, auxiliaries and modals, and a few discourse
// words). They carry grammar, not task content: they are never names,
// never informative on their own (Vocabulary), and a capitalised one at
// the start of a sentence says nothing. This is a list of the language,
// not of any dataset.
var functionWords = setOf(`a an the this that these those some any each every either neither both all no
	i me my mine myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers herself
	it its itself they them their theirs themselves one ones someone somebody something anyone anybody anything
	everyone everybody everything nothing nobody none here there where when why how what which who whom whose
	and or but nor so yet if then than because as while until unless although though whether
	of at by for with about against between into through during before after above below to from up down
	in out on off over under again further once onto upon within without across along around behind beyond near
	is am are was were be been being have has had having do does did doing done
	will would shall should can could may might must ought let
	not very too also just only even still already else more most much many few less least other such same own
	please yes ok okay sure well oh hi hello hey thanks thank`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// IsFunctionWord reports whether a case-folded word is an English
// closed-class word (see Vocabulary).
func IsFunctionWord(lower string) bool { return functionWords[lower] }

// isName reports whether a word token is (part of) a name: capitalised
// where capitalisation means something (not the first word of a sentence,
// unless the whole text is capitalised words, as a value such as "Paris"
// or "Alice Chen" is), or an acronym of two or more capitals anywhere.
// Function words and single letters are never names.
func isName(t Token, titled bool) bool {
	if t.Kind != Word || functionWords[t.Lower] || !capitalised(t) || len([]rune(t.Text)) < 2 {
		return false // a lone capital is an initial or an abbreviation ("C" for celsius)
	}
	return !t.Initial || titled || isAcronym(t.Text)
}

func capitalised(t Token) bool { return unicode.IsUpper([]rune(t.Text)[0]) }

// titled reports whether ts reads as a name or a value rather than a
// sentence: every word that is not a function word is capitalised, and
// there are two such words or the text is a single word ("Paris", "Alice
// Chen", "New York City"; not "Want me to do anything else?").
func titled(ts []Token) bool {
	content := 0
	for _, t := range ts {
		if t.Kind != Word || functionWords[t.Lower] {
			continue
		}
		if !capitalised(t) {
			return false
		}
		content++
	}
	return content >= 2 || len(ts) == 1
}

// isAcronym reports two or more letters, all capitals (dots allowed: "D.C").
func isAcronym(s string) bool {
	n := 0
	for _, c := range s {
		switch {
		case c == '.':
		case unicode.IsUpper(c):
			n++
		default:
			return false
		}
	}
	return n >= 2
}

// nameMatches marks which names of a are found in b: the same word
// (case-insensitively), an acronym of a run of b's words ("NYC" in
// "New York City"), or a word of a run of a whose initials are an acronym
// in b. It returns how many of a's name tokens were found, and how many
// there are.
func nameMatches(a, b []Token) (found, total int) {
	bWords := map[string]bool{}
	for _, t := range b {
		bWords[strings.ReplaceAll(t.Lower, ".", "")] = true
	}
	covered := make([]bool, len(a))
	aTitled := titled(a)
	// Runs of a spelled by an acronym of b.
	for _, t := range b {
		if t.Kind == Word && isAcronym(t.Text) {
			markInitials(a, covered, strings.ToLower(strings.ReplaceAll(t.Text, ".", "")))
		}
	}
	for i, t := range a {
		if !isName(t, aTitled) {
			continue
		}
		total++
		switch {
		case covered[i], bWords[strings.ReplaceAll(t.Lower, ".", "")]:
			found++
		case isAcronym(t.Text) && spellsRun(b, strings.ToLower(strings.ReplaceAll(t.Text, ".", ""))):
			found++
		}
	}
	return found, total
}

// initials returns the first letters of ts, lower-cased.
func initial(t Token) rune { return unicode.ToLower([]rune(t.Text)[0]) }

// markInitials marks every run of ts whose initials spell acr.
func markInitials(ts []Token, covered []bool, acr string) {
	want := []rune(acr)
	for i := range ts {
		if i+len(want) > len(ts) {
			return
		}
		ok := true
		for k, c := range want {
			if ts[i+k].Kind != Word || initial(ts[i+k]) != c {
				ok = false
				break
			}
		}
		if ok {
			for k := range want {
				covered[i+k] = true
			}
		}
	}
}

// spellsRun reports whether some run of ts has initials acr.
func spellsRun(ts []Token, acr string) bool {
	covered := make([]bool, len(ts))
	markInitials(ts, covered, acr)
	for _, c := range covered {
		if c {
			return true
		}
	}
	return false
}

// negations are words that negate a statement.
var negations = setOf(`not no never none nobody nothing neither nor nowhere cannot without`)

// negated reports whether a text contains a negation ("not", "never",
// "don't", "cannot", ...).
func negated(ts []Token) bool {
	for _, t := range ts {
		if negations[t.Lower] || strings.HasSuffix(t.Lower, "n't") || strings.HasSuffix(t.Lower, "n’t") {
			return true
		}
	}
	return false
}

// nameRuns returns the runs of consecutive name tokens of ts (isName),
// each as its tokens.
func nameRuns(ts []Token) [][]Token {
	var out [][]Token
	var run []Token
	ttl := titled(ts)
	for _, t := range ts {
		if isName(t, ttl) {
			run = append(run, t)
			continue
		}
		if len(run) > 0 {
			out = append(out, run)
			run = nil
		}
	}
	if len(run) > 0 {
		out = append(out, run)
	}
	return out
}

// MissingNames returns the names of gold (runs of name tokens: "Alice
// Chen", "North America", "EMEA") that pred does not mention, each as
// written in gold, in order, leaving out those in ctx (what the user
// said; nil for nothing). A name is mentioned when pred has one of its
// words (case-insensitively: "New York" mentions "New York City", "Chen"
// mentions "Alice Chen"), spells it as an acronym ("NYC"), or when the
// name is an acronym of words pred has ("EMEA" for "Europe, Middle East
// and Africa"). A wholly different name ("Deepak Rao" for "Alice Chen",
// "APAC" for "North America") is missing.
func MissingNames(gold, pred []Token, ctx Context) []string {
	runs := nameRuns(gold)
	if len(runs) == 0 {
		return nil
	}
	predWords := make(map[string]bool, len(pred))
	for _, t := range pred {
		predWords[strings.ReplaceAll(t.Lower, ".", "")] = true
	}
	var out []string
	for _, run := range runs {
		mentioned, said := false, true
		var words []string
		for _, t := range run {
			w := strings.ReplaceAll(t.Lower, ".", "")
			words = append(words, t.Text)
			said = said && ctx[t.Lower]
			mentioned = mentioned || predWords[w] || isAcronym(t.Text) && spellsRun(pred, w)
		}
		if !mentioned {
			covered := make([]bool, len(run))
			for _, p := range pred {
				if p.Kind == Word && isAcronym(p.Text) {
					markInitials(run, covered, strings.ToLower(strings.ReplaceAll(p.Text, ".", "")))
				}
			}
			mentioned = slices.Contains(covered, true)
		}
		if !mentioned && !said {
			out = append(out, strings.Join(words, " "))
		}
	}
	return out
}
