package values

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/araddon/dateparse"

	"github.com/aem-dev/aem/metrics/features"
)

// moment is a parsed date, time or both.
type moment struct {
	date, clock bool // which parts were stated
	year        bool // whether a date states its year
	zoned       bool // whether a date-time states its offset or zone
	t           time.Time
	// alt is the day-first reading of an ambiguous numeric date
	// ("05/06/2024"); zero otherwise.
	alt time.Time
}

var weekdays = map[string]int{
	"sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "tues": 2, "wednesday": 3, "wed": 3,
	"thursday": 4, "thu": 4, "thur": 4, "thurs": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6,
}

var months = map[string]int{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
	"june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

func weekdayOf(s string) (int, bool) {
	d, ok := weekdays[strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")]
	return d, ok
}

// monthOf reads a month's name or abbreviation, or its number (1-12).
func monthOf(s string) (int, bool) {
	t := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
	if m, ok := months[t]; ok {
		return m, true
	}
	m, err := strconv.Atoi(t)
	return m, err == nil && m >= 1 && m <= 12
}

// whenKind reads a string's kind when it is a date, a time, a date-time,
// a weekday or a month name.
func whenKind(s string) (Kind, bool) {
	if _, ok := weekdayOf(s); ok {
		return Weekday, true
	}
	if _, ok := months[strings.TrimSuffix(strings.ToLower(s), ".")]; ok {
		return Month, true
	}
	m, ok := parseMoment(s)
	switch {
	case !ok:
		return "", false
	case m.date && m.clock:
		return DateTime, true
	case m.date:
		return Date, true
	}
	return Time, true
}

var (
	// numericDate finds a date written in numbers: 2024-05-20, 5/20/2024,
	// 20.05.2024, 05/20.
	numericDate = regexp.MustCompile(`\b\d{1,4}[-/.]\d{1,2}([-/.]\d{1,4})?\b`)
	ordinal     = regexp.MustCompile(`\b(\d{1,2})(st|nd|rd|th)\b`)
	clockText   = regexp.MustCompile(`^(\d{1,2})(?:[:.h](\d{2}))?(?::(\d{2})(?:\.\d+)?)?\s*(a\.?m\.?|p\.?m\.?)?$`)
	zoneText    = regexp.MustCompile(`(?i)(z|[+-]\d{2}:?\d{2}|\b(utc|gmt|[a-z]{2,4}t))$`)
	hasClock    = regexp.MustCompile(`(?i)\d:\d{2}|\d\s*[ap]\.?m\b|t\d{2}`)
	// dayMonth is a day before its month with no year ("3 June"), which
	// dateparse reads only the other way round ("June 3").
	dayMonth = regexp.MustCompile(`^(\d{1,2})\s+([A-Za-z]+\.?)$`)
)

// parseClock reads a time of day: "15:00", "15:00:00", "3pm", "3 p.m.",
// "3:30 PM", "noon", "midnight"; as seconds since midnight.
func parseClock(s string) (int, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "noon", "midday":
		return 12 * 3600, true
	case "midnight":
		return 0, true
	}
	m := clockText.FindStringSubmatch(t)
	if m == nil || m[2] == "" && m[4] == "" {
		return 0, false // a bare number is no time
	}
	h, _ := strconv.Atoi(m[1])
	mins, _ := strconv.Atoi(m[2])
	secs, _ := strconv.Atoi(m[3])
	switch mer := strings.ReplaceAll(m[4], ".", ""); {
	case mer != "" && (h < 1 || h > 12):
		return 0, false
	case mer == "am" && h == 12:
		h = 0
	case mer == "pm" && h < 12:
		h += 12
	}
	if h > 24 || mins > 59 || secs > 59 || h == 24 && mins+secs > 0 {
		return 0, false
	}
	return h*3600 + mins*60 + secs, true
}

// parseMoment reads a date, a time or a date-time: "2024-05-20", "May
// 20, 2024", "Monday, May 20th 2024", "20 May 2024", "05/20/2024",
// "2024-05-20T15:00:00Z", "3pm". Dates go to araddon/dateparse after a
// leading weekday and ordinal suffixes are dropped; a string is only
// read as a date when it names a month or writes one in numbers.
func parseMoment(s string) (moment, bool) {
	t := strings.TrimSpace(s)
	if secs, ok := parseClock(t); ok {
		return moment{clock: true, t: time.Date(0, 1, 1, 0, 0, secs, 0, time.UTC)}, true
	}
	if len(t) > 64 || !strings.ContainsAny(t, "0123456789") {
		return moment{}, false
	}
	t = dropWeekday(ordinal.ReplaceAllString(t, "$1"))
	t = strings.ReplaceAll(t, " of ", " ")
	if m := dayMonth.FindStringSubmatch(t); m != nil && namesMonth(m[2]) {
		t = m[2] + " " + m[1]
	}
	if !numericDate.MatchString(t) && !namesMonth(t) {
		return moment{}, false
	}
	m := moment{date: true, clock: hasClock.MatchString(t), zoned: zoneText.MatchString(t)}
	var err error
	if m.t, err = parseDate(t, true); err != nil {
		return moment{}, false
	}
	m.year = m.t.Year() != 0
	if alt, err := parseDate(t, false); err == nil && !alt.Equal(m.t) {
		m.alt = alt
	}
	return m, true
}

// parseDate calls dateparse, month first or day first for an ambiguous
// numeric date, turning a panic of the library into an error.
func parseDate(s string, monthFirst bool) (t time.Time, err error) {
	defer func() {
		if recover() != nil {
			err = strconv.ErrSyntax
		}
	}()
	return dateparse.ParseIn(s, time.UTC, dateparse.PreferMonthFirst(monthFirst))
}

func dropWeekday(t string) string {
	w, rest, ok := strings.Cut(t, " ")
	if _, day := weekdayOf(strings.TrimRight(w, ",")); ok && day {
		return strings.TrimSpace(rest)
	}
	return t
}

func namesMonth(t string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool { return r == ' ' || r == ',' || r == '-' || r == '/' || r == '.' }) {
		if _, ok := months[w]; ok {
			return true
		}
	}
	return false
}

// compareWhen decides dates, times and date-times. A date compares year,
// month and day (month and day when either side leaves the year out); a
// time compares the time of day; a date-time both, and the instant when
// both sides state their zone. A side may say more than the kind needs (a
// date-time for a date): the kind's parts decide. An ambiguous numeric
// date ("05/06/2024") matches by either reading.
func compareWhen(k Kind, gold, pred string) Ruling {
	if q, ok := parseQuarter(gold); ok && k == Date {
		return compareQuarters(q, gold, pred)
	}
	g, ok := parseMoment(gold)
	if !ok {
		return compareWords(gold, pred)
	}
	p, ok := parseMoment(pred)
	if !ok || g.date && !p.date || g.clock && !p.clock {
		return unparsed(k, pred)
	}
	return parsed(sameMoment(g, p, g.t, p.t) || !p.alt.IsZero() && sameMoment(g, p, g.t, p.alt) ||
		!g.alt.IsZero() && (sameMoment(g, p, g.alt, p.t) || !p.alt.IsZero() && sameMoment(g, p, g.alt, p.alt)), gold, pred)
}

func sameMoment(g, p moment, gt, pt time.Time) bool {
	if g.date && g.clock && g.zoned && p.zoned {
		return gt.Equal(pt)
	}
	if g.date {
		if gt.Month() != pt.Month() || gt.Day() != pt.Day() || g.year && p.year && gt.Year() != pt.Year() {
			return false
		}
	}
	if g.clock {
		gh, gm, gs := gt.Clock()
		ph, pm, ps := pt.Clock()
		return gh == ph && gm == pm && gs == ps
	}
	return true
}

// compareCalendarName decides weekdays ("Tue" = "Tuesday") and months
// ("Sept" = "September" = "9").
func compareCalendarName(k Kind, gold, pred string) Ruling {
	read := weekdayOf
	if k == Month {
		read = monthOf
	}
	g, ok := read(gold)
	if !ok {
		return compareWords(gold, pred)
	}
	p, ok := read(pred)
	if !ok {
		if m, ok := parseMoment(pred); ok && m.date && k == Weekday {
			return parsed(int(m.t.Weekday()) == g && m.year, gold, pred)
		}
		return unparsed(k, pred)
	}
	return parsed(g == p, gold, pred)
}

// quarter is a calendar quarter, a period the date kind reads: "Q3 2024",
// "2024 Q3", "third quarter of 2024", "Q3". year is 0 when not stated.
type quarter struct{ q, year int }

// parseQuarter reads a quarter from the anchors of s (package features): a
// quarter and at most a four-digit year, and no other fact or word than
// "of", "the", "in", "quarter" and "fy".
func parseQuarter(s string) (quarter, bool) {
	if len(s) > 64 || !strings.ContainsAny(s, "qQ") { // "Q3", "quarter"
		return quarter{}, false
	}
	toks := features.Tokenize(s)
	covered := make([]bool, len(toks))
	var out quarter
	for _, sp := range features.AnchorSpans(toks) {
		switch a := sp.Anchor; {
		case len(a) == 2 && a[0] == 'q' && out.q == 0:
			out.q = int(a[1] - '0')
		case len(a) == 5 && a[0] == 'n' && out.year == 0:
			y, err := strconv.Atoi(a[1:])
			if err != nil || y < 1900 || y > 2199 {
				return quarter{}, false
			}
			out.year = y
		default:
			return quarter{}, false
		}
		for i := sp.Start; i < sp.End; i++ {
			covered[i] = true
		}
	}
	for i, t := range toks {
		if !covered[i] && !slices.Contains([]string{"of", "the", "in", "quarter", "fy"}, t.Lower) {
			return quarter{}, false
		}
	}
	return out, out.q >= 1 && out.q <= 4
}

// compareQuarters decides a gold quarter: the same quarter, and the same
// year when both state one.
func compareQuarters(g quarter, gold, pred string) Ruling {
	p, ok := parseQuarter(pred)
	if !ok {
		return unparsed(Date, pred)
	}
	return parsed(g.q == p.q && (g.year == 0 || p.year == 0 || g.year == p.year), gold, pred)
}
