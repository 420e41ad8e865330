package features

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Anchors returns the facts a text states that wording cannot change,
// normalised, sorted and without duplicates:
//
//	n<number>      numbers: "4.5M", "4,500,000" and "4.5 million" are all n4500000;
//	               "12%" is n12, "3rd" n3, "two" n2, "twenty-five" n25
//	d<yyyy-mm-dd>  dates: "2024-06-14", "June 14, 2024", "14 June 2024";
//	d-<mm-dd>      a date without a year ("Jun 14th"), which DiffAnchors
//	               matches with any year
//	t<hh:mm>       times: "3 pm", "3pm", "15:00" are t15:00
//	q<1-4>         quarters: "Q3", "third quarter"
//	c<code>        codes mixing letters and digits ("8GFLCX"); a code with
//	               separators contributes its parts ("UA-1542": n1542,
//	               "SKU-1001": n1001), so "UA 1542" and "UA-1542" agree
//	x<text>        other digit strings that are none of the above ("1.2.3")
//
// Letters-only words are left to the name and word features.
func Anchors(tokens []Token) []string {
	var out []string
	for _, s := range AnchorSpans(tokens) {
		out = append(out, s.Anchor)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Span is one anchor (see Anchors) and the tokens it was read from:
// tokens[Start:End].
type Span struct {
	Anchor     string
	Start, End int
}

// AnchorSpans returns the anchors of tokens in text order, each with the
// tokens it was read from, duplicates kept: Anchors sorts them and drops
// the duplicates. A code with separators gives one span per part, over
// the same token.
func AnchorSpans(tokens []Token) []Span {
	var out []Span
	for i := 0; i < len(tokens); {
		a, n := anchorAt(tokens, i)
		for _, x := range a {
			out = append(out, Span{Anchor: x, Start: i, End: i + n})
		}
		i += max(n, 1)
	}
	return out
}

// anchorAt reads the anchors that start at tokens[i] and how many tokens
// they use (0 when none start there).
func anchorAt(ts []Token, i int) ([]string, int) {
	if d, n := dateAt(ts, i); n > 0 {
		return []string{d}, n
	}
	t := ts[i]
	switch t.Kind {
	case Number:
		return numberAt(ts, i)
	case Code:
		if q, ok := quarterCode(t.Lower); ok {
			return []string{q}, 1
		}
		return codeParts(t.Lower), 1
	}
	if q, n := quarterWords(ts, i); n > 0 {
		return []string{q}, n
	}
	if v, n := numberWords(ts, i); n > 0 {
		return []string{"n" + formatNumber(v)}, n
	}
	return nil, 0
}

var months = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
	"september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

// monthAt reads a month name; "May" and "March" must be capitalised (else
// they are the verbs).
func monthAt(t Token) (int, bool) {
	if t.Kind != Word {
		return 0, false
	}
	m, ok := months[strings.TrimSuffix(t.Lower, ".")]
	if !ok {
		return 0, false
	}
	if (t.Lower == "may" || t.Lower == "march") && !unicode.IsUpper([]rune(t.Text)[0]) {
		return 0, false
	}
	return m, true
}

// dayAt reads a day of the month ("14", "14th").
func dayAt(t Token) (int, bool) {
	if t.Kind != Number {
		return 0, false
	}
	s := t.Lower
	if num, suf, ok := splitSuffix(s); ok {
		if suf != "st" && suf != "nd" && suf != "rd" && suf != "th" {
			return 0, false
		}
		s = num
	}
	d, err := strconv.Atoi(s)
	return d, err == nil && d >= 1 && d <= 31
}

// yearAt reads a four-digit year.
func yearAt(ts []Token, i int) (int, bool) {
	if i >= len(ts) || ts[i].Kind != Number || len(ts[i].Lower) != 4 {
		return 0, false
	}
	y, err := strconv.Atoi(ts[i].Lower)
	return y, err == nil && y >= 1000 && y <= 2999
}

// dateAt reads "June 14[, 2024]", "14[th] [of] June [2024]" or "2024-06-14".
func dateAt(ts []Token, i int) (string, int) {
	date := func(y, m, d int) string {
		if y == 0 {
			return fmt.Sprintf("d-%02d-%02d", m, d)
		}
		return fmt.Sprintf("d%04d-%02d-%02d", y, m, d)
	}
	if m, ok := monthAt(ts[i]); ok && i+1 < len(ts) {
		if d, ok := dayAt(ts[i+1]); ok {
			if y, ok := yearAt(ts, i+2); ok {
				return date(y, m, d), 3
			}
			return date(0, m, d), 2
		}
	}
	if d, ok := dayAt(ts[i]); ok {
		j := i + 1
		if j < len(ts) && ts[j].Lower == "of" {
			j++
		}
		if j < len(ts) {
			if m, ok := monthAt(ts[j]); ok {
				if y, ok := yearAt(ts, j+1); ok {
					return date(y, m, d), j + 2 - i
				}
				return date(0, m, d), j + 1 - i
			}
		}
	}
	if t := ts[i]; t.Kind == Number && strings.Count(t.Lower, "-") == 2 {
		p := strings.Split(t.Lower, "-")
		y, e1 := strconv.Atoi(p[0])
		m, e2 := strconv.Atoi(p[1])
		d, e3 := strconv.Atoi(p[2])
		if e1 == nil && e2 == nil && e3 == nil && len(p[0]) == 4 && m >= 1 && m <= 12 && d >= 1 && d <= 31 {
			return date(y, m, d), 1
		}
	}
	return "", 0
}

// multipliers are number words and suffixes that scale the number before them.
var multipliers = map[string]float64{
	"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "mn": 1e6, "b": 1e9, "bn": 1e9, "billion": 1e9, "trillion": 1e12,
}

// numberAt reads a Number token: a time, an amount with its multiplier,
// an ordinal, or a plain number ("1,000", "4.5").
func numberAt(ts []Token, i int) ([]string, int) {
	t := ts[i]
	s, suf := t.Lower, ""
	if num, sf, ok := splitSuffix(s); ok {
		s, suf = num, sf
	}
	meridiem := suf == "am" || suf == "pm" || suf == "a.m" || suf == "p.m"
	used := 1
	if suf == "" && i+1 < len(ts) {
		switch ts[i+1].Lower {
		case "am", "pm", "a.m", "p.m":
			suf, meridiem, used = ts[i+1].Lower, true, 2
		}
	}
	if strings.Contains(s, ":") || meridiem {
		if tm, ok := clock(s, suf); ok {
			return []string{tm}, used
		}
		return []string{"x" + t.Lower}, 1
	}
	v, ok := parseAmount(s)
	if !ok {
		return []string{"x" + t.Lower}, 1
	}
	switch suf {
	case "st", "nd", "rd", "th":
		if i+1 < len(ts) && ts[i+1].Lower == "quarter" && v >= 1 && v <= 4 {
			return []string{"q" + formatNumber(v)}, 2
		}
	case "":
		if i+1 < len(ts) {
			if m, ok := multipliers[ts[i+1].Lower]; ok && ts[i+1].Lower != "m" && ts[i+1].Lower != "b" {
				v, used = v*m, 2
			}
		}
	default:
		v *= multipliers[suf]
	}
	return []string{"n" + formatNumber(v)}, used
}

// clock normalises "8:05", "3" + "pm", "12:30" + "am" to t<hh:mm>.
func clock(s, suf string) (string, bool) {
	hs, ms, found := strings.Cut(s, ":")
	h, err := strconv.Atoi(hs)
	if err != nil {
		return "", false
	}
	m := 0
	if found {
		if m, err = strconv.Atoi(ms); err != nil || len(ms) != 2 {
			return "", false
		}
	}
	switch suf {
	case "am", "a.m":
		if h == 12 {
			h = 0
		}
	case "pm", "p.m":
		if h < 12 {
			h += 12
		}
	}
	if h < 0 || h > 24 || m < 0 || m > 59 || (suf != "" && h > 23) {
		return "", false
	}
	return fmt.Sprintf("t%02d:%02d", h, m), true
}

// parseAmount parses "1,000", "4.5" or "1,234.5"; commas must separate
// groups of three digits.
func parseAmount(s string) (float64, bool) {
	if strings.Contains(s, ",") {
		parts := strings.Split(s, ",")
		for k, p := range parts[1:] {
			if whole, _, _ := strings.Cut(p, "."); len(whole) != 3 || (k < len(parts)-2 && strings.Contains(p, ".")) {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || strings.ContainsAny(s, "eExXpP_") {
		return 0, false
	}
	return v, true
}

func formatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// quarterCode reads "q1".."q4".
func quarterCode(lower string) (string, bool) {
	if len(lower) == 2 && lower[0] == 'q' && lower[1] >= '1' && lower[1] <= '4' {
		return lower, true
	}
	return "", false
}

// quarterWords reads "first quarter" .. "fourth quarter".
func quarterWords(ts []Token, i int) (string, int) {
	var q string
	switch ts[i].Lower {
	case "first":
		q = "q1"
	case "second":
		q = "q2"
	case "third":
		q = "q3"
	case "fourth":
		q = "q4"
	}
	if q != "" && i+1 < len(ts) && ts[i+1].Lower == "quarter" {
		return q, 2
	}
	return "", 0
}

// codeParts splits a code at its separators: digit parts are numbers,
// mixed parts codes; letter parts are left to the name features.
func codeParts(lower string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(lower, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
		digits, letters := false, false
		for _, c := range p {
			digits = digits || unicode.IsDigit(c)
			letters = letters || unicode.IsLetter(c)
		}
		switch {
		case digits && !letters:
			if v, ok := parseAmount(p); ok {
				out = append(out, "n"+formatNumber(v))
			}
		case digits:
			out = append(out, "c"+p)
		}
	}
	return out
}

var smallNumbers = map[string]float64{
	"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
	"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
	"seventeen": 17, "eighteen": 18, "nineteen": 19,
}

var tens = map[string]float64{
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}

// numberWords reads a spelled-out number below 100 ("two", "twenty five",
// "twenty-five", "one-hour": 1), optionally followed by a multiplier
// ("two million").
func numberWords(ts []Token, i int) (float64, int) {
	head, _, _ := strings.Cut(ts[i].Lower, "-")
	v, used := 0.0, 1
	if x, ok := smallNumbers[head]; ok {
		v = x
	} else if x, ok := tens[head]; ok {
		v = x
		if _, tail, hyph := strings.Cut(ts[i].Lower, "-"); hyph {
			if u, ok := smallNumbers[tail]; ok && u < 10 {
				v += u
			}
		} else if i+1 < len(ts) {
			if u, ok := smallNumbers[ts[i+1].Lower]; ok && u > 0 && u < 10 {
				v, used = v+u, 2
			}
		}
	} else {
		return 0, 0
	}
	if i+used < len(ts) {
		if m, ok := multipliers[ts[i+used].Lower]; ok && len(ts[i+used].Lower) > 2 {
			v, used = v*m, used+1
		}
	}
	return v, used
}

// DiffAnchors returns the anchors of a that b lacks. A date without a year
// (d-mm-dd) matches a date with any year on the other side, and a dated
// anchor matches a yearless one with the same month and day.
func DiffAnchors(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !hasAnchor(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func hasAnchor(set []string, x string) bool {
	if _, ok := slices.BinarySearch(set, x); ok {
		return true
	}
	if !strings.HasPrefix(x, "d") {
		return false
	}
	md := x[len(x)-5:]
	for _, y := range set {
		if strings.HasPrefix(y, "d") && y[len(y)-5:] == md && (strings.HasPrefix(x, "d-") || strings.HasPrefix(y, "d-")) {
			return true
		}
	}
	return false
}
