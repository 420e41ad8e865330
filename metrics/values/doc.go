// Package values owns the kinds of values and the comparator of each. It
// is pure (no I/O, no model): metrics classifies every gold value with
// it, lets the kind's comparator decide where it can, and asks its
// scorer (the embedding) only about what the comparator leaves open.
//
// # Kinds
//
// Classify gives a gold value its Kind from the tool definition's schema
// (an enum member or a value with a pattern is an Identifier; a format
// names its kind), then from its key ("order_id", "email", "phone",
// "currency", "language", "country_code"...), then from the value
// itself: integer, decimal, money, percent, quantity, duration, date,
// time, datetime, weekday, month, email, URL, phone, identifier, address,
// language, country, currency, boolean, name, category (a short
// categorical token) or text (free text).
//
// # Comparators
//
// Comparer.Compare decides a predicted value against a gold value of a
// kind and says by which Rule:
//
//   - numbers, money, percents, quantities and durations by parsed value
//     ("$89.00" = "89 USD", "2" = "two", "5 kg" = "5000 g", "2 hours" =
//     "PT2H"); dates, times and date-times by parsed value ("May 20,
//     2024" = "2024-05-20", "3pm" = "15:00"; a quarter, "Q3 2024" =
//     "third quarter of 2024"); weekdays and months by their
//     number; booleans ("true" = "yes"); phone numbers by their E.164 form
//     ("(415) 555-0100" = "+1 415 555 0100"): parsed_equal or
//     parsed_differs, and unparsed when the prediction does not read as
//     the gold's kind. Never by similarity.
//   - identifiers and codes, emails and URLs exactly after normalisation
//     (case, white space, a code's hyphens; a URL's scheme and host):
//     normalized or differs.
//   - languages, countries and currencies by their codes when both sides
//     name one ("Spanish" = "es", "France" = "FR", "dollars" = "USD").
//   - addresses: the numbers must agree; then the words, "St." standing
//     for "Street" (equivalence); else needs_embedding.
//   - names and categorical tokens: normalized; else contradicted when a
//     number or code inside differs ("Terminal 2" / "Terminal 3"); else a
//     known equivalence (an initialism "NYC" = "New York City", an
//     abbreviation, a language or country by name and by code); for names,
//     differs when the main parts (before the first comma) each have a
//     word the other does not stand for ("Boston" / "Austin", "Alice
//     Chen" / "Alice Cheng": compareNames); else needs_embedding.
//   - free text: contradicted when a hard fact inside contradicts the
//     gold's (Contradictions); else needs_embedding.
//
// needs_embedding is the only undecided rule: the caller compares the
// strings with its scorer and holds the score to the threshold of the
// kind (metrics: ThresholdQuery.Kind). Embedded lists the kinds that can
// end there.
//
// # Facts inside text
//
// Contradictions compares the hard facts of two texts (replies, free-text
// values), each given as its clauses: amounts by unit (dollars with
// dollars, nights with nights), dates, quarters, times, weekdays,
// identifiers, names, a yes against a no, and a clause against its
// negation. A kind contradicts only when each side states a fact of it
// the other does not, so an added or omitted fact, or one written
// otherwise, is no contradiction. Number, date and time reading is
// metrics/features' (AnchorSpans).
//
// # Libraries
//
// Phone numbers: github.com/nyaruka/phonenumbers (the Go port of
// libphonenumber). Dates: github.com/araddon/dateparse, after a leading
// weekday and ordinal suffixes are dropped (a panic of it is turned into
// "no date"). Language, country and currency codes and names:
// golang.org/x/text (language, language/display, currency). Numbers in
// words and units of measure are this package's own: the proxy serves no
// number-words module, and the units module it serves resolves symbols by
// map order.
package values
