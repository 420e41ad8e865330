package features

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string // Text of each token, "*" suffix when Initial
		kind []Kind
	}{
		{"", nil, nil},
		{"Revenue rose 4.5% to $1,000.", []string{"Revenue*", "rose", "4.5", "to", "1,000"}, []Kind{Word, Word, Number, Word, Number}},
		{"Paris,London", []string{"Paris*", "London"}, []Kind{Word, Word}},
		{"UA-1542 leaves at 8:05. Don't wait", []string{"UA-1542*", "leaves", "at", "8:05", "Don't*", "wait"}, []Kind{Code, Word, Word, Number, Word, Word}},
		{"on 2024-06-14, the 3rd; 37.7M", []string{"on*", "2024-06-14", "the", "3rd", "37.7M*"}, []Kind{Word, Number, Word, Number, Number}},
		{"e-mail -dash- end.", []string{"e-mail*", "dash", "end"}, []Kind{Word, Word, Word}},
		{"café naïve 東京", []string{"café*", "naïve", "東京"}, []Kind{Word, Word, Word}},
		{"order #A-1043: shipped", []string{"order*", "A-1043", "shipped*"}, []Kind{Word, Code, Word}},
	}
	for _, tc := range cases {
		ts := Tokenize(tc.in)
		var got []string
		var kinds []Kind
		for _, tok := range ts {
			s := tok.Text
			if tok.Initial {
				s += "*"
			}
			got = append(got, s)
			kinds = append(kinds, tok.Kind)
			if tok.Lower != strings.ToLower(tok.Text) {
				t.Errorf("%q: Lower %q of %q", tc.in, tok.Lower, tok.Text)
			}
		}
		if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(kinds, tc.kind) {
			t.Errorf("Tokenize(%q) = %q %v, want %q %v", tc.in, got, kinds, tc.want, tc.kind)
		}
	}
}

func TestAnchors(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		// Numbers: separators, multipliers, percentages, ordinals, words.
		{"$4.5M", []string{"n4500000"}},
		{"4,500,000 dollars", []string{"n4500000"}},
		{"4.5 million", []string{"n4500000"}},
		{"2bn and 3k", []string{"n2000000000", "n3000"}},
		{"up 8.4%", []string{"n8.4"}},
		{"the 3rd time", []string{"n3"}},
		{"two passengers", []string{"n2"}},
		{"twenty-five or twenty five", []string{"n25"}},
		{"a one-hour meeting", []string{"n1"}},
		{"1,23 is not a grouped number", []string{"x1,23"}},
		{"version 1.2.3", []string{"x1.2.3"}},
		// Dates.
		{"2024-06-14", []string{"d2024-06-14"}},
		{"June 14, 2024", []string{"d2024-06-14"}},
		{"14 June 2024", []string{"d2024-06-14"}},
		{"the 14th of June", []string{"d-06-14"}},
		{"Jun 14th", []string{"d-06-14"}},
		{"shipped on May 2", []string{"d-05-02"}},
		{"you may 2 go", []string{"n2"}}, // "may" the verb is no month
		{"2024-13-40", []string{"x2024-13-40"}},
		// Times.
		{"at 3 pm", []string{"t15:00"}},
		{"at 3pm", []string{"t15:00"}},
		{"at 15:00", []string{"t15:00"}},
		{"8:05 AM", []string{"t08:05"}},
		{"12 am and 12pm", []string{"t00:00", "t12:00"}},
		{"99:99", []string{"x99:99"}},
		// Quarters.
		{"Q3 2024", []string{"n2024", "q3"}},
		{"third quarter of 2024", []string{"n2024", "q3"}},
		{"3rd quarter", []string{"q3"}},
		// Codes: separators split, digit parts are numbers.
		{"UA-1542", []string{"n1542"}},
		{"UA 1542", []string{"n1542"}},
		{"SKU-1001 and SKU-2002", []string{"n1001", "n2002"}},
		{"confirmation 8GFLCX", []string{"c8gflcx"}},
		{"ticket #59034", []string{"n59034"}},
		// Nothing to anchor.
		{"Anything else?", nil},
		{"Paris is sunny", nil},
	}
	for _, tc := range cases {
		if got := Anchors(Tokenize(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Anchors(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDiffAnchors(t *testing.T) {
	cases := []struct {
		a, b, want []string
	}{
		{[]string{"n1", "n2"}, []string{"n2"}, []string{"n1"}},
		{[]string{"d2024-06-14"}, []string{"d-06-14"}, nil},
		{[]string{"d-06-14"}, []string{"d2025-06-14"}, nil},
		{[]string{"d2024-06-14"}, []string{"d2025-06-14"}, []string{"d2024-06-14"}},
		{nil, []string{"n1"}, nil},
	}
	for _, tc := range cases {
		if got := DiffAnchors(tc.a, tc.b); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DiffAnchors(%q, %q) = %q, want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

// feature returns one named feature of a pair (cosine 0.5).
func feature(t *testing.T, name, gold, pred string) float64 {
	t.Helper()
	v := Extract(gold, pred, 0.5)
	for i, n := range Names() {
		if n == name {
			return v[i]
		}
	}
	t.Fatalf("no feature %q", name)
	return 0
}

func TestExtractFeatures(t *testing.T) {
	cases := []struct {
		name, feature, gold, pred string
		want                      float64
	}{
		// Token overlap: sets of case-folded words.
		{"same words", TokenOverlap, "New York", "new york", 1},
		{"half the words", TokenOverlap, "red car", "red bike", 0.5},
		{"nothing shared", TokenOverlap, "revenue", "profit", 0},
		{"both empty", TokenOverlap, "", "...", 1},
		// Character overlap: trigram multisets (" ab", "abc", "bc " vs " ab", "abd", "bd ").
		{"trigrams", CharOverlap, "abc", "abd", 1.0 / 3},
		{"trigrams equal", CharOverlap, "Paris", "paris", 1},
		// Word order: bigrams and the order of the shared words.
		{"swapped subject and object: bigrams", BigramOverlap, "the dog bit the man", "the man bit the dog", 2.0 / 3},
		{"one word, same", BigramOverlap, "Paris", "paris", 1},
		{"swapped subject and object: order", Order, "the dog bit the man", "the man bit the dog", 0.6},
		{"same order, a word changed", Order, "the dog bit the man", "the dog bit a man", 1},
		{"reordered list", Order, "a b c d", "d c b a", 0.25},
		{"one shared word", Order, "alpha beta", "beta gamma", 1},
		// Numbers: a changed number, a date written two ways, an added number.
		{"changed number", NumberMismatch, "revenue was $4.5M", "revenue was $5.2M", 1},
		{"same number, other words", NumberMismatch, "$4.5M in revenue", "revenue of 4,500,000", 0},
		{"same date, other format", NumberMismatch, "on 2024-06-14", "on June 14, 2024", 0},
		{"one of two numbers changed", NumberMismatch, "3 nights for $842", "3 nights for $824", 2.0 / 3},
		{"a number only on one side", NumberMismatch, "booked", "booked for 2", 1},
		{"no numbers", NumberMismatch, "booked", "reserved", 0},
		{"time written two ways", NumberMismatch, "at 3 pm", "at 15:00", 0},
		// Names: swapped, paraphrased by acronym, case.
		{"swapped name", NameMismatch, "Paris", "London", 1},
		{"acronym of the name", NameMismatch, "New York City", "NYC", 0},
		{"name in another case", NameMismatch, "flights to Rome", "flights to rome", 0},
		{"sentence-initial word is no name", NameMismatch, "Thunderstorms are likely", "Storms are likely", 0},
		{"one capitalised word in a sentence", NameMismatch, "Want me to do anything else?", "Shall I do more?", 0},
		{"one of two names", NameMismatch, "call Alice Chen", "call Alice Smith", 0.5},
		{"swapped person", NameMismatch, "Emma Schulz", "Alice Chen", 1},
		{"dotted acronym; the city left out", NameMismatch, "Washington, D.C.", "DC", 1.0 / 3},
		{"lower-case values are no names", NameMismatch, "celsius", "fahrenheit", 0},
		{"a single capital is no name", NameMismatch, "celsius", "C", 0},
		// Negation.
		{"negated", NegationMismatch, "the refund went through", "the refund did not go through", 1},
		{"contraction", NegationMismatch, "it is ready", "it isn't ready", 1},
		{"both negated", NegationMismatch, "never late", "not late", 0},
		{"neither", NegationMismatch, "on time", "punctual", 0},
		// Length ratio in words.
		{"half as long", LengthRatio, "a b c d", "a b", 0.5},
		{"one empty", LengthRatio, "a b", "", 0},
		{"both empty", LengthRatio, "", "", 1},
	}
	for _, tc := range cases {
		if got := feature(t, tc.feature, tc.gold, tc.pred); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: %s(%q, %q) = %v, want %v", tc.name, tc.feature, tc.gold, tc.pred, got, tc.want)
		}
	}
}

func TestExtractCosineAndRange(t *testing.T) {
	v := Extract("The forecast for Paris on 2024-06-14 is 21 degrees.", "Expect 21 degrees in Paris on June 14.", 0.83)
	if v[0] != 0.83 {
		t.Errorf("cosine = %v, want it passed through", v[0])
	}
	if len(Names()) != len(v) {
		t.Fatalf("%d names for %d features", len(Names()), len(v))
	}
	for i, x := range v[1:] {
		if x < 0 || x > 1 {
			t.Errorf("%s = %v, outside [0, 1]", Names()[i+1], x)
		}
	}
	if v[5] != 0 { // the yearless date matches, 21 matches
		t.Errorf("number_mismatch = %v, want 0", v[5])
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{"", "Revenue rose 4.5% to $1,000 on June 14, 2024 at 3 pm.", "NYC", "don't 3rd Q3 UA-1542 twenty-five",
		"1,2,3,,4..5::6--7", "May 31st of", "\xff\xfe", "12 am pm 99:99 1e5 0x10"} {
		f.Add(s, "New York City")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		v := Extract(a, b, 0.5)
		w := Extract(a, b, 0.5)
		if v != w {
			t.Fatalf("not deterministic: %v vs %v", v, w)
		}
		for i, x := range v {
			if math.IsNaN(x) || x < 0 || x > 1 {
				t.Fatalf("%s(%q, %q) = %v", Names()[i], a, b, x)
			}
		}
		if a == b && utf8.ValidString(a) {
			for i, want := range (Vector{0.5, 1, 1, 1, 1, 0, 0, 0, 1}) {
				if v[i] != want {
					t.Fatalf("identical texts %q: %s = %v, want %v", a, Names()[i], v[i], want)
				}
			}
		}
		for _, x := range Anchors(Tokenize(a)) {
			if x == "" || !strings.ContainsAny(x[:1], "ndtqcx") {
				t.Fatalf("anchor %q of %q has no kind prefix", x, a)
			}
		}
		if n := MissingNames(Tokenize(a), Tokenize(a), nil); len(n) > 0 {
			t.Fatalf("%q does not mention its own names %q", a, n)
		}
		if m, n := MissingNames(Tokenize(a), Tokenize(b), nil), MissingNames(Tokenize(a), Tokenize(b), nil); !slices.Equal(m, n) {
			t.Fatalf("MissingNames not deterministic: %q vs %q", m, n)
		}
	})
}

func TestMissingNames(t *testing.T) {
	for _, tc := range []struct {
		gold, pred, user string
		want             []string
	}{
		{"I emailed Alice Chen about it.", "Alice Chen got an email from me.", "", nil},
		{"I emailed Alice Chen about it.", "I emailed Deepak Rao about it.", "", []string{"Alice Chen"}},
		{"I emailed Alice Chen about it.", "I emailed Alice about it.", "", nil}, // one of its words mentions it
		{"The North America team has it.", "The LATAM team has it.", "", []string{"North America"}},
		{"The North America team has it.", "The NA team has it.", "", nil},           // an acronym of the name
		{"The EMEA team has it.", "Europe, Middle East and Africa has it.", "", nil}, // the name is an acronym of words
		{"Flights to New York City are full.", "Flights to NYC are full.", "", nil},
		{"Flights to New York City are full.", "Flights to New York are full.", "", nil},
		{"Flights to New York City are full.", "Flights to Chicago are full.", "", []string{"New York City"}},
		{"Paris is sunny.", "It is sunny.", "", nil},                        // a first word is no name
		{"It is sunny in Paris.", "It is sunny.", "What about Paris?", nil}, // the user said it
		{"Your request is logged under WBSVJC.", "It is logged under RRA4WD.", "", []string{"WBSVJC"}},
		{"It is 20 degrees.", "Twenty degrees.", "", nil},
	} {
		var ctx Context
		if tc.user != "" {
			ctx = Context{}
			ctx.AddUtterance(Analyze(tc.user))
		}
		if got := MissingNames(Tokenize(tc.gold), Tokenize(tc.pred), ctx); !slices.Equal(got, tc.want) {
			t.Errorf("MissingNames(%q, %q) = %q, want %q", tc.gold, tc.pred, got, tc.want)
		}
	}
}

// tokenizeRunes is Tokenize as first written, over a []rune copy of the
// text: FuzzTokenize holds the byte-offset version to it.
func tokenizeRunes(text string) []Token {
	r := []rune(text)
	var out []Token
	initial := true
	for i := 0; i < len(r); {
		if !isTokenRune(r[i]) {
			if strings.ContainsRune(".!?;:\n…", r[i]) {
				initial = true
			}
			i++
			continue
		}
		j := i + 1
		for j < len(r) {
			if isTokenRune(r[j]) {
				j++
				continue
			}
			if j+1 < len(r) && joins(r[j-1], r[j], r[j+1]) {
				j += 2
				continue
			}
			break
		}
		out = append(out, newToken(string(r[i:j]), 0, initial))
		initial = false
		i = j
	}
	return out
}

// FuzzTokenize: Tokenize reads the text in place and gives the tokens of
// the rune-slice version it replaced, invalid UTF-8 included.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "Revenue rose 4.5% to $1,000 on June 14, 2024 at 3 pm.", "don't 3rd Q3 UA-1542",
		"1,2,3,,4..5::6--7", "a.\xffb", "\xff\xfe", "x’y é-à 東京-3", "a.", ".a", "a..b", "Ωmega—ok… Next"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, want := Tokenize(s), tokenizeRunes(s)
		for i, tok := range got {
			if !strings.HasPrefix(s[tok.Offset:], tok.Text) {
				t.Fatalf("Tokenize(%q): token %+v is not at its offset", s, tok)
			}
			got[i].Offset = 0 // the rune version's offsets count U+FFFD for a bad byte
		}
		for i := range want {
			want[i].Offset = 0
		}
		if !slices.Equal(got, want) {
			t.Fatalf("Tokenize(%q) = %+v, want %+v", s, got, want)
		}
	})
}
