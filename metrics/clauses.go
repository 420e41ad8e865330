package metrics

import (
	"strings"
	"unicode"
)

// maxAbbrevRunes bounds the look-back for abbreviations and initials, so
// splitting stays linear in the text length.
const maxAbbrevRunes = 16

// isAbbreviation reports lower-cased words whose period does not end a sentence.
func isAbbreviation(w string) bool {
	switch w {
	case "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "jr", "sr", "fig", "approx":
		return true
	}
	return false
}

// SplitClauses splits a reply into the clauses completeness is checked on.
//
// A clause ends at a newline, at a semicolon, or at '.', '!', '?' or '…'
// (optionally followed by closing quotes or brackets) when whitespace or the
// end of the text follows. A period does not end a clause after a single
// letter ("J. Smith", "U.S."), after a known abbreviation ("e.g.", "etc.",
// "Dr."), or after a list number at the start of a clause ("1. Revenue").
// Decimals ("1.5") never split because no whitespace follows the point.
// Clauses are trimmed; bullet markers ("- ", "* ", "• ") are removed, and
// pieces with no letter or digit are dropped. Commas and conjunctions do not
// split: they too often join parts of one claim.
func SplitClauses(text string) []string {
	runes := []rune(text)
	var out []string
	start := 0
	for i := 0; i < len(runes); i++ {
		end, ok := clauseEnd(runes, start, i)
		if !ok {
			continue
		}
		out = appendClause(out, string(runes[start:end]))
		start, i = end, end-1
	}
	return appendClause(out, string(runes[start:]))
}

// clauseEnd reports whether a clause that began at start ends at rune i,
// and the index just past it.
func clauseEnd(r []rune, start, i int) (int, bool) {
	switch r[i] {
	case '\n', '\r', ';':
		return i + 1, true
	case '!', '?', '…':
	case '.':
		if !periodEnds(r, start, i) {
			return 0, false
		}
	default:
		return 0, false
	}
	j := i + 1
	for j < len(r) && strings.ContainsRune(`"'”’)]»`, r[j]) {
		j++
	}
	if j < len(r) && !unicode.IsSpace(r[j]) {
		return 0, false
	}
	return j, true
}

// periodEnds reports whether the period at i can end a sentence.
func periodEnds(r []rune, start, i int) bool {
	k := i
	for k > start && i-k < maxAbbrevRunes && (unicode.IsLetter(r[k-1]) || unicode.IsDigit(r[k-1]) || r[k-1] == '.') {
		k--
	}
	if k > start && i-k == maxAbbrevRunes {
		return true // a long word: no abbreviation, initial or list number
	}
	word := strings.ToLower(string(r[k:i]))
	if isAbbreviation(word) {
		return false
	}
	if isInitials(word) && (k == start || unicode.IsSpace(r[k-1])) {
		return false // an initial ("J.") or an acronym such as "U.S."
	}
	return !(word != "" && isDigits(word) && allSpace(r[start:k]))
}

// allSpace reports whether r is empty or only white space.
func allSpace(r []rune) bool {
	for _, c := range r {
		if !unicode.IsSpace(c) {
			return false
		}
	}
	return true
}

func appendClause(out []string, s string) []string {
	s = strings.TrimSpace(s)
	for _, b := range []string{"- ", "* ", "• "} {
		s = strings.TrimSpace(strings.TrimPrefix(s, b))
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return out
	}
	return append(out, s)
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// isInitials reports whether s is single letters joined by periods ("j", "u.s").
func isInitials(s string) bool {
	for _, part := range strings.Split(s, ".") {
		r := []rune(part)
		if len(r) != 1 || !unicode.IsLetter(r[0]) {
			return false
		}
	}
	return true
}
