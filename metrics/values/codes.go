package values

import (
	"strings"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// codeNames maps lower-case names to codes: every ISO 639-1 language by
// its English name and its own ("spanish", "español" -> "es"), every
// country by its English name ("france" -> "FR"), and the usual other
// names. Built once, on first use, from golang.org/x/text's CLDR tables;
// only read afterwards.
type codeNames struct {
	languages map[string]language.Base
	countries map[string]language.Region
}

var names = sync.OnceValue(func() *codeNames {
	n := &codeNames{languages: map[string]language.Base{}, countries: map[string]language.Region{}}
	for a := 'a'; a <= 'z'; a++ {
		for b := 'a'; b <= 'z'; b++ {
			code := string([]rune{a, b})
			if base, err := language.ParseBase(code); err == nil && base.String() == code {
				tag := language.Make(code)
				for _, name := range []string{display.English.Languages().Name(tag), display.Self.Name(tag)} {
					if _, dup := n.languages[strings.ToLower(name)]; name != "" && !dup {
						n.languages[strings.ToLower(name)] = base
					}
				}
			}
			if r, err := language.ParseRegion(code); err == nil && r.IsCountry() && r.Canonicalize() == r {
				// Deprecated codes give way to their successors ("Germany":
				// DE, not DD), and the first code of a name keeps it.
				if name := strings.ToLower(display.English.Regions().Name(r)); name != "" && n.countries[name] == (language.Region{}) {
					n.countries[name] = r
				}
			}
		}
	}
	for name, code := range countryAliases {
		n.countries[name] = language.MustParseRegion(code)
	}
	return n
})

// countryAliases are other names of countries than CLDR's English ones.
var countryAliases = map[string]string{
	"usa": "US", "u.s.": "US", "u.s.a.": "US", "america": "US", "united states of america": "US", "the united states": "US",
	"uk": "GB", "u.k.": "GB", "britain": "GB", "great britain": "GB", "the united kingdom": "GB",
	"holland": "NL", "the netherlands": "NL", "korea": "KR", "czech republic": "CZ", "ivory coast": "CI",
	"burma": "MM", "swaziland": "SZ", "turkey": "TR", "uae": "AE", "emirates": "AE", "russian federation": "RU",
}

// languageOf reads a language: a BCP 47 tag ("es", "en-US", "zh-Hans")
// or a language's English or own name ("Spanish", "español"). It
// returns the tag's text ("es", "en-US").
func languageOf(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if base, ok := names().languages[strings.ToLower(t)]; ok {
		return base.String(), true
	}
	if len(t) < 2 || len(t) > 16 || strings.ContainsAny(t, " .") {
		return "", false
	}
	tag, err := language.Parse(t)
	if err != nil {
		return "", false
	}
	base, conf := tag.Base()
	if conf != language.Exact || display.English.Languages().Name(language.Make(base.String())) == "" {
		return "", false
	}
	return tag.String(), true
}

// countryOf reads a country: an ISO 3166 code, two letters or three
// ("FR", "FRA"), or its name ("France", "USA", "United Kingdom"). It
// returns the two-letter code.
func countryOf(s string) (string, bool) {
	t := strings.TrimSpace(s)
	if r, ok := names().countries[strings.ToLower(t)]; ok {
		return r.String(), true
	}
	if len(t) != 2 && len(t) != 3 {
		return "", false
	}
	r, err := language.ParseRegion(t)
	if err != nil || !r.IsCountry() {
		return "", false
	}
	return r.Canonicalize().String(), true
}

// compareCodes decides languages, countries and currencies: when both
// sides read as one (a code or a name), their codes decide; a language
// with a region ("en-US") equals its language alone ("en", "English"),
// and a country that is also a US state by the same name equals the
// state's code ("Georgia", "GA"). Otherwise the values compare as names.
func compareCodes(k Kind, gold, pred string) Ruling {
	read := languageOf
	switch k {
	case Country:
		read = countryOf
	case Currency:
		read = func(s string) (string, bool) { return currencyCode(strings.ToLower(strings.TrimSpace(s))) }
	}
	g, gok := read(gold)
	p, pok := read(pred)
	if !gok || !pok {
		return compareWords(gold, pred)
	}
	if k == Country && g != p {
		// A state that shares its name with a country: "Georgia" and "GA".
		if gs, ok := subdivisionOf(gold); ok {
			if ps, ok := subdivisionOf(pred); ok && gs == ps {
				return Ruling{Rule: RuleEquivalence, Pass: true}
			}
		}
	}
	if k == Language && g != p {
		gb, _, _ := strings.Cut(g, "-")
		pb, _, _ := strings.Cut(p, "-")
		if gb == pb && (gb == g || pb == p) {
			return Ruling{Rule: RuleParsedEqual, Pass: true}
		}
	}
	return parsed(g == p, gold, pred)
}

// subdivisions are the states, district and territories of the United
// States and the provinces and territories of Canada, keyed by lower-case
// name and by postal code (the two countries' codes do not collide), with
// their ISO 3166-2 codes: the places a form or an address names by code
// ("CA" for "California").
var subdivisions = func() map[string]string {
	m := map[string]string{}
	for _, p := range strings.Split(`US-AL alabama|US-AK alaska|US-AZ arizona|US-AR arkansas|US-CA california|
		US-CO colorado|US-CT connecticut|US-DE delaware|US-FL florida|US-GA georgia|US-HI hawaii|US-ID idaho|
		US-IL illinois|US-IN indiana|US-IA iowa|US-KS kansas|US-KY kentucky|US-LA louisiana|US-ME maine|
		US-MD maryland|US-MA massachusetts|US-MI michigan|US-MN minnesota|US-MS mississippi|US-MO missouri|
		US-MT montana|US-NE nebraska|US-NV nevada|US-NH new hampshire|US-NJ new jersey|US-NM new mexico|
		US-NY new york|US-NC north carolina|US-ND north dakota|US-OH ohio|US-OK oklahoma|US-OR oregon|
		US-PA pennsylvania|US-RI rhode island|US-SC south carolina|US-SD south dakota|US-TN tennessee|
		US-TX texas|US-UT utah|US-VT vermont|US-VA virginia|US-WA washington|US-WV west virginia|
		US-WI wisconsin|US-WY wyoming|US-DC district of columbia|US-PR puerto rico|US-GU guam|
		US-VI u.s. virgin islands|US-AS american samoa|US-MP northern mariana islands|
		CA-AB alberta|CA-BC british columbia|CA-MB manitoba|CA-NB new brunswick|CA-NL newfoundland and labrador|
		CA-NS nova scotia|CA-ON ontario|CA-PE prince edward island|CA-QC quebec|CA-SK saskatchewan|
		CA-NT northwest territories|CA-NU nunavut|CA-YT yukon`, "|") {
		iso, name, _ := strings.Cut(strings.TrimSpace(p), " ")
		m[name] = iso
		m[strings.ToLower(iso[3:])] = iso
	}
	return m
}()

// subdivisionOf reads a US state or Canadian province by name or postal
// code ("Texas", "TX", "Ontario", "ON") and returns its ISO 3166-2 code.
func subdivisionOf(s string) (string, bool) {
	c, ok := subdivisions[strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "."))]
	return c, ok
}
