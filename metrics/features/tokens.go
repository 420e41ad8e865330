package features

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a token.
type Kind uint8

// Token kinds.
const (
	Word   Kind = iota // letters only ("revenue", "don't", "e-mail", "D.C")
	Number             // digits, possibly with separators or a unit suffix ("4.5", "1,000", "37.7M", "3rd", "8:05")
	Code               // letters and digits mixed ("UA-1542", "8GFLCX", "Q3")
)

// Token is one word of a text.
type Token struct {
	Text  string // as written
	Lower string // case-folded
	Kind  Kind
	// Initial is true for the first token of a sentence or clause, where
	// capitalisation says nothing about names.
	Initial bool
	// Offset is where Text starts in the tokenized text, in bytes.
	Offset int
}

// Text is a text's tokens and anchors, worked out once for the checks
// that read both (Vocabulary.Weight, Context.AddUtterance).
type Text struct {
	Tokens  []Token
	Anchors []string // Anchors(Tokens)
}

// Analyze tokenizes text and reads its anchors.
func Analyze(text string) Text {
	ts := Tokenize(text)
	return Text{Tokens: ts, Anchors: Anchors(ts)}
}

// Tokenize splits text into tokens: runs of letters, digits and marks,
// joined across '.', ',', ':', '-', '/' and apostrophes that sit between
// two such characters ("4.5", "1,000", "2024-06-14", "8:05", "don't").
// A comma joins digits only, so "Paris,London" is two tokens. Everything
// else (spaces, other punctuation, currency and percent signs) separates
// tokens and is dropped.
func Tokenize(text string) []Token {
	var out []Token
	initial := true
	for i := 0; i < len(text); {
		c, w := utf8.DecodeRuneInString(text[i:])
		if !isTokenRune(c) {
			if strings.ContainsRune(".!?;:\n…", c) {
				initial = true
			}
			i += w
			continue
		}
		j := tokenEnd(text, i+w, c)
		out = append(out, newToken(text[i:j], i, initial))
		initial = false
		i = j
	}
	return out
}

// tokenEnd is the byte offset where the token that runs up to j ends; prev
// is the rune before j. Tokens are substrings of the text: an invalid byte
// is never part of one (it reads as U+FFFD, which separates).
func tokenEnd(text string, j int, prev rune) int {
	for j < len(text) {
		c, w := utf8.DecodeRuneInString(text[j:])
		if isTokenRune(c) {
			prev, j = c, j+w
			continue
		}
		next, nw := utf8.DecodeRuneInString(text[j+w:])
		if nw > 0 && joins(prev, c, next) {
			prev, j = next, j+w+nw
			continue
		}
		break
	}
	return j
}

func isTokenRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsMark(c)
}

// joins reports whether connector c between a and b keeps one token.
func joins(a, c, b rune) bool {
	if !isTokenRune(a) || !isTokenRune(b) {
		return false
	}
	switch c {
	case ',':
		return unicode.IsDigit(a) && unicode.IsDigit(b)
	case '.', ':', '-', '/', '\'', '’':
		return true
	}
	return false
}

func newToken(s string, offset int, initial bool) Token {
	t := Token{Text: s, Lower: strings.ToLower(s), Initial: initial, Offset: offset}
	digits, letters := false, false
	for _, c := range s {
		digits = digits || unicode.IsDigit(c)
		letters = letters || unicode.IsLetter(c)
	}
	switch {
	case digits && (!letters || numberWithSuffix(t.Lower)):
		t.Kind = Number
	case digits:
		t.Kind = Code
	}
	return t
}

// numberWithSuffix reports a number written with a unit or ordinal suffix
// ("37.7m", "5k", "2bn", "3rd", "3pm", "8:05am").
func numberWithSuffix(lower string) bool {
	_, _, ok := splitSuffix(lower)
	return ok
}

// splitSuffix splits "37.7m" into "37.7" and "m" when the suffix is one of
// the known number suffixes.
func splitSuffix(lower string) (num, suffix string, ok bool) {
	i := strings.IndexFunc(lower, unicode.IsLetter)
	if i <= 0 {
		return "", "", false
	}
	num, suffix = lower[:i], lower[i:]
	if strings.IndexFunc(num, func(c rune) bool { return !unicode.IsDigit(c) && c != '.' && c != ',' && c != ':' }) >= 0 {
		return "", "", false
	}
	switch suffix {
	case "k", "m", "bn", "b", "st", "nd", "rd", "th", "am", "pm", "a.m", "p.m":
		return num, suffix, true
	}
	return "", "", false
}

// Words returns the case-folded text of every token.
func Words(tokens []Token) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = t.Lower
	}
	return out
}
