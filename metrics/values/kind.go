package values

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// Kind is what a gold value is: it picks the comparator that decides a
// predicted value against it.
type Kind string

// The value kinds, in the order Kinds lists them.
const (
	Integer    Kind = "integer"    // 12, "12", "twelve"
	Decimal    Kind = "decimal"    // 4.5, "4.50"
	Money      Kind = "money"      // "$89.00", "89 USD", "EUR 12"
	Percent    Kind = "percent"    // "15%", "15 percent"
	Quantity   Kind = "quantity"   // "5 kg", "12 miles"
	Date       Kind = "date"       // "2024-05-20", "May 20, 2024"
	Time       Kind = "time"       // "15:00", "3pm"
	DateTime   Kind = "datetime"   // "2024-05-20T15:00:00Z", "May 20 2024 3pm"
	Weekday    Kind = "weekday"    // "Tuesday", "Tue"
	Month      Kind = "month"      // "May", "Sept"
	Duration   Kind = "duration"   // "2 hours", "90 min", "PT2H"
	Identifier Kind = "identifier" // "ORD-10293", a UUID, a SKU; an enum member; a value with a pattern
	Email      Kind = "email"      // "john.doe@example.com"
	URL        Kind = "url"        // "https://example.com/a"
	Phone      Kind = "phone"      // "(415) 555-0100", "+1 415 555 0100"
	Address    Kind = "address"    // "12 Elm Street"
	Language   Kind = "language"   // "es", "Spanish", "en-US"
	Country    Kind = "country"    // "FR", "France", "USA"
	Currency   Kind = "currency"   // "USD", "euro"
	Boolean    Kind = "boolean"    // true, "yes"
	Name       Kind = "name"       // "Boston", "Alice Chen", "NYC"
	Category   Kind = "category"   // "revenue", "store credit", "product_line"
	Text       Kind = "text"       // free text: a sentence, a description
)

// Kinds lists every kind.
func Kinds() []Kind {
	return []Kind{Integer, Decimal, Money, Percent, Quantity, Date, Time, DateTime, Weekday, Month, Duration,
		Identifier, Email, URL, Phone, Address, Language, Country, Currency, Boolean, Name, Category, Text}
}

// ParseKind reads a kind's name (as Kinds spells it); ok is false for
// anything else.
func ParseKind(s string) (Kind, bool) {
	k := Kind(strings.TrimSpace(s))
	return k, slices.Contains(Kinds(), k)
}

// Embedded reports whether a comparison of kind k may end in
// RuleNeedsEmbedding: names, categorical tokens, addresses, free text, and
// language, country and currency values that are not codes or names this
// package knows. Only these kinds have a threshold of their own.
func Embedded(k Kind) bool {
	switch k {
	case Name, Category, Address, Text, Language, Country, Currency:
		return true
	}
	return false
}

// EmbeddedKinds lists the kinds for which Embedded is true.
func EmbeddedKinds() []Kind {
	var out []Kind
	for _, k := range Kinds() {
		if Embedded(k) {
			out = append(out, k)
		}
	}
	return out
}

// Hints is what a tool definition and the value's place say about a gold
// value; the zero Hints says nothing.
type Hints struct {
	// Key is the object key the value sits under ("order_id", "city"; the
	// parameter's name for a top-level value); "" inside arrays of no key.
	Key string
	// Type is the JSON Schema type the value's schema allows ("string",
	// "integer", ...), "" when it allows several or none is given.
	Type string
	// Format is the schema's "format" ("date", "date-time", "email", ...).
	Format string
	// Enum is true when the schema lists the allowed values; Pattern is
	// the schema's "pattern".
	Enum    bool
	Pattern string
}

// Classify returns the kind of a gold value (a decoded JSON scalar:
// string, json.Number, float64, bool or nil) given what its schema and key
// say. The schema decides first (an enum member or a value with a pattern
// is an Identifier: the tool accepts those spellings only; a format names
// its kind), then the key when it names a kind whose comparator reads the
// value ("order_id", "email", "phone", "currency", "language"), then the
// value itself, parsed: numbers, money, percents, quantities, durations,
// dates and times, weekdays and months, emails, URLs, phone numbers,
// codes mixing letters and digits, street addresses, language and country
// names, then names (capitalised words or an acronym), short categorical
// tokens, and free text. Containers (objects and arrays) have no kind: "".
func Classify(gold any, h Hints) Kind {
	switch g := gold.(type) {
	case bool:
		return Boolean
	case json.Number:
		return numberKind(string(g))
	case float64, float32, int, int64:
		b, _ := json.Marshal(g)
		return numberKind(string(b))
	case string:
		return classifyString(g, h)
	}
	return ""
}

func numberKind(s string) Kind {
	if strings.ContainsAny(s, ".eE") {
		return Decimal
	}
	return Integer
}

func classifyString(s string, h Hints) Kind {
	if h.Enum || h.Pattern != "" {
		return Identifier
	}
	if k, ok := formatKinds[strings.ToLower(h.Format)]; ok {
		return k
	}
	if h.Format != "" {
		return Identifier
	}
	if k := keyKind(h.Key, s); k != "" {
		return k
	}
	return valueKind(s)
}

// formatKinds maps JSON Schema formats to kinds; any other format is an
// Identifier (a string the tool reads by its own rule).
var formatKinds = map[string]Kind{
	"date": Date, "date-time": DateTime, "datetime": DateTime, "time": Time, "duration": Duration,
	"email": Email, "idn-email": Email, "uri": URL, "url": URL, "iri": URL, "uri-reference": URL,
	"uuid": Identifier, "phone": Phone,
}

// keyWords maps the last word of a key ("order_id" -> "id") to the kind
// the key names, for kinds whose comparator can read any value: an
// identifier is compared exactly whatever it looks like, a phone number
// by its digits.
var keyWords = map[string]Kind{
	"id": Identifier, "ids": Identifier, "uuid": Identifier, "guid": Identifier, "key": Identifier,
	"code": Identifier, "codes": Identifier, "sku": Identifier, "isbn": Identifier, "ean": Identifier,
	"upc": Identifier, "iban": Identifier, "swift": Identifier, "bic": Identifier, "zip": Identifier,
	"zipcode": Identifier, "postcode": Identifier, "iata": Identifier, "icao": Identifier, "ticker": Identifier,
	"symbol": Identifier, "token": Identifier, "hash": Identifier, "path": Identifier, "filename": Identifier,
	"serial": Identifier, "version": Identifier, "number": Identifier,
	"url": URL, "uri": URL, "urls": URL, "link": URL, "website": URL,
	"email": Email, "mail": Email,
	"phone": Phone, "telephone": Phone, "mobile": Phone, "fax": Phone, "tel": Phone,
	"currency": Currency, "language": Language, "lang": Language, "locale": Language, "country": Country,
}

// keyKind is the kind a key names (see keyWords), "" when it names none.
// A code key ("country_code", "language_code", "currency_code") keeps the
// kind of the word before "code"; a phone "number" is a Phone.
func keyKind(key, value string) Kind {
	words := KeyWords(key)
	if len(words) == 0 {
		return ""
	}
	last := words[len(words)-1]
	if len(words) >= 2 && (last == "code" || last == "number" || last == "iso") {
		switch k := keyWords[words[len(words)-2]]; k {
		case Country, Language, Currency, Phone:
			return k
		}
	}
	k := keyWords[last]
	if k == Identifier && last == "number" && valueKind(value) != Identifier && isNumberText(value) {
		return Integer // "number_of_guests": a count, not a code
	}
	return k
}

// KeyWords splits a key into lower-case words at '_', '-', '.', spaces
// and camelCase ("orderId" -> order, id).
func KeyWords(key string) []string {
	return normalizeWords(strings.ReplaceAll(key, ".", " "))
}

// valueKind reads a string's kind from the string alone.
func valueKind(s string) Kind {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return Category
	case isBoolText(t):
		return Boolean
	}
	if _, ok := parseClock(t); ok {
		return Time
	}
	if a, ok := parseAmount(t); ok {
		return a.kind()
	}
	if _, ok := parseDuration(t); ok {
		return Duration
	}
	if _, ok := parseQuarter(t); ok {
		return Date
	}
	if k, ok := whenKind(t); ok {
		return k
	}
	switch {
	case isEmail(t):
		return Email
	case isURL(t):
		return URL
	case looksLikePhone(t):
		return Phone
	case isCode(t):
		return Identifier
	case isAddress(t):
		return Address
	}
	if _, ok := languageOf(t); ok && !isShortCode(t) {
		return Language
	}
	if _, ok := countryOf(t); ok && !isShortCode(t) {
		return Country
	}
	return wordsKind(t)
}

// isShortCode reports a two- or three-letter token: by itself it may be a
// language, a country, a currency or an abbreviation, so only a key says
// which.
func isShortCode(s string) bool {
	return len(s) <= 3 && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) }) < 0
}

// wordsKind tells a name, a categorical token and free text apart: free
// text is five words or more, or ends a sentence; a name is capitalised
// words (function words aside) or an acronym; the rest is categorical.
func wordsKind(s string) Kind {
	words := strings.Fields(s)
	if len(words) >= 5 || strings.ContainsAny(s, "!?;") || len(words) > 1 && strings.HasSuffix(s, ".") {
		return Text
	}
	capital := 0
	for _, w := range words {
		r := []rune(w)
		if isLinkWord(strings.ToLower(w)) {
			continue
		}
		if !unicode.IsUpper(r[0]) {
			return Category
		}
		capital++
	}
	if capital == 0 {
		return Category
	}
	return Name
}

// isLinkWord reports the small words inside names ("Bank of America",
// "Rio de Janeiro").
func isLinkWord(w string) bool {
	switch w {
	case "of", "the", "and", "de", "la", "le", "du", "da", "del", "von", "van", "&", "-":
		return true
	}
	return false
}

// isCode reports a single token mixing letters and digits ("ORD-10293",
// "A1B2", "8GFLCX") or a UUID, or digits joined by separators that read as
// no number, date or phone ("1.2.3", "10-4-22-7").
func isCode(s string) bool {
	if strings.ContainsFunc(s, unicode.IsSpace) {
		return false
	}
	letters, digits := false, false
	for _, r := range s {
		letters = letters || unicode.IsLetter(r)
		digits = digits || unicode.IsDigit(r)
	}
	return digits && (letters || strings.ContainsAny(s, "-./_:#"))
}
