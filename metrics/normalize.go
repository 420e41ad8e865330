package metrics

import (
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// NormalizeText is the normalised-string tier of value comparison: the
// string in Unicode NFKC form, case-folded (cases.Fold: "Straße" and
// "STRASSE" agree), without white space, punctuation and modifier symbols
// (^ ` ´). Two strings that normalise alike match without a scorer call
// (method "normalized"): "April 1, 2024" and "april 1 2024", "New-York"
// and "new york". BFCL's checker does the same with a narrower rule (lower
// case, dropping " ,./-_*^").
func NormalizeText(s string) string {
	if ascii, ok := normalizeASCII(s); ok {
		return ascii
	}
	return normalizeUnicode(s)
}

// normalizeUnicode is NormalizeText's general path.
func normalizeUnicode(s string) string {
	folded := cases.Fold().String(norm.NFKC.String(s))
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.Is(unicode.Sk, r) {
			return -1
		}
		return r
	}, folded)
}

// normalizeASCII is NormalizeText for ASCII text, without the Unicode
// tables (ok is false for any other text): NFKC and case folding of ASCII
// are lower-casing.
func normalizeASCII(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			return "", false
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		case unicode.IsSpace(rune(c)) || unicode.IsPunct(rune(c)) || c == '^' || c == '`':
		default:
			b = append(b, c)
		}
	}
	return string(b), true
}
