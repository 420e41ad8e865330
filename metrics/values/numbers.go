package values

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/currency"
)

// amount is a parsed number, amount of money, percent or quantity.
type amount struct {
	value    float64
	currency string // ISO 4217 code; "" when none is stated
	percent  bool
	unit     *unit // nil when none is stated
}

func (a amount) kind() Kind {
	switch {
	case a.currency != "":
		return Money
	case a.percent:
		return Percent
	case a.unit != nil && a.unit.dim == dimTime:
		return Duration
	case a.unit != nil:
		return Quantity
	case a.value == float64(int64(a.value)) && a.value < 1e15 && a.value > -1e15:
		return Integer
	}
	return Decimal
}

// amounts decides two numbers, amounts of money, percents or
// quantities: the values must be equal (within the tolerance) after
// converting units of one dimension ("5 kg" = "5000 g"); a currency or a
// unit stated on both sides must agree; a side that states none agrees
// with any ("89" = "$89.00"). A percent equals its fraction ("15%" =
// "0.15").
func (c Comparer) amounts(gold, pred string) Ruling {
	g, ok := parseAmount(gold)
	if !ok {
		return compareWords(gold, pred)
	}
	p, ok := parseAmount(pred)
	if n, isOrdinal := ordinalOf(pred); !ok && isOrdinal {
		p, ok = amount{value: float64(n)}, true // "third" for "3rd"
	}
	if !ok {
		return unparsed(g.kind(), pred)
	}
	return parsed(c.sameAmount(g, p), gold, pred)
}

func (c Comparer) sameAmount(g, p amount) bool {
	if g.currency != "" && p.currency != "" && g.currency != p.currency {
		return false
	}
	gv, pv := g.value, p.value
	if g.unit != nil && p.unit != nil {
		if g.unit.dim != p.unit.dim || g.unit.dim == dimOther && g.unit.name != p.unit.name {
			return false
		}
		gv, pv = g.unit.toBase(gv), p.unit.toBase(pv)
	}
	if g.percent != p.percent && (g.percent && c.close(gv/100, pv) || p.percent && c.close(gv, pv/100)) {
		return true
	}
	return c.close(gv, pv)
}

// currencySymbols are the signs written before or after an amount.
var currencySymbols = []struct{ sign, code string }{
	{"us$", "USD"}, {"c$", "CAD"}, {"a$", "AUD"}, {"nz$", "NZD"}, {"hk$", "HKD"}, {"r$", "BRL"},
	{"$", "USD"}, {"€", "EUR"}, {"£", "GBP"}, {"¥", "JPY"}, {"₹", "INR"}, {"₩", "KRW"}, {"₽", "RUB"},
	{"₺", "TRY"}, {"₪", "ILS"}, {"₫", "VND"}, {"฿", "THB"}, {"₱", "PHP"}, {"zł", "PLN"}, {"chf", "CHF"},
}

// currencyWords are currency names written after an amount.
var currencyWords = map[string]string{
	"dollar": "USD", "dollars": "USD", "usd": "USD", "euro": "EUR", "euros": "EUR", "yen": "JPY",
	"rupee": "INR", "rupees": "INR", "yuan": "CNY", "renminbi": "CNY", "franc": "CHF", "francs": "CHF",
	"peso": "MXN", "pesos": "MXN", "won": "KRW", "real": "BRL", "reais": "BRL", "ruble": "RUB", "rubles": "RUB",
	"sterling": "GBP", "pound sterling": "GBP", "pounds sterling": "GBP", "british pound": "GBP", "british pounds": "GBP",
	"us dollar": "USD", "us dollars": "USD", "u.s. dollars": "USD", "american dollars": "USD",
	"canadian dollar": "CAD", "canadian dollars": "CAD", "australian dollar": "AUD", "australian dollars": "AUD",
	"new zealand dollars": "NZD", "hong kong dollars": "HKD", "singapore dollars": "SGD",
	"japanese yen": "JPY", "chinese yuan": "CNY", "indian rupee": "INR", "indian rupees": "INR",
	"swiss franc": "CHF", "swiss francs": "CHF", "mexican peso": "MXN", "mexican pesos": "MXN",
	"south korean won": "KRW", "brazilian real": "BRL", "russian ruble": "RUB", "russian rubles": "RUB",
}

// parseAmount reads "89", "89.00", "1,234.5", "-3", "twelve", "4.5
// million", "$89.00", "89 USD", "EUR 12", "€12", "15%", "15 percent",
// "5 kg", "5kg", "12 miles", "2 hours". Commas must group digits by
// three (1,234): "1,5" is no number.
func parseAmount(s string) (amount, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	var a amount
	t, a.currency = cutCurrency(t)
	if rest, ok := cutSuffixWord(t, "%", "percent", "per cent", "pct"); ok {
		t, a.percent = rest, true
	}
	v, rest, ok := leadingNumber(t)
	if !ok {
		return amount{}, false
	}
	if isOrdinalSuffix(rest) {
		if n, ok := ordinalOf(t); ok {
			a.value = float64(n) // "3rd": the number it counts
			return a, true
		}
	}
	spaced := rest != "" && unicode.IsSpace(rune(rest[0]))
	rest = strings.TrimSpace(rest)
	if m, r, ok := cutMultiplier(rest, a.currency != ""); ok {
		v, rest = v*m, r
	}
	a.value = v
	if rest == "" {
		return a, true
	}
	if a.currency == "" && !a.percent {
		if code, ok := currencyCode(rest); ok {
			a.currency = code
			return a, true
		}
		// A counted noun must stand apart ("3 nights"): "8GFLCX" is a code.
		if u, ok := unitOf(rest); ok && (u.dim != dimOther || spaced) {
			a.unit = u
			return a, true
		}
	}
	return amount{}, false
}

// leadingNumber reads the number t starts with, in digits or in words,
// and returns the rest (after the digits as written; after a space for
// words).
func leadingNumber(t string) (float64, string, bool) {
	if num, rest := splitNumber(t); num != "" {
		v, ok := parseNumberText(num)
		return v, rest, ok
	}
	words := strings.Fields(t)
	for k := len(words); k > 0; k-- {
		if v, ok := parseNumberWords(strings.Join(words[:k], " ")); ok {
			return v, " " + strings.Join(words[k:], " "), true
		}
	}
	return 0, t, false
}

// cutCurrency removes a currency sign or code before or after the number.
func cutCurrency(t string) (string, string) {
	for _, c := range currencySymbols {
		if rest, ok := strings.CutPrefix(t, c.sign); ok {
			return strings.TrimSpace(rest), c.code
		}
		if rest, ok := strings.CutSuffix(t, c.sign); ok && rest != "" {
			return strings.TrimSpace(rest), c.code
		}
	}
	if len(t) > 4 && t[3] == ' ' {
		if code, ok := currencyCode(t[:3]); ok && startsNumber(t[4:]) {
			return t[4:], code
		}
	}
	return t, ""
}

// currencyCode reads an ISO 4217 code ("usd") or a currency word ("euros").
func currencyCode(w string) (string, bool) {
	if c, ok := currencyWords[w]; ok {
		return c, true
	}
	if len(w) == 3 {
		if u, err := currency.ParseISO(w); err == nil {
			return u.String(), true
		}
	}
	return "", false
}

func startsNumber(s string) bool {
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '.')
}

// cutSuffixWord removes one of the suffixes (after optional white space).
func cutSuffixWord(t string, suffixes ...string) (string, bool) {
	for _, s := range suffixes {
		if rest, ok := strings.CutSuffix(t, s); ok && rest != "" {
			return strings.TrimSpace(rest), true
		}
	}
	return t, false
}

// splitNumber splits t into a leading number written in digits and the
// rest ("5kg" -> "5", "kg"); num is "" when t does not start with one.
func splitNumber(t string) (num, rest string) {
	i := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	start := i
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == ',' || t[i] == '.') {
		i++
	}
	// An exponent, as JSON writes it: 1e5, 2.5E-3.
	if i > start && i+1 < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if t[j] == '-' || t[j] == '+' {
			j++
		}
		k := j
		for k < len(t) && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k > j && (k == len(t) || !unicode.IsLetter(rune(t[k]))) {
			i = k
		}
	}
	if i == start {
		return "", t
	}
	return t[:i], t[i:]
}

// parseNumberText parses a number in digits: "1,234.5", "-3", "2.5e-3".
// Commas must group the integer part's digits by three.
func parseNumberText(s string) (float64, bool) {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	if strings.Contains(mant, ",") {
		whole, _, _ := strings.Cut(strings.TrimLeft(mant, "+-"), ".")
		parts := strings.Split(whole, ",")
		if len(parts[0]) == 0 || len(parts[0]) > 3 {
			return 0, false
		}
		for _, p := range parts[1:] {
			if len(p) != 3 {
				return 0, false
			}
		}
		s = strings.ReplaceAll(s, ",", "")
	}
	if strings.Count(s, ".") > 1 {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && finite(v)
}

// isNumberText reports a string that is a number in digits or words.
func isNumberText(s string) bool {
	a, ok := parseAmount(s)
	return ok && a.currency == "" && !a.percent && a.unit == nil
}

// multipliers scale the number before them. "m" and "b" alone mean
// million and billion only after a currency ("$4.5m"); otherwise "5m" is
// five metres.
var multipliers = []struct {
	word  string
	scale float64
	money bool // only after a currency
}{
	{"thousand", 1e3, false}, {"million", 1e6, false}, {"billion", 1e9, false}, {"trillion", 1e12, false},
	{"k", 1e3, false}, {"mn", 1e6, false}, {"mm", 1e6, true}, {"m", 1e6, true}, {"bn", 1e9, false}, {"b", 1e9, true},
}

func cutMultiplier(rest string, money bool) (float64, string, bool) {
	for _, m := range multipliers {
		if m.money && !money {
			continue
		}
		if r, ok := strings.CutPrefix(rest, m.word); ok && (r == "" || r[0] == ' ') {
			r = strings.TrimSpace(r)
			if m.word == "k" || m.word == "m" || m.word == "b" || m.word == "mm" {
				if r != "" && !isCurrencyWord(r) {
					continue // "5 km", "5 m long": a unit, not a multiplier
				}
			}
			return m.scale, r, true
		}
	}
	return 0, rest, false
}

func isCurrencyWord(w string) bool {
	_, ok := currencyCode(w)
	return ok
}

var (
	smallNumbers = map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
		"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
		"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
		"forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
	}
	scaleWords = map[string]float64{"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
)

// parseNumberWords reads an English cardinal written in words: "two",
// "twenty-five", "one hundred and five", "three thousand two hundred",
// "a hundred". (No Go module the proxy serves does this: rodaine/numwords
// and its forks are not served.)
func parseNumberWords(s string) (float64, bool) {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == '-' || r == ',' || unicode.IsSpace(r) })
	if len(words) == 0 {
		return 0, false
	}
	total, current, seen := 0.0, 0.0, false
	for i, w := range words {
		switch {
		case w == "and" && seen:
		case w == "a" && i == 0 && len(words) > 1:
			current = 1
		case smallNumbers[w] > 0 || w == "zero":
			current += smallNumbers[w]
			seen = true
		case w == "hundred":
			current = max(current, 1) * 100
			seen = true
		case w == "dozen" || w == "dozens":
			current = max(current, 1) * 12
			seen = true
		case scaleWords[w] > 0:
			total += max(current, 1) * scaleWords[w]
			current, seen = 0, true
		default:
			return 0, false
		}
	}
	return total + current, seen
}

// ordinals are the ordinal numbers written as words.
var ordinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
	"ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
	"fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
	"twentieth": 20, "thirtieth": 30,
}

// ordinalText is an ordinal in digits: 1st, 22nd, 3rd, 14th.
var ordinalText = regexp.MustCompile(`^(\d{1,4})(st|nd|rd|th)$`)

// isOrdinalSuffix reports the letters an ordinal in digits ends with.
func isOrdinalSuffix(s string) bool { return s == "st" || s == "nd" || s == "rd" || s == "th" }

// ordinalOf reads an ordinal number, "3rd" or "third" (and "twenty-first"):
// the number it counts.
func ordinalOf(s string) (int, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if m := ordinalText.FindStringSubmatch(t); m != nil {
		n, err := strconv.Atoi(m[1])
		return n, err == nil
	}
	tens, unit, compound := strings.Cut(strings.ReplaceAll(t, " ", "-"), "-")
	if !compound {
		n, ok := ordinals[t]
		return n, ok
	}
	if n, ok := ordinals[unit]; ok && n < 10 && smallNumbers[tens] >= 20 && int(smallNumbers[tens])%10 == 0 {
		return int(smallNumbers[tens]) + n, true
	}
	return 0, false
}
