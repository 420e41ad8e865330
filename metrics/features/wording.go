package features

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Wording returns how text states anchor (one of Anchors(Tokenize(text)),
// in the notation Anchors documents), as people write it: the words of
// text it was read from, with a currency sign before them or a percent
// sign after ("June 3", "$49.99", "12%"). When text does not state it
// (the text was shortened, or the anchor came from elsewhere) it is
// Describe(anchor).
func Wording(text, anchor string) string {
	ts := Tokenize(text)
	starts := tokenStarts(text, ts)
	for i := 0; i < len(ts); {
		as, n := anchorAt(ts, i)
		n = max(n, 1)
		for _, a := range as {
			if a == anchor {
				last := ts[i+n-1]
				return widen(text, starts[i], starts[i+n-1]+len(last.Text))
			}
		}
		i += n
	}
	return Describe(anchor)
}

// tokenStarts are the byte offsets of ts in text (Tokenize takes tokens
// as substrings, in order).
func tokenStarts(text string, ts []Token) []int {
	out := make([]int, len(ts))
	at := 0
	for k, t := range ts {
		at += strings.Index(text[at:], t.Text)
		out[k] = at
		at += len(t.Text)
	}
	return out
}

// widen extends text[from:to] over a currency sign just before it and a
// percent sign just after it.
func widen(text string, from, to int) string {
	if r, w := utf8.DecodeLastRuneInString(text[:from]); w > 0 && unicode.Is(unicode.Sc, r) {
		from -= w
	}
	if r, w := utf8.DecodeRuneInString(text[to:]); w > 0 && (r == '%' || r == '‰') {
		to += w
	}
	return text[from:to]
}

// Describe writes an anchor the way people write its value, for messages
// that have no text to quote: n25.5 is "25.5", n4500000 "4,500,000",
// d2024-06-03 "June 3, 2024", d-06-03 "June 3", t15:00 "15:00", q3 "Q3",
// c8gflcx "8GFLCX", x1.2.3 "1.2.3". Something that is not an anchor is
// returned as given.
func Describe(anchor string) string {
	if anchor == "" {
		return ""
	}
	body := anchor[1:]
	switch anchor[0] {
	case 'n':
		if v, err := strconv.ParseFloat(body, 64); err == nil {
			return groupThousands(body, v)
		}
	case 'd':
		if t, err := time.Parse("2006-01-02", body); err == nil {
			return t.Format("January 2, 2006")
		}
		if t, err := time.Parse("-01-02", body); err == nil {
			return t.Format("January 2")
		}
	case 't':
		if _, err := time.Parse("15:04", body); err == nil {
			return body
		}
	case 'q':
		if quarter, ok := quarterCode(anchor); ok {
			return strings.ToUpper(quarter)
		}
	case 'c':
		return strings.ToUpper(body)
	case 'x':
		return body
	}
	return anchor
}

// groupThousands writes a number's whole part in groups of three digits
// ("4500000" is "4,500,000"), keeping its fraction as written.
func groupThousands(s string, v float64) string {
	if v > -1000 && v < 1000 {
		return s
	}
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for k, c := range whole {
		if k > 0 && (len(whole)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if hasFrac {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}
