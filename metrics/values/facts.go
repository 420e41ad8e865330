package values

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aem-dev/aem/metrics/features"
)

// FactKind is what a hard fact inside a text is.
type FactKind string

// The kinds of facts Contradictions compares.
const (
	FactAmount     FactKind = "amount"     // a number, with its currency, percent sign, unit or counted noun
	FactDate       FactKind = "date"       // "May 20, 2024", "2024-05-20", "Q3"
	FactTime       FactKind = "time"       // "3pm", "15:00"
	FactWeekday    FactKind = "weekday"    // "Tuesday"
	FactFrequency  FactKind = "frequency"  // "monthly", "every month"
	FactIdentifier FactKind = "identifier" // a code mixing letters and digits, digits joined by separators
	FactName       FactKind = "name"       // capitalised words, acronyms: "Boston", "Alice Chen", "FedEx"
	FactAnswer     FactKind = "answer"     // a reply that opens with "Yes," or "No,"
	FactPolarity   FactKind = "polarity"   // a statement and its negation
)

// Contradiction is a fact of the gold text and a fact of the predicted
// text that cannot both hold, as written in each.
type Contradiction struct {
	Kind       FactKind
	Gold, Pred string
}

// String names both facts: `amount "$89.00" vs "$98.00"`.
func (c Contradiction) String() string {
	return fmt.Sprintf("%s %s vs %s", c.Kind, quote(c.Gold), quote(c.Pred))
}

// fact is one hard fact of a text: facts with the same key are about the
// same sort of thing (an amount in dollars, a count of nights, a date) and
// compare by value.
type fact struct {
	key, value, text string
	kind             FactKind
}

// Contradictions returns the hard facts of a predicted text that
// contradict the gold text's, each text given as its clauses (one clause
// for a value). Facts are matched by kind, and amounts by their unit
// too (dollars with dollars, nights with nights): a kind contradicts when
// the prediction states a fact of it the gold does not and the gold one
// the prediction does not. So a prediction that adds a correct fact, or
// leaves one out, or writes one otherwise ("$89" and "89 dollars", "May
// 20" and "2024-05-20", "3 pm" and "15:00", "two" and "2") contradicts
// nothing, while "$98.00" for "$89.00", "Austin" for "Boston", or
// "ORD-10239" for "ORD-10293" does. A reply opening "Yes," against one
// opening "No,", and a gold clause against the predicted clause sharing
// most of its words when one of them is negated ("is in stock" / "is not
// in stock"), contradict in polarity. At most one contradiction is
// reported per kind and unit, in a fixed order.
func Contradictions(gold, pred []string) []Contradiction {
	gt, pt := tokenizeAll(gold), tokenizeAll(pred)
	gf, pf := textFacts(gold, gt), textFacts(pred, pt)
	var out []Contradiction
	for _, key := range factKeys(gf, pf) {
		g, p := onlyIn(gf, pf, key), onlyIn(pf, gf, key)
		if len(g) > 0 && len(p) > 0 {
			out = append(out, Contradiction{Kind: g[0].kind, Gold: g[0].text, Pred: p[0].text})
		}
	}
	if c, ok := nameContradiction(slices.Concat(gt...), slices.Concat(pt...)); ok {
		out = append(out, c)
	}
	if c, ok := polarityContradiction(gold, pred, gt, pt); ok {
		out = append(out, c)
	}
	return out
}

// factKeys lists the keys of either side's facts, sorted.
func factKeys(a, b []fact) []string {
	var keys []string
	for _, f := range slices.Concat(a, b) {
		keys = append(keys, f.key)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// onlyIn returns the facts of a with key that b does not state.
func onlyIn(a, b []fact, key string) []fact {
	var out []fact
	for _, f := range a {
		if f.key == key && !slices.ContainsFunc(b, func(o fact) bool { return o.key == key && sameFact(f, o) }) {
			out = append(out, f)
		}
	}
	return out
}

// sameFact compares two facts of one key: a date without its year
// matches the same month and day of any year.
func sameFact(a, b fact) bool {
	if a.value == b.value {
		return true
	}
	if a.kind == FactDate && len(a.value) >= 5 && len(b.value) >= 5 && (a.value[0] == '-' || b.value[0] == '-') {
		return a.value[len(a.value)-5:] == b.value[len(b.value)-5:]
	}
	if a.kind == FactAmount {
		ac, av, _ := strings.Cut(a.value, " ") // "USD 89"; a plain number has no space
		bc, bv, _ := strings.Cut(b.value, " ")
		if av == "" {
			ac, av = "", ac
		}
		if bv == "" {
			bc, bv = "", bc
		}
		x, e1 := strconv.ParseFloat(av, 64)
		y, e2 := strconv.ParseFloat(bv, 64)
		return ac == bc && e1 == nil && e2 == nil && Comparer{Tolerance: 1e-9}.close(x, y)
	}
	return false
}

// tokenizeAll is the tokens of each clause.
func tokenizeAll(clauses []string) [][]features.Token {
	out := make([][]features.Token, len(clauses))
	for i, c := range clauses {
		out[i] = features.Tokenize(c)
	}
	return out
}

// textFacts reads the amounts, dates, times, weekdays, identifiers,
// email addresses and frequencies of clauses, given with their tokens
// (features.AnchorSpans reads the anchors).
func textFacts(clauses []string, tokens [][]features.Token) []fact {
	var out []fact
	for i, c := range clauses {
		ts := tokens[i]
		codeDone := -1
		for _, s := range features.AnchorSpans(ts) {
			first, last := ts[s.Start], ts[s.End-1]
			written := c[first.Offset : last.Offset+len(last.Text)]
			switch s.Anchor[0] {
			case 'n':
				if first.Kind == features.Code {
					if codeDone != s.Start {
						out = append(out, fact{kind: FactIdentifier, key: "identifier", value: normalizeCode(first.Text), text: first.Text})
						codeDone = s.Start
					}
					continue
				}
				out = append(out, amountFact(c, ts, s, written))
			case 'd':
				out = append(out, fact{kind: FactDate, key: "date", value: s.Anchor[1:], text: written})
			case 'q':
				out = append(out, fact{kind: FactDate, key: "quarter", value: s.Anchor, text: written})
			case 't':
				out = append(out, fact{kind: FactTime, key: "time", value: s.Anchor[1:], text: written})
			case 'c', 'x':
				if codeDone != s.Start {
					out = append(out, fact{kind: FactIdentifier, key: "identifier", value: normalizeCode(first.Text), text: first.Text})
					codeDone = s.Start
				}
			}
		}
		for i, t := range ts {
			if d, ok := weekdays[t.Lower]; ok && len(t.Lower) > 3 {
				out = append(out, fact{kind: FactWeekday, key: "weekday", value: strconv.Itoa(d), text: t.Text})
			}
			if f, ok := frequencyAt(ts, i); ok {
				out = append(out, f)
			}
		}
		for _, e := range emailsIn.FindAllString(c, -1) {
			e = strings.TrimRight(e, ".")
			out = append(out, fact{kind: FactIdentifier, key: "email", value: normalizeEmail(e), text: e})
		}
	}
	return out
}

// frequencyAt reads a frequency at token i: one word ("monthly") or
// "every", "each" or "per" and a unit ("every month"). A frequency fact
// is never a number: "2 per day" is an amount's.
func frequencyAt(ts []features.Token, i int) (fact, bool) {
	w := ts[i].Lower
	if f, ok := frequencies[w]; ok { // a token has no space: one-word forms only
		return fact{kind: FactFrequency, key: "frequency", value: f, text: ts[i].Text}, true
	}
	if (w == "every" || w == "each" || w == "per") && i+1 < len(ts) && (i == 0 || ts[i-1].Kind != features.Number) {
		if f, ok := frequencies[w+" "+ts[i+1].Lower]; ok {
			return fact{kind: FactFrequency, key: "frequency", value: f, text: ts[i].Text + " " + ts[i+1].Text}, true
		}
	}
	return fact{}, false
}

// emailsIn finds the email addresses of a text (the tokenizer splits
// them at "@").
var emailsIn = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+`)

// amountFact reads the unit of the number of span s in clause c: a
// currency sign or code before it, a percent sign or word after it, a
// unit of measure, a currency word, or the noun it counts ("3 nights").
// Amounts in units of one dimension are keyed together and valued in
// the base unit ("5 kg" = "5000 g").
func amountFact(c string, ts []features.Token, s features.Span, written string) fact {
	f := fact{kind: FactAmount, key: "amount", value: s.Anchor[1:], text: written}
	first, last := ts[s.Start], ts[s.End-1]
	rawBefore := strings.TrimRightFunc(c[:first.Offset], unicode.IsSpace)
	before := strings.ToLower(rawBefore)
	after := c[last.Offset+len(last.Text):]
	for _, cs := range currencySymbols {
		if strings.HasSuffix(before, cs.sign) {
			f.key, f.value = moneyKey, cs.code+" "+f.value
			if sign := rawBefore[max(0, len(rawBefore)-len(cs.sign)):]; utf8.ValidString(sign) {
				f.text = sign + written
			}
			return f
		}
	}
	if strings.HasPrefix(strings.TrimLeft(after, " "), "%") {
		f.key, f.text = "amount:%", written+"%"
		return f
	}
	if s.End < len(ts) && strings.TrimSpace(c[last.Offset+len(last.Text):ts[s.End].Offset]) == "" {
		next := ts[s.End].Lower
		if code, ok := currencyCode(next); ok {
			f.key, f.value = moneyKey, code+" "+f.value
		} else if next == "percent" {
			f.key = "amount:%"
		} else if u, ok := unitNames[next]; ok {
			v, _ := strconv.ParseFloat(f.value, 64)
			f.key, f.value = fmt.Sprintf("amount:dim%d", u.dim), strconv.FormatFloat(u.toBase(v), 'g', 12, 64)
		} else if ts[s.End].Kind == features.Word && !features.IsFunctionWord(next) {
			f.key = "amount:" + strings.TrimSuffix(next, "s")
		}
		if f.key != "amount" {
			f.text = c[first.Offset : ts[s.End].Offset+len(ts[s.End].Text)]
		}
	}
	if code, ok := currencyBefore(before); ok && f.key == "amount" {
		f.key, f.value = moneyKey, code+" "+f.value
	}
	return f
}

// moneyKey is the key of every amount of money: its value is the
// currency code and the number ("USD 89"), so "$84.20" and "€84.20"
// contradict, as "$89" and "$98" do.
const moneyKey = "amount:money"

// currencyBefore reads a currency code written just before an amount
// ("USD 89").
func currencyBefore(before string) (string, bool) {
	i := strings.LastIndexFunc(before, func(r rune) bool { return !unicode.IsLetter(r) })
	w := before[i+1:]
	if len(w) != 3 {
		return "", false
	}
	return currencyCode(w)
}

// nameContradiction compares the names of two texts (features'
// MissingNames, weekday and month names left to their own facts): the
// prediction contradicts when it names something the gold does not
// mention and leaves out a name the gold states. gt and pt are the
// texts' tokens, clause after clause.
func nameContradiction(gt, pt []features.Token) (Contradiction, bool) {
	g := calendarNamesOut(features.MissingNames(gt, pt, nil))
	p := calendarNamesOut(features.MissingNames(pt, gt, nil))
	if len(g) == 0 || len(p) == 0 {
		return Contradiction{}, false
	}
	return Contradiction{Kind: FactName, Gold: g[0], Pred: p[0]}, true
}

func calendarNamesOut(ns []string) []string {
	return slices.DeleteFunc(ns, func(n string) bool {
		w := strings.ToLower(n)
		_, wd := weekdays[w]
		_, mo := months[w]
		return wd || mo
	})
}
