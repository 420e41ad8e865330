package values

import (
	"testing"
)

// seedPairs adds testdata/pairs.tsv's pairs to a fuzz corpus.
func seedPairs(f *testing.F) {
	for _, p := range readPairs(f) {
		f.Add(p.gold, p.pred)
	}
}

// fuzzFamily checks a family of kinds: no panic; the verdict names the
// kind and a rule; a value equals itself; and, where both values are of
// the kind compared, swapping them gives the same outcome.
func fuzzFamily(f *testing.F, kinds ...Kind) {
	seedPairs(f)
	c := Comparer{Tolerance: 1e-9}
	f.Fuzz(func(t *testing.T, gold, pred string) {
		for _, k := range kinds {
			a := c.Compare(k, gold, pred)
			if a.Kind != k || a.Rule == "" {
				t.Fatalf("%s %q vs %q: verdict %+v names no kind or rule", k, gold, pred, a)
			}
			if same := c.Compare(k, gold, gold); !same.Pass {
				t.Fatalf("%s %q against itself: %+v", k, gold, same)
			}
			if Classify(gold, Hints{}) != k || Classify(pred, Hints{}) != k {
				continue
			}
			b := c.Compare(k, pred, gold)
			if outcome(a) != outcome(b) {
				t.Fatalf("%s %q vs %q: %s (%s) one way, %s (%s) the other", k, gold, pred, outcome(a), a.Rule, outcome(b), b.Rule)
			}
		}
	})
}

func FuzzCompareAmounts(f *testing.F) {
	fuzzFamily(f, Integer, Decimal, Money, Percent, Quantity, Duration)
}

func FuzzCompareWhen(f *testing.F) { fuzzFamily(f, Date, Time, DateTime, Weekday, Month) }

func FuzzCompareContact(f *testing.F) { fuzzFamily(f, Identifier, Email, URL, Phone, Boolean) }

func FuzzCompareWords(f *testing.F) {
	fuzzFamily(f, Name, Category, Text, Address, Language, Country, Currency)
}

// FuzzClassify: any string gets a known kind, and a value compared with
// itself passes by RuleExact.
func FuzzClassify(f *testing.F) {
	seedPairs(f)
	f.Fuzz(func(t *testing.T, value, key string) {
		k := Classify(value, Hints{Key: key})
		if _, ok := ParseKind(string(k)); !ok {
			t.Fatalf("Classify(%q, key %q) = %q: not a kind", value, key, k)
		}
		if v := (Comparer{}).Compare(k, value, value); !v.Pass || v.Rule != RuleExact {
			t.Fatalf("%s %q against itself: %+v", k, value, v)
		}
	})
}

// FuzzContradictions: no panic, both facts named, and a contradiction
// one way is one the other way.
func FuzzContradictions(f *testing.F) {
	seedPairs(f)
	f.Add("I've refunded $89.00 to your card.", "I've refunded $98.00 to your card.")
	f.Add("Yes, the item is in stock.", "No, the item is out of stock.")
	f.Fuzz(func(t *testing.T, gold, pred string) {
		cs := Contradictions(sentences(gold), sentences(pred))
		for _, c := range cs {
			if c.Gold == "" || c.Pred == "" || c.Kind == "" {
				t.Fatalf("%q vs %q: contradiction %+v does not name both facts", gold, pred, c)
			}
		}
		if back := Contradictions(sentences(pred), sentences(gold)); (len(back) > 0) != (len(cs) > 0) {
			t.Fatalf("%q vs %q: %v one way, %v the other", gold, pred, cs, back)
		}
		if self := Contradictions(sentences(gold), sentences(gold)); len(self) > 0 {
			t.Fatalf("%q contradicts itself: %v", gold, self)
		}
	})
}
