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
			if r, err := language.ParseRegion(code); err == nil && r.IsCountry() {
				// The first code of a name keeps it ("France": FR, not FX).
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
	return r.String(), true
}

// compareCodes decides languages, countries and currencies: when both
// sides read as one (a code or a name), their codes decide; a language
// with a region ("en-US") equals its language alone ("en", "English").
// Otherwise the values compare as names.
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
	if k == Language && g != p {
		gb, _, _ := strings.Cut(g, "-")
		pb, _, _ := strings.Cut(p, "-")
		if gb == pb && (gb == g || pb == p) {
			return Ruling{Rule: RuleParsedEqual, Pass: true}
		}
	}
	return parsed(g == p, gold, pred)
}
