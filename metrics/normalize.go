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
	folded := cases.Fold().String(norm.NFKC.String(s))
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.Is(unicode.Sk, r) {
			return -1
		}
		return r
	}, folded)
}
