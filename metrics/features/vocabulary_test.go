package features

import (
	"fmt"
	"math"
	"testing"
)

// replies builds a vocabulary from n generated gold replies: a fact with
// fresh values, and a sign-off drawn from four, as agents reply.
func replies(n int) *Vocabulary {
	v := NewVocabulary()
	closers := []string{"Anything else?", "Let me know if you need more.", "Happy to change anything.", "Here is what I found.", "Want me to do anything else?"}
	facts := []string{"The forecast for %s is %d degrees.", "I emailed %s about the %d tickets.", "The chart shows revenue by month; the peak was %s at %d.",
		"I added it to the %s report under key findings.", "Your hotel in %s is booked for %d nights.", "I sent the report to %s, who can review it by %d June."}
	names := []string{"Paris", "Alice Chen", "April", "profit", "Rome", "Bob"}
	for i := range n {
		f := facts[i%len(facts)]
		v.Add(fmt.Sprintf(f, names[(i/7)%len(names)], i%30+1) + " " + closers[i%len(closers)])
	}
	return v
}

func TestVocabularyWeight(t *testing.T) {
	big := replies(600)
	cases := []struct {
		name     string
		v        *Vocabulary
		clause   string
		ctx      string
		required bool
	}{
		// Sign-offs and openers: function words, or words most replies use.
		{"function words only", nil, "Anything else?", "", false},
		{"function words only, learned", big, "Anything else?", "", false},
		{"common in the gold replies", big, "Let me know if you need more.", "", false},
		{"common in the gold replies", big, "Happy to change anything.", "", false},
		{"common in the gold replies", big, "Here is what I found.", "", false},
		{"a capitalised first word is no name", big, "Want me to do anything else?", "", false},
		// Without statistics a content word counts: nothing is known to be common.
		{"no statistics yet", NewVocabulary(), "Let me know if you need more.", "", true},
		{"nil vocabulary", nil, "Let me know if you need more.", "", true},
		// Facts: anchors, names, rare content words.
		{"a number", big, "It is 21 degrees.", "", true},
		{"a name inside the sentence", big, "I emailed Alice Chen about it.", "", true},
		{"a date in words", big, "The trip is on June 14.", "", true},
		{"rare content words, no anchor", big, "I filed the expense claim under travel.", "", true},
		{"a fact whose words every sixth reply uses", big, "I added it to the profit report under key findings.", "", false},
		{"a rare word", big, "The refund went through.", "", true},
		// Restating the question: its words are the user's.
		{"restated question", big, "Where is my order?", "Where is my order?", false},
		{"restated with the anchor", big, "Your order A-1043 is what you asked about.", "Where is order A-1043? Tell me what you know.", true},
		{"answer repeating the question's words", big, "Your order A-1043 shipped on May 2.", "Where is my order A-1043?", true},
	}
	for _, tc := range cases {
		var ctx Context
		if tc.ctx != "" {
			ctx = Context{}
			ctx.AddUtterance(Analyze(tc.ctx))
		}
		w := tc.v.Weight(Analyze(tc.clause), ctx)
		if (w > 0) != tc.required || w < 0 {
			t.Errorf("%s: Weight(%q) = %v, want required %v", tc.name, tc.clause, w, tc.required)
		}
	}
	if big.Replies() != 600 {
		t.Errorf("Replies() = %d", big.Replies())
	}
}

func TestVocabularyWeightOrder(t *testing.T) {
	v := replies(600)
	// More facts weigh more; an anchor weighs at least as much as the rarest word.
	one, two := v.Weight(Analyze("It is 21 degrees."), nil), v.Weight(Analyze("It is 21 degrees and 40 km/h wind."), nil)
	if !(two > one && one > 0) {
		t.Errorf("weights: one fact %v, two facts %v", one, two)
	}
	// Adding replies in another order gives the same counts.
	a, b := NewVocabulary(), NewVocabulary()
	texts := []string{"Revenue rose.", "Profit fell sharply.", "Revenue fell.", "Anything else?"}
	for i := range texts {
		a.Add(texts[i])
		b.Add(texts[len(texts)-1-i])
	}
	for _, c := range []string{"Revenue rose sharply.", "Anything else?", "Profit"} {
		if a.Weight(Analyze(c), nil) != b.Weight(Analyze(c), nil) {
			t.Errorf("order of Add changed Weight(%q)", c)
		}
	}
}

// FuzzWeight: a clause's weight is finite and never negative, does not
// depend on the order replies were added in, and is 0 for a clause the
// user said word for word.
func FuzzWeight(f *testing.F) {
	for _, s := range [][2]string{{"It is 21 degrees.", "Anything else?"}, {"Order A-1043 shipped on May 2.", "Where is order A-1043?"},
		{"", ""}, {"\xff 1,2,,3", "Q3 twenty-five"}, {"J. Smith, U.S.", "NYC"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, clause, other string) {
		a, b := NewVocabulary(), NewVocabulary()
		a.Add(clause)
		a.Add(other)
		b.Add(other)
		b.Add(clause)
		w := a.Weight(Analyze(clause), nil)
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w != b.Weight(Analyze(clause), nil) {
			t.Fatalf("Weight(%q) = %v (other order %v)", clause, w, b.Weight(Analyze(clause), nil))
		}
		ctx := Context{}
		ctx.AddUtterance(Analyze(clause))
		if w := a.Weight(Analyze(clause), ctx); w != 0 {
			t.Fatalf("Weight(%q) after the user said it = %v", clause, w)
		}
	})
}
