package values

import (
	"strconv"
	"strings"
	"time"
)

// dimension is what a unit measures; units of one dimension convert.
type dimension uint8

const (
	dimOther       dimension = iota // a counted noun ("3 nights"): converts to nothing else
	dimMass                         // base: gram
	dimLength                       // base: metre
	dimVolume                       // base: litre
	dimArea                         // base: square metre
	dimTemperature                  // base: kelvin
	dimSpeed                        // base: metre per second
	dimData                         // base: byte
	dimEnergy                       // base: joule
	dimTime                         // base: second
	dimCalendar                     // base: month (months and years vary in seconds)
)

// unit is a unit of measure: value in base units = value*factor + offset.
type unit struct {
	name           string // canonical symbol ("kg"), or the counted noun, singular
	dim            dimension
	factor, offset float64
}

func (u *unit) toBase(v float64) float64 { return v*u.factor + u.offset }

// unitTable lists the units a quantity may be written in, each with its
// spellings (lower case). No units module fits: bcicen/go-units looks
// units up by ranging over a map (so an ambiguous symbol resolves
// differently from run to run), keeps its conversions in package
// variables and evaluates formulas with a scripting engine; the common
// units below are facts, not a parser.
var unitTable = []struct {
	u     unit
	names string
}{
	{unit{"mg", dimMass, 1e-3, 0}, "mg,milligram,milligrams"},
	{unit{"g", dimMass, 1, 0}, "g,gram,grams,gramme,grammes,gr"},
	{unit{"kg", dimMass, 1e3, 0}, "kg,kgs,kilo,kilos,kilogram,kilograms,kilogramme,kilogrammes"},
	{unit{"t", dimMass, 1e6, 0}, "tonne,tonnes,metric ton"},
	{unit{"lb", dimMass, 453.59237, 0}, "lb,lbs,pound,pounds"},
	{unit{"oz", dimMass, 28.349523125, 0}, "oz,ounce,ounces"},
	{unit{"st", dimMass, 6350.29318, 0}, "stone,stones"},
	{unit{"mm", dimLength, 1e-3, 0}, "mm,millimeter,millimeters,millimetre,millimetres"},
	{unit{"cm", dimLength, 1e-2, 0}, "cm,centimeter,centimeters,centimetre,centimetres"},
	{unit{"m", dimLength, 1, 0}, "m,meter,meters,metre,metres"},
	{unit{"km", dimLength, 1e3, 0}, "km,kms,kilometer,kilometers,kilometre,kilometres"},
	{unit{"in", dimLength, 0.0254, 0}, "in,inch,inches,\""},
	{unit{"ft", dimLength, 0.3048, 0}, "ft,foot,feet,'"},
	{unit{"yd", dimLength, 0.9144, 0}, "yd,yds,yard,yards"},
	{unit{"mi", dimLength, 1609.344, 0}, "mi,mile,miles"},
	{unit{"nmi", dimLength, 1852, 0}, "nmi,nautical mile,nautical miles"},
	{unit{"ml", dimVolume, 1e-3, 0}, "ml,milliliter,milliliters,millilitre,millilitres"},
	{unit{"cl", dimVolume, 1e-2, 0}, "cl,centiliter,centiliters,centilitre,centilitres"},
	{unit{"l", dimVolume, 1, 0}, "l,liter,liters,litre,litres"},
	{unit{"gal", dimVolume, 3.785411784, 0}, "gal,gallon,gallons"},
	{unit{"qt", dimVolume, 0.946352946, 0}, "qt,quart,quarts"},
	{unit{"pt", dimVolume, 0.473176473, 0}, "pt,pint,pints"},
	{unit{"cup", dimVolume, 0.2365882365, 0}, "cup,cups"},
	{unit{"fl oz", dimVolume, 0.0295735295625, 0}, "fl oz,fluid ounce,fluid ounces"},
	{unit{"tbsp", dimVolume, 0.01478676478125, 0}, "tbsp,tablespoon,tablespoons"},
	{unit{"tsp", dimVolume, 0.00492892159375, 0}, "tsp,teaspoon,teaspoons"},
	{unit{"m2", dimArea, 1, 0}, "m2,m²,sqm,square meter,square meters,square metre,square metres"},
	{unit{"ft2", dimArea, 0.09290304, 0}, "ft2,ft²,sqft,sq ft,square foot,square feet"},
	{unit{"ha", dimArea, 1e4, 0}, "ha,hectare,hectares"},
	{unit{"acre", dimArea, 4046.8564224, 0}, "acre,acres"},
	{unit{"°C", dimTemperature, 1, 273.15}, "c,°c,ºc,celsius,degrees celsius,degree celsius,centigrade"},
	{unit{"°F", dimTemperature, 5.0 / 9, 273.15 - 32*5.0/9}, "f,°f,ºf,fahrenheit,degrees fahrenheit,degree fahrenheit"},
	{unit{"K", dimTemperature, 1, 0}, "kelvin,kelvins"},
	{unit{"km/h", dimSpeed, 1 / 3.6, 0}, "km/h,kmh,kph,kmph,kilometers per hour,kilometres per hour"},
	{unit{"mph", dimSpeed, 0.44704, 0}, "mph,miles per hour"},
	{unit{"m/s", dimSpeed, 1, 0}, "m/s,meters per second,metres per second"},
	{unit{"kn", dimSpeed, 1852.0 / 3600, 0}, "kn,kt,knot,knots"},
	{unit{"B", dimData, 1, 0}, "byte,bytes"},
	{unit{"KB", dimData, 1e3, 0}, "kb,kilobyte,kilobytes"},
	{unit{"MB", dimData, 1e6, 0}, "mb,megabyte,megabytes"},
	{unit{"GB", dimData, 1e9, 0}, "gb,gigabyte,gigabytes"},
	{unit{"TB", dimData, 1e12, 0}, "tb,terabyte,terabytes"},
	{unit{"KiB", dimData, 1 << 10, 0}, "kib,kibibyte,kibibytes"},
	{unit{"MiB", dimData, 1 << 20, 0}, "mib,mebibyte,mebibytes"},
	{unit{"GiB", dimData, 1 << 30, 0}, "gib,gibibyte,gibibytes"},
	{unit{"TiB", dimData, 1 << 40, 0}, "tib,tebibyte,tebibytes"},
	{unit{"J", dimEnergy, 1, 0}, "j,joule,joules"},
	{unit{"kJ", dimEnergy, 1e3, 0}, "kj,kilojoule,kilojoules"},
	{unit{"kWh", dimEnergy, 3.6e6, 0}, "kwh,kilowatt hour,kilowatt hours,kilowatt-hour,kilowatt-hours"},
	{unit{"kcal", dimEnergy, 4184, 0}, "kcal,kilocalorie,kilocalories,calorie,calories,cal"},
	{unit{"ms", dimTime, 1e-3, 0}, "ms,msec,millisecond,milliseconds"},
	{unit{"s", dimTime, 1, 0}, "s,sec,secs,second,seconds"},
	{unit{"min", dimTime, 60, 0}, "min,mins,minute,minutes"},
	{unit{"h", dimTime, 3600, 0}, "h,hr,hrs,hour,hours"},
	{unit{"d", dimTime, 86400, 0}, "d,day,days"},
	{unit{"wk", dimTime, 7 * 86400, 0}, "wk,wks,week,weeks"},
	{unit{"mo", dimCalendar, 1, 0}, "mo,month,months"},
	{unit{"qtr", dimCalendar, 3, 0}, "quarter,quarters"},
	{unit{"yr", dimCalendar, 12, 0}, "yr,yrs,year,years"},
}

// unitNames indexes unitTable by spelling (names are comma-separated);
// it is built once and only read.
var unitNames = func() map[string]*unit {
	m := map[string]*unit{}
	for i := range unitTable {
		for _, n := range strings.Split(unitTable[i].names, ",") {
			m[n] = &unitTable[i].u
		}
	}
	return m
}()

// unitOf reads a unit ("kg", "kilograms", "square feet", "°F") or a
// counted noun ("nights", "adults": a unit of its own, singular).
func unitOf(w string) (*unit, bool) {
	w = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(w), "of "))
	if u, ok := unitNames[w]; ok {
		return u, true
	}
	if rest, ok := strings.CutPrefix(w, "degrees "); ok {
		return unitOf(rest)
	}
	if w == "" || len(w) > 24 || w == "am" || w == "pm" || strings.IndexFunc(w, func(r rune) bool { return !('a' <= r && r <= 'z') }) >= 0 {
		return nil, false
	}
	return &unit{name: strings.TrimSuffix(w, "s"), dim: dimOther, factor: 1}, true
}

// span is a duration: seconds plus calendar months (a month or a year
// is no fixed number of seconds).
type span struct{ seconds, months float64 }

// parseDuration reads "2 hours", "90 min", "1 hour 30 minutes", "1h30m",
// "2.5 days", "PT1H30M", "P3D", "1 year", "two weeks".
func parseDuration(s string) (span, bool) {
	t := strings.ToLower(strings.TrimSpace(s))
	if strings.HasPrefix(t, "p") {
		return parseISODuration(t)
	}
	if d, err := time.ParseDuration(strings.ReplaceAll(t, " ", "")); err == nil && strings.ContainsAny(t, "hms") {
		return span{seconds: d.Seconds()}, true
	}
	var out span
	parts := 0
	rest := strings.ReplaceAll(strings.ReplaceAll(t, ",", " "), " and ", " ")
	for strings.TrimSpace(rest) != "" {
		v, r, ok := leadingNumber(strings.TrimSpace(rest))
		if !ok {
			v, r, ok = articleNumber(strings.TrimSpace(rest))
		}
		if !ok {
			return span{}, false
		}
		word, tail, _ := strings.Cut(strings.TrimSpace(r), " ")
		u, ok := unitNames[word]
		if !ok || u.dim != dimTime && u.dim != dimCalendar {
			return span{}, false
		}
		if u.dim == dimTime {
			out.seconds += u.toBase(v)
		} else {
			out.months += u.toBase(v)
		}
		rest, parts = tail, parts+1
	}
	return out, parts > 0
}

// articleNumber reads the number an article stands for before a unit:
// "an hour" is one hour, "half an hour" half of one.
func articleNumber(t string) (float64, string, bool) {
	for _, a := range []struct {
		prefix string
		v      float64
	}{{"half an ", 0.5}, {"half a ", 0.5}, {"an ", 1}, {"a ", 1}} {
		if rest, ok := strings.CutPrefix(t, a.prefix); ok {
			return a.v, rest, true
		}
	}
	return 0, t, false
}

// parseISODuration reads an ISO 8601 duration: P[nY][nM][nW][nD][T[nH][nM][nS]].
func parseISODuration(t string) (span, bool) {
	var out span
	inTime, seen := false, false
	num := ""
	for _, r := range t[1:] {
		switch {
		case r == 't' && !inTime:
			inTime = true
		case r >= '0' && r <= '9' || r == '.' || r == ',':
			num += string(r)
		default:
			v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", "."), 64)
			if err != nil || num == "" {
				return span{}, false
			}
			num, seen = "", true
			switch {
			case r == 'y' && !inTime:
				out.months += 12 * v
			case r == 'm' && !inTime:
				out.months += v
			case r == 'w' && !inTime:
				out.seconds += 7 * 86400 * v
			case r == 'd' && !inTime:
				out.seconds += 86400 * v
			case r == 'h' && inTime:
				out.seconds += 3600 * v
			case r == 'm' && inTime:
				out.seconds += 60 * v
			case r == 's' && inTime:
				out.seconds += v
			default:
				return span{}, false
			}
		}
	}
	return out, seen && num == ""
}

// durations decides two durations: equal seconds and equal months.
func (c Comparer) durations(gold, pred string) Ruling {
	g, ok := parseDuration(gold)
	if !ok {
		return c.amounts(gold, pred)
	}
	p, ok := parseDuration(pred)
	if !ok {
		return unparsed(Duration, pred)
	}
	return parsed(c.close(g.seconds, p.seconds) && c.close(g.months, p.months), gold, pred)
}
