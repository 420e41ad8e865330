package metrics

import (
	"fmt"
	"strings"
	"testing"
)

// TestReplyContradictions: a reply that states another amount, date, time,
// identifier, name or polarity than the gold reply fails truthfulness
// (inconsistent_response), however similar (the scorer here calls every
// pair the same), with a "contradicted" FieldScore naming both facts and
// the dialog's reason naming them too, also when the user said the fact
// first. Rewordings of the same facts pass.
func TestReplyContradictions(t *testing.T) {
	for _, tc := range []struct {
		user, gold, pred string
		fact             string // "" for a rewording that must pass
	}{
		{"I was charged $89.00 twice.", "I've refunded $89.00 to your card.", "I've refunded $98.00 to your card.", `amount): "$89.00" vs "$98.00"`},
		{"Is it in stock?", "Yes, the item is in stock.", "No, the item is out of stock.", `answer): "Yes" vs "No"`},
		{"When is my appointment?", "Your appointment is on May 20, 2024 at 3pm.", "Your appointment is on May 21, 2024 at 3pm.", `date)`},
		{"When is my appointment?", "Your appointment is on May 20, 2024 at 3pm.", "Your appointment is on May 20, 2024 at 4pm.", `time)`},
		{"Where is order ORD-10293?", "Order ORD-10293 has shipped.", "Order ORD-10239 has shipped.", `identifier): "ORD-10293" vs "ORD-10239"`},
		{"Where does it ship?", "Your package ships to Boston.", "Your package ships to Austin.", `name): "Boston" vs "Austin"`},
		{"Has it shipped?", "Your order has shipped.", "Your order has not shipped yet.", `polarity)`},
		// Rewordings: the same facts written otherwise, or a correct fact added.
		{"I was charged $89.00 twice.", "I've refunded $89.00 to your card.", "A refund of 89 dollars is on its way to your card; allow 5 business days.", ""},
		{"Is it in stock?", "Yes, the item is in stock.", "Yes! We have it in stock right now.", ""},
		{"When is my appointment?", "Your appointment is on May 20, 2024 at 3pm.", "You're booked for 2024-05-20 at 15:00.", ""},
		{"Where does it ship?", "Your package ships to New York City.", "It ships to NYC.", ""},
	} {
		d := dialogJSON(t, fmt.Sprintf(`{"dialog_id": "d", "turns": [
			{"turn_no": 1, "turn": "User", "gold_turn": {"response": %q}, "predict_turn": {"response": %q}},
			{"turn_no": 2, "turn": "Agent", "gold_turn": {"response": %q}, "predict_turn": {"response": %q}}]}`,
			tc.user, tc.user, tc.gold, tc.pred))
		res, err := Default().Evaluate(t.Context(), fixedScorer(1), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		v := res[0].Turns[0]
		var facts []string
		for _, fs := range v.FieldScores {
			if fs.Method == MethodContradicted {
				facts = append(facts, fs.Field)
				if fs.Pass || fs.Kind != "text" {
					t.Errorf("%q: %+v", tc.pred, fs)
				}
			}
		}
		if tc.fact == "" {
			if v.Truthfulness != OutcomePass || len(facts) > 0 {
				t.Errorf("%q for %q: truthfulness %s, contradicted %v; want a pass", tc.pred, tc.gold, v.Truthfulness, facts)
			}
			continue
		}
		if v.Truthfulness != OutcomeFail || v.FailureReason != ReasonInconsistentResponse && v.FailureReason != ReasonIncompleteResponse {
			t.Errorf("%q for %q: truthfulness %s reason %s; want inconsistent_response", tc.pred, tc.gold, v.Truthfulness, v.FailureReason)
		}
		if len(facts) == 0 || !strings.Contains(facts[0], tc.fact) {
			t.Errorf("%q for %q: contradicted fields %q, want one with %q", tc.pred, tc.gold, facts, tc.fact)
		}
		if want := strings.TrimSuffix(tc.fact, ")"); !strings.Contains(res[0].Reason, strings.Replace(want, "):", "", 1)) {
			t.Errorf("dialog reason %q does not name the facts %q", res[0].Reason, tc.fact)
		}
	}
}
