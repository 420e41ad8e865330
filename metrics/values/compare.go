package values

import (
	"math"
	"slices"
	"strings"
)

// Rule names what decided a comparison (Ruling.Rule).
type Rule string

// The rules a comparator decides by.
const (
	// RuleExact: the two strings are byte-equal.
	RuleExact Rule = "exact"
	// RuleNormalized: equal after the kind's normalisation (case, white
	// space; separators of codes; a URL's scheme and host case...).
	RuleNormalized Rule = "normalized"
	// RuleDiffers: an identifier, email, URL or code that differs after
	// normalisation; or two names whose main parts each have a word the
	// other lacks ("Boston" and "Austin": see compareNames).
	RuleDiffers Rule = "differs"
	// RuleParsedEqual and RuleParsedDiffers: both sides parsed as the
	// kind (a number, an amount of money, a date, a phone number, a
	// language code...) and the parsed values are equal, or differ.
	RuleParsedEqual   Rule = "parsed_equal"
	RuleParsedDiffers Rule = "parsed_differs"
	// RuleUnparsed: the gold value parsed as its kind and the predicted
	// one does not (a date against "soon"): it fails, since no parsed
	// value can vouch for it.
	RuleUnparsed Rule = "unparsed"
	// RuleEquivalence: a known equivalence (an initialism "NYC" for "New
	// York City", an abbreviation "St." for "Street").
	RuleEquivalence Rule = "equivalence"
	// RuleContradicted: a hard fact inside a name, a categorical token or
	// free text (a number, a date, a time, a code, a negation) contradicts
	// the gold's.
	RuleContradicted Rule = "contradicted"
	// RuleNeedsEmbedding: no rule of the kind decides; the caller asks
	// its scorer and holds the score to the kind's threshold.
	RuleNeedsEmbedding Rule = "needs_embedding"
)

// Ruling is a comparator's decision. Pass is meaningless when Rule is
// RuleNeedsEmbedding. Detail says, for a contradiction or a parsed
// difference, which facts differ (e.g. `"$89.00" vs "$98.00"`).
type Ruling struct {
	Kind   Kind
	Rule   Rule
	Pass   bool
	Detail string
}

// Decided reports whether the ruling needs no scorer.
func (v Ruling) Decided() bool { return v.Rule != RuleNeedsEmbedding }

// Comparer compares a predicted value with a gold value of a known kind.
// The zero Comparer compares numbers exactly.
type Comparer struct {
	// Tolerance is the relative tolerance of numbers: a and b are equal
	// when |a-b| <= Tolerance*max(1,|a|,|b|).
	Tolerance float64
}

// Compare decides pred against gold, gold being of kind k (see Classify).
// Byte-equal strings pass by RuleExact whatever the kind. Numbers, money,
// percents, quantities, durations, dates, times, weekdays, months,
// booleans and phone numbers compare by parsed value; identifiers,
// emails and URLs exactly after normalisation; language, country and
// currency values by their codes when both sides name one; names and
// categorical tokens after normalisation, then known equivalences, then
// (names) different main parts, then RuleNeedsEmbedding; free text fails when a hard fact contradicts the
// gold's, else needs the embedding. Compare is symmetric in its
// decisions for every kind but where gold alone is parsed (RuleUnparsed).
func (c Comparer) Compare(k Kind, gold, pred string) Ruling {
	if gold == pred {
		return Ruling{Kind: k, Rule: RuleExact, Pass: true}
	}
	var v Ruling
	switch k {
	case Integer, Decimal, Money, Percent, Quantity:
		v = c.amounts(gold, pred)
	case Duration:
		v = c.durations(gold, pred)
	case Date, Time, DateTime:
		v = compareWhen(k, gold, pred)
	case Weekday, Month:
		v = compareCalendarName(k, gold, pred)
	case Boolean:
		v = compareBooleans(gold, pred)
	case Phone:
		v = comparePhones(gold, pred)
	case Email:
		v = exactly(normalizeEmail(gold), normalizeEmail(pred))
	case URL:
		v = exactly(normalizeURL(gold), normalizeURL(pred))
	case Identifier:
		v = exactly(normalizeIdentifier(gold), normalizeIdentifier(pred))
	case Language, Country, Currency:
		v = compareCodes(k, gold, pred)
	case Address:
		v = compareAddresses(gold, pred)
	case Text:
		v = compareText(gold, pred)
	case Name:
		v = compareNames(gold, pred)
	default: // Category, and an unknown kind
		v = compareWords(gold, pred)
	}
	v.Kind = k
	return v
}

// CompareAt is Compare for a value of the parameter or field named key
// ("plan", "payment_method"): where Compare leaves a categorical token
// to the model, the same words once the key's own words are left out of
// both pass by equivalence ("Premium plan" for "premium" under "plan",
// "credit card payment" for "credit card" under "payment_method"): a
// token that repeats its key says nothing more. Names keep their words
// ("Mexico City" is not "Mexico" under "city").
func (c Comparer) CompareAt(key string, k Kind, gold, pred string) Ruling {
	v := c.Compare(k, gold, pred)
	switch {
	case v.Rule == RuleNeedsEmbedding && k == Category && sameBesideKey(key, gold, pred):
		return Ruling{Kind: k, Rule: RuleEquivalence, Pass: true}
	case v.Rule == RuleDiffers && k == Identifier && sameCodeBesideKey(key, gold, pred):
		return Ruling{Kind: k, Rule: RuleNormalized, Pass: true}
	}
	return v
}

// sameCodeBesideKey reports two identifiers the same once one leaves out
// the words of its key before the code, and a "#" ("Gate B12" for "B12"
// under "gate", "Order #10293" for "10293" under "order_id").
func sameCodeBesideKey(key, gold, pred string) bool {
	kw := KeyWords(key)
	strip := func(s string) string {
		f := strings.Fields(s)
		for len(f) > 1 && slices.Contains(kw, strings.ToLower(strings.TrimRight(f[0], ":#"))) {
			f = f[1:]
		}
		return normalizeIdentifier(strings.TrimPrefix(strings.Join(f, " "), "#"))
	}
	return len(kw) > 0 && strip(gold) == strip(pred)
}

// sameBesideKey reports gold and pred the same words once the words of
// key are left out of both, a word at least left on each side.
func sameBesideKey(key, gold, pred string) bool {
	kw := KeyWords(key)
	if len(kw) == 0 {
		return false
	}
	strip := func(s string) []string {
		return slices.DeleteFunc(normalizeWords(s), func(w string) bool { return slices.Contains(kw, w) })
	}
	g, p := strip(gold), strip(pred)
	return len(g) > 0 && len(p) > 0 && sameWords(g, p)
}

// exactly decides two normalised strings.
func exactly(g, p string) Ruling {
	if g == p {
		return Ruling{Rule: RuleNormalized, Pass: true}
	}
	return Ruling{Rule: RuleDiffers}
}

// parsed is the ruling on two parsed values.
func parsed(equal bool, gold, pred string) Ruling {
	if equal {
		return Ruling{Rule: RuleParsedEqual, Pass: true}
	}
	return Ruling{Rule: RuleParsedDiffers, Detail: quote(gold) + " vs " + quote(pred)}
}

func unparsed(k Kind, pred string) Ruling {
	return Ruling{Rule: RuleUnparsed, Detail: quote(pred) + " does not read as " + article(k)}
}

func article(k Kind) string {
	if strings.ContainsRune("aeiou", rune(k[0])) {
		return "an " + string(k)
	}
	return "a " + string(k)
}

func quote(s string) string { return `"` + strings.TrimSpace(s) + `"` }

// close applies |a-b| <= tol*max(1,|a|,|b|).
func (c Comparer) close(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= c.Tolerance*max(1, math.Abs(a), math.Abs(b))
}

// compareBooleans reads true/false, yes/no, y/n, on/off and 1/0.
func compareBooleans(gold, pred string) Ruling {
	g, gok := parseBool(gold)
	p, pok := parseBool(pred)
	switch {
	case !gok:
		return compareWords(gold, pred)
	case !pok:
		return unparsed(Boolean, pred)
	}
	return parsed(g == p, gold, pred)
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "yes", "y", "on", "1":
		return true, true
	case "false", "no", "n", "off", "0":
		return false, true
	}
	return false, false
}

// isBoolText reports the words a gold string must be to be a Boolean by
// itself ("yes" and "no" may be answers, "1" a count).
func isBoolText(s string) bool {
	switch strings.ToLower(s) {
	case "true", "false":
		return true
	}
	return false
}
