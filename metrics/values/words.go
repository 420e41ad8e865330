package values

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// normalizeWords is the normal form of names, categorical tokens and
// text: NFKC, case-folded, words split at white space, punctuation,
// '_' and camelCase ("product_line" = "Product Line" = "productLine").
func normalizeWords(s string) []string {
	var words []string
	var cur []rune
	rs := []rune(norm.NFKC.String(s))
	flush := func() {
		if len(cur) > 0 {
			words = append(words, cases.Fold().String(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’' || r == '.' && len(cur) == 1 && i+1 < len(rs) && unicode.IsLetter(rs[i+1]):
			// "don't" stays one word ("dont"); "U.S." becomes "us"
		case unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return words
}

// compareWords decides names and categorical tokens: equal after
// normalisation; else contradicted by a hard fact (a number or a code:
// "Terminal 2" against "Terminal 3"); else equal by a known equivalence
// (an initialism, an abbreviation, a language or a country by name and by
// code); else RuleNeedsEmbedding.
func compareWords(gold, pred string) Ruling {
	gw, pw := normalizeWords(gold), normalizeWords(pred)
	if sameWords(gw, pw) {
		return Ruling{Rule: RuleNormalized, Pass: true}
	}
	if v, ok := namedThings(gold, pred); ok {
		return v
	}
	if g, p, ok := oneAntonym(gw, pw); ok {
		return Ruling{Rule: RuleContradicted, Detail: Contradiction{Kind: FactPolarity, Gold: g, Pred: p}.String()}
	}
	for _, c := range Contradictions([]string{gold}, []string{pred}) {
		if c.Kind != FactName { // a name is what the embedding decides
			return Ruling{Rule: RuleContradicted, Detail: c.String()}
		}
	}
	if equivalent(gold, pred, gw, pw) || truncated(gw, pw) {
		return Ruling{Rule: RuleEquivalence, Pass: true}
	}
	return Ruling{Rule: RuleNeedsEmbedding}
}

// truncated reports one single word written as the other's first
// letters, four at least ("auto" for "automatic", "info" for
// "information"), a word and its antonym aside.
func truncated(a, b []string) bool {
	if len(a) != 1 || len(b) != 1 {
		return false
	}
	short, long := a[0], b[0]
	if len(short) > len(long) {
		short, long = long, short
	}
	return len(short) >= 4 && short != long && strings.HasPrefix(long, short) && !opposite(short, long)
}

// compareNames decides two names as compareWords does, then by their main
// parts, the words before the first comma ("Austin" of "Austin, TX"; what
// follows qualifies it). When each main part has a word that no word of
// the other name stands for, the names name different things: "Boston"
// and "Austin", "Berkeley, CA" and "San Francisco, CA", "Alice Chen" and
// "Alice Cheng" (RuleDiffers, whatever their cosine: proper names that
// share letters or sound still name others). A word stands for another
// when it is the same (or with an "s": "McDonald's"), its initial ("J."
// for "John"), a truncation of four
// letters or more ("Fran" for "Francisco"), or when it spells
// the initials of consecutive words ("NY" for "New York"); link words
// ("of", "the") do not count. Otherwise (one name's main words all stood
// for in the other: "Sheraton" and "Sheraton Hotel", "Toronto, ON" and
// "Toronto, Canada", "DC" and "Washington, D.C.") the embedding decides.
func compareNames(gold, pred string) Ruling {
	v := compareWords(gold, pred)
	if v.Decided() {
		return v
	}
	ga, pa := contentWords(normalizeWords(gold)), contentWords(normalizeWords(pred))
	gm, pm := contentWords(normalizeWords(mainPart(gold))), contentWords(normalizeWords(mainPart(pred)))
	if len(gm) == 0 || len(pm) == 0 {
		return v
	}
	if unmatched(gm, pa) && unmatched(pm, ga) {
		return Ruling{Rule: RuleDiffers, Detail: quote(mainPart(gold)) + " and " + quote(mainPart(pred)) + " are different names"}
	}
	if r, ok := qualified(gold, pred); ok {
		return r
	}
	return v
}

// qualified decides two names with the same main part by their
// qualifiers (the parts after its commas), in order, a qualifier the
// other name goes without aside: the same things pass ("Austin, TX" and
// "Austin, Texas", "Portland, OR" and "Portland, Oregon, USA"); two
// places or codes of one sort that differ fail ("Portland, OR" and
// "Portland, ME"). ok is false when a qualifier pair is neither.
func qualified(gold, pred string) (Ruling, bool) {
	g, p := strings.Split(gold, ","), strings.Split(pred, ",")
	if len(g) < 2 || len(p) < 2 || !sameWords(normalizeWords(g[0]), normalizeWords(p[0])) {
		return Ruling{}, false
	}
	for i := 1; i < min(len(g), len(p)); i++ {
		gw, pw := normalizeWords(g[i]), normalizeWords(p[i])
		if sameWords(gw, pw) || equivalent(g[i], p[i], gw, pw) {
			continue
		}
		v, ok := namedThings(g[i], p[i])
		if !ok {
			return Ruling{}, false
		}
		if !v.Pass {
			return v, true
		}
	}
	return Ruling{Rule: RuleEquivalence, Pass: true}, true
}

// mainPart is a name up to its first comma.
func mainPart(s string) string {
	head, _, _ := strings.Cut(s, ",")
	return head
}

// contentWords drops link words.
func contentWords(ws []string) []string {
	out := ws[:0:0]
	for _, w := range ws {
		if !isLinkWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// unmatched reports whether a word of a is stood for by no word of b
// (see compareNames).
func unmatched(a, b []string) bool {
	for i := range a {
		if !standsFor(a, i, b) {
			return true
		}
	}
	return false
}

// standsFor reports whether a word of b stands for a[i]: the same word
// (or with an "s": a plural, or a possessive "McDonald's"), an initial or
// a truncation of it (or it of the word), the initials of
// consecutive words of a covering i, or a[i] the initials of consecutive
// words of b.
func standsFor(a []string, i int, b []string) bool {
	w := a[i]
	for _, x := range b {
		if w == x || w+"s" == x || x+"s" == w || shortFor(w, x) || shortFor(x, w) || initialsOver(x, a, i) {
			return true
		}
	}
	for k := range b {
		if initialsOver(w, b, k) {
			return true
		}
	}
	return false
}

// shortFor reports whether s is an initial of w, or a truncation of w of
// four letters or more and at least two letters shorter ("fran" of
// "francisco", "chris" of "christopher"; not "chen" of "cheng", nor "new"
// of "newark").
func shortFor(s, w string) bool {
	rs, rw := []rune(s), []rune(w)
	return len(rs) < len(rw) && (len(rs) == 1 || len(rs) >= 4 && len(rw)-len(rs) >= 2) && strings.HasPrefix(w, s)
}

// initialsOver reports whether acr (two to five letters) spells the
// initials of consecutive words of ws, one of them ws[i].
func initialsOver(acr string, ws []string, i int) bool {
	ra := []rune(acr)
	if len(ra) < 2 || len(ra) > 5 {
		return false
	}
	for start := max(0, i-len(ra)+1); start <= i && start+len(ra) <= len(ws); start++ {
		ok := true
		for k, r := range ra {
			if []rune(ws[start+k])[0] != r {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// compareText decides free text: a contradicted hard fact fails it (see
// Contradictions); equal words pass; the rest needs the embedding.
func compareText(gold, pred string) Ruling {
	if cs := Contradictions([]string{gold}, []string{pred}); len(cs) > 0 {
		return Ruling{Rule: RuleContradicted, Detail: cs[0].String()}
	}
	if sameWords(normalizeWords(gold), normalizeWords(pred)) {
		return Ruling{Rule: RuleNormalized, Pass: true}
	}
	return Ruling{Rule: RuleNeedsEmbedding}
}

// sameWords reports two texts the same once normalised: the same words,
// or the same letters but for the spaces between them ("New York" and
// "NewYork").
func sameWords(a, b []string) bool {
	return slices.Equal(a, b) || strings.Join(a, "") == strings.Join(b, "")
}

// namedThings decides two tokens that both name a thing of one sort this
// package knows: a unit of measure ("celsius", "C", "kg"), a currency, a
// language, a country, a US state or Canadian province (by name or code),
// a weekday, a month, a size ("M", "medium"), a yes or no, a frequency
// ("weekly", "every week") or an ordinal ("third", "3rd"). The same thing of any sort passes by equivalence
// ("Georgia" is the state "GA" though the country is "GE"); things of a
// sort that reads both but none the same fail (parsed_differs): "celsius"
// is not "fahrenheit", whatever their cosine.
func namedThings(gold, pred string) (Ruling, bool) {
	g, p := strings.ToLower(strings.TrimSpace(gold)), strings.ToLower(strings.TrimSpace(pred))
	if gu, ok := unitNames[g]; ok {
		if pu, ok := unitNames[p]; ok && gu.dim == pu.dim {
			return sameThing(gu == pu, gold, pred), true
		}
	}
	read := false // some sort reads both: they differ unless another says the same
	for _, of := range []func(string) (string, bool){currencyCode, languageOf, countryOf, subdivisionOf, weekdayName, monthName, sizeOf, truthOf, frequencyOf, ordinalName} {
		gc, gok := of(g)
		pc, pok := of(p)
		if gok && pok && gc == pc {
			return sameThing(true, gold, pred), true
		}
		read = read || gok && pok
	}
	if read {
		return sameThing(false, gold, pred), true
	}
	return Ruling{}, false
}

func sameThing(same bool, gold, pred string) Ruling {
	if same {
		return Ruling{Rule: RuleEquivalence, Pass: true}
	}
	return parsed(false, gold, pred)
}

// sizes are garment and portion sizes by name and by letter.
var sizes = map[string]string{
	"xxs": "xxs", "extra extra small": "xxs", "xs": "xs", "extra small": "xs", "s": "s", "small": "s",
	"m": "m", "medium": "m", "l": "l", "large": "l", "xl": "xl", "extra large": "xl",
	"xxl": "xxl", "2xl": "xxl", "extra extra large": "xxl", "xxxl": "xxxl", "3xl": "xxxl",
}

// sizeOf reads a size: "medium" and "M" are one.
func sizeOf(s string) (string, bool) {
	v, ok := sizes[strings.Join(strings.Fields(strings.ReplaceAll(s, "-", " ")), " ")]
	return v, ok
}

// frequencies are how often something recurs, as an adverb and as a
// phrase ("weekly", "every week", "once a week").
var frequencies = func() map[string]string {
	m := map[string]string{"annually": "year", "annual": "year", "fortnightly": "2 weeks", "every other week": "2 weeks"}
	for _, u := range []string{"hour", "day", "week", "month", "quarter", "year"} {
		adverb := u + "ly"
		if u == "day" {
			adverb = "daily"
		}
		article := "a"
		if u == "hour" {
			article = "an"
		}
		for _, f := range []string{adverb, "every " + u, "each " + u, "once " + article + " " + u, "per " + u} {
			m[f] = u
		}
	}
	return m
}()

// frequencyOf reads how often: "weekly" and "every week" are one.
func frequencyOf(s string) (string, bool) {
	f, ok := frequencies[strings.Join(strings.Fields(s), " ")]
	return f, ok
}

// ordinalName reads an ordinal, in words or digits: "third" and "3rd"
// are one.
func ordinalName(s string) (string, bool) {
	n, ok := ordinalOf(s)
	return strconv.Itoa(n), ok
}

// truthOf reads a yes or a no written as a word: "yes" and "true" are
// one (the boolean kind reads more forms: see parseBool).
func truthOf(s string) (string, bool) {
	switch s {
	case "yes", "true":
		return "yes", true
	case "no", "false":
		return "no", true
	}
	return "", false
}

func weekdayName(s string) (string, bool) {
	d, ok := weekdays[strings.TrimSuffix(s, ".")]
	return strconv.Itoa(d), ok
}

func monthName(s string) (string, bool) {
	m, ok := months[strings.TrimSuffix(s, ".")]
	return strconv.Itoa(m), ok
}

// oneAntonym reports two word lists of one length that differ in one
// word only, swapped for its antonym ("sort ascending" / "sort
// descending", "buy" / "sell", "ascending" / "desc").
func oneAntonym(a, b []string) (string, string, bool) {
	if len(a) != len(b) {
		return "", "", false
	}
	at := -1
	for i := range a {
		if a[i] != b[i] {
			if at >= 0 {
				return "", "", false
			}
			at = i
		}
	}
	if at < 0 || !opposite(a[at], b[at]) {
		return "", "", false
	}
	return a[at], b[at], true
}

// opposite reports two words of opposite sense, either written in full
// or short ("asc" / "descending").
func opposite(a, b string) bool {
	for _, x := range append([]string{a}, abbreviations[a]...) {
		for _, y := range append([]string{b}, abbreviations[b]...) {
			if slices.Contains(antonyms[x], y) {
				return true
			}
		}
	}
	return false
}

// equivalent reports a known equivalence between two names or tokens.
func equivalent(gold, pred string, gw, pw []string) bool {
	if initialism(gold, pw) || initialism(pred, gw) || abbreviated(gw, pw) {
		return true
	}
	if g, ok := languageOf(gold); ok {
		if p, ok := languageOf(pred); ok && g == p {
			return true
		}
	}
	if g, ok := countryOf(gold); ok {
		if p, ok := countryOf(pred); ok && g == p {
			return true
		}
	}
	return false
}

// initialism reports whether acr (one word of two to six letters, "NYC",
// "U.S.") spells the initials of words ("New York City"), small link
// words ("of", "the", "and") counted or not.
func initialism(acr string, words []string) bool {
	a := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(acr), ".", ""))
	if len(a) < 2 || len(a) > 6 || len(words) < 2 || strings.IndexFunc(a, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return false
	}
	var all, content []rune
	for _, w := range words {
		r := []rune(w)[0]
		all = append(all, r)
		if !isLinkWord(w) {
			content = append(content, r)
		}
	}
	return a == string(all) || a == string(content)
}

// abbreviations are the usual short forms of words in names and
// addresses; a short form may stand for several words ("st": street or
// saint).
var abbreviations = map[string][]string{
	"st": {"street", "saint"}, "ave": {"avenue"}, "av": {"avenue"}, "rd": {"road"}, "blvd": {"boulevard"},
	"dr": {"drive", "doctor"}, "ln": {"lane"}, "ct": {"court"}, "pl": {"place"}, "sq": {"square"},
	"pkwy": {"parkway"}, "hwy": {"highway"}, "fwy": {"freeway"}, "cir": {"circle"}, "ter": {"terrace"},
	"mt": {"mount", "mountain"}, "ft": {"fort"}, "pt": {"point", "port"}, "hts": {"heights"},
	"n": {"north"}, "s": {"south"}, "e": {"east"}, "w": {"west"},
	"ne": {"northeast"}, "nw": {"northwest"}, "se": {"southeast"}, "sw": {"southwest"},
	"apt": {"apartment"}, "ste": {"suite"}, "fl": {"floor"}, "bldg": {"building"}, "rm": {"room"},
	"co": {"company"}, "corp": {"corporation"}, "inc": {"incorporated"}, "ltd": {"limited"},
	"intl": {"international"}, "univ": {"university"}, "dept": {"department"}, "govt": {"government"},
	"assn": {"association"}, "bros": {"brothers"}, "natl": {"national"}, "ctr": {"center", "centre"},
	"jr": {"junior"}, "sr": {"senior"}, "mr": {"mister"}, "&": {"and"}, "n/a": {"not applicable"},
	// Common short forms of categorical values (sort orders, statistics,
	// units of business).
	"asc": {"ascending"}, "desc": {"descending", "description"}, "avg": {"average"}, "min": {"minimum"},
	"max": {"maximum"}, "qty": {"quantity"}, "amt": {"amount"}, "acct": {"account"}, "temp": {"temperature"},
	"info": {"information"}, "misc": {"miscellaneous"}, "std": {"standard"}, "approx": {"approximately"},
	"mgmt": {"management"}, "admin": {"administrator", "administration"}, "pct": {"percent"},
}

// abbreviated reports two word lists equal word by word, a word matching
// its abbreviation ("12 Elm St" = "12 Elm Street").
func abbreviated(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !slices.Contains(abbreviations[a[i]], b[i]) && !slices.Contains(abbreviations[b[i]], a[i]) {
			return false
		}
	}
	return true
}

// streetWords end the street of an address line.
var streetWords = map[string]bool{
	"street": true, "st": true, "avenue": true, "ave": true, "road": true, "rd": true, "boulevard": true,
	"blvd": true, "drive": true, "dr": true, "lane": true, "ln": true, "court": true, "ct": true, "place": true,
	"pl": true, "way": true, "parkway": true, "pkwy": true, "highway": true, "hwy": true, "circle": true,
	"terrace": true, "square": true, "sq": true, "plaza": true, "trail": true, "alley": true,
}

// isAddress reports a street address line: a house number, then words
// including a street word ("12 Elm Street", "1600 Pennsylvania Ave NW").
func isAddress(s string) bool {
	ws := normalizeWords(s)
	if len(ws) < 3 || !strings.ContainsFunc(ws[0], unicode.IsDigit) {
		return false
	}
	return slices.ContainsFunc(ws[1:], func(w string) bool { return streetWords[w] })
}

// compareAddresses decides two address lines: their numbers (house,
// apartment, zip) must be the same, in order; then words equal, or equal
// but for abbreviations ("St." for "Street"), pass; the rest needs the
// embedding.
func compareAddresses(gold, pred string) Ruling {
	gw, pw := normalizeWords(gold), normalizeWords(pred)
	gn, pn := numbered(gw), numbered(pw)
	if !slices.Equal(gn, pn) {
		return Ruling{Rule: RuleParsedDiffers, Detail: quote(strings.Join(gn, " ")) + " vs " + quote(strings.Join(pn, " "))}
	}
	switch {
	case sameWords(gw, pw):
		return Ruling{Rule: RuleNormalized, Pass: true}
	case abbreviated(gw, pw):
		return Ruling{Rule: RuleEquivalence, Pass: true}
	}
	return Ruling{Rule: RuleNeedsEmbedding}
}

// numbered returns the words that hold a digit.
func numbered(ws []string) []string {
	var out []string
	for _, w := range ws {
		if strings.ContainsFunc(w, unicode.IsDigit) {
			out = append(out, w)
		}
	}
	return out
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
