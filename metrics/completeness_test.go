package metrics

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/aem-dev/aem/metrics/features"
)

// signOffVocabulary is the vocabulary of a dataset whose gold replies
// open and close with the same words and state their own facts in
// between, as agents' replies do: the openers' and sign-offs' words are
// common, the facts' are not.
func signOffVocabulary() *features.Vocabulary {
	v := features.NewVocabulary()
	for i := range 40 {
		v.Add(fmt.Sprintf("Here is what I found. Parcel %d left depot %d. Let me know if you need more.", 100+i, 7*i))
	}
	return v
}

// repliesAt answers cs from the table, and every reply comparison the
// table lacks with score.
func repliesAt(score float64, table pairScores, cs []Comparison) Similarities {
	sims := table.similarities(cs)
	for _, c := range cs {
		if _, ok := sims[c]; !ok && c.Kind == CompareReply {
			sims[c] = Similarity{Score: score, By: "table"}
		}
	}
	return sims
}

// TestCompletenessByInformativeness: a reply is complete when it covers
// the gold clauses that carry task content; openers, sign-offs and what
// the user already said need not be restated, a changed or left-out fact
// is incomplete however similar the wording.
func TestCompletenessByInformativeness(t *testing.T) {
	const (
		hello  = "Here is what I found."
		ship   = "Your order A-1043 shipped on May 2."
		refund = "The refund of $49.99 reached your card."
		bye    = "Let me know if you need more."
	)
	scores := pairScores{
		{ship, "Order A-1043 went out on May 2."}:   0.8,
		{ship, "Order A-1043 went out on May 3."}:   0.95, // a sentence encoder barely sees the date
		{ship, "The money is back on your card."}:   0.2,
		{refund, "The money is back on your card."}: 0.7,
		{refund, "Order A-1043 went out on May 2."}: 0.1,
		{refund, "Order A-1043 went out on May 3."}: 0.1,
		{ship, "Sure."}:   0.1,
		{refund, "Sure."}: 0.05,
		{refund, "The $49.99 refund reached your card."}: 0.9,
		{ship, "The $49.99 refund reached your card."}:   0.1,
	}
	tests := []struct {
		name     string
		user     string // what the user said before the reply
		gold     string
		pred     string
		cov      float64 // completeness.response; 0 means the default
		complete bool
		required []bool     // per gold clause
		covered  []bool     // per gold clause
		missing  [][]string // missing anchors per gold clause
	}{
		{"opener and sign-off left out", "", hello + " " + ship + " " + bye, "Order A-1043 went out on May 2.", 0, true,
			[]bool{false, true, false}, []bool{false, true, false}, [][]string{nil, nil, nil}},
		{"a changed date is not covered", "", ship, "Order A-1043 went out on May 3.", 0, false,
			[]bool{true}, []bool{false}, [][]string{{"d-05-02"}}},
		{"a fact left out", "", ship + " " + refund, "Order A-1043 went out on May 2.", 0, false,
			[]bool{true, true}, []bool{true, false}, [][]string{nil, {"n49.99"}}},
		{"facts in other words and order", "", ship + " " + refund, "The $49.99 refund reached your card. Order A-1043 went out on May 2.", 0, true,
			[]bool{true, true}, []bool{true, true}, [][]string{nil, nil}},
		{"similar wording without the amount", "", refund, "The money is back on your card.", 0, false,
			[]bool{true}, []bool{false}, [][]string{{"n49.99"}}},
		{"what the user said is not required", "Has the refund of $49.99 reached your card?", refund, "Sure.", 0, true,
			[]bool{false}, []bool{false}, [][]string{nil}},
		{"an anchor the user gave need not be restated", "Where is order A-1043?", ship, "Order A-1043 went out on May 2.", 0, true,
			[]bool{true}, []bool{true}, [][]string{nil}},
		{"nothing required: complete", "", hello + " " + bye, "Sure.", 0, true,
			[]bool{false, false}, []bool{false, false}, [][]string{nil, nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			turns := fmt.Sprintf(`{"turn_no":2,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}}`, tc.gold, tc.pred)
			if tc.user != "" {
				turns = fmt.Sprintf(`{"turn_no":1,"turn":"User","gold_turn":{"response":%q}},`, tc.user) + turns
			}
			d := dialogJSON(t, `{"dialog_id":"d","turns":[`+turns+`]}`)
			cfg := DefaultConfig()
			if tc.cov != 0 {
				cfg.Thresholds.SubMetrics = map[string]float64{SubCompleteResponse: tc.cov}
			}
			m := mustNew(t, cfg).WithVocabulary(signOffVocabulary())
			reqs := m.Requests(d)
			r, err := m.Decide(d, repliesAt(0.9, scores, reqs), "table")
			if err != nil {
				t.Fatal(err)
			}
			v := r.Turns[0]
			if got := v.Completeness == OutcomePass; got != tc.complete {
				t.Errorf("complete %v, want %v; clauses %+v", got, tc.complete, v.Clauses)
			}
			if len(v.Clauses) != len(tc.required) {
				t.Fatalf("%d clauses, want %d: %+v", len(v.Clauses), len(tc.required), v.Clauses)
			}
			for i, c := range v.Clauses {
				if c.Required != tc.required[i] || c.Covered != tc.covered[i] || (c.Weight > 0) != c.Required {
					t.Errorf("clause %d %q: weight %v required %v covered %v; want required %v covered %v", i, c.Text, c.Weight, c.Required, c.Covered, tc.required[i], tc.covered[i])
				}
				if i < len(tc.missing) && !reflect.DeepEqual(c.MissingAnchors, tc.missing[i]) {
					t.Errorf("clause %d: missing anchors %v, want %v", i, c.MissingAnchors, tc.missing[i])
				}
				if !c.Required {
					if c.Method != MethodNotRequired || c.Predicted != -1 {
						t.Errorf("clause %d: not required but %+v", i, c)
					}
					for _, q := range reqs {
						if q.Kind == CompareClause && q.Gold == c.Text {
							t.Errorf("clause %d %q is not required but was compared: %+v", i, c.Text, q)
						}
					}
				}
			}
		})
	}
}

// TestCoverageIsTheCoveredShareOfWeight: coverage is the covered clauses'
// weight over the required clauses' weight, held to completeness.response,
// so a reply may leave out light content but not heavy.
func TestCoverageIsTheCoveredShareOfWeight(t *testing.T) {
	vocab := signOffVocabulary()
	const (
		heavy = "Flight QF 2976 leaves at 14:05 from gate B12 for $1644."
		light = "Seats are roomy."
	)
	gold := heavy + " " + light
	wHeavy, wLight := vocab.Weight(features.Analyze(heavy), nil), vocab.Weight(features.Analyze(light), nil)
	if !(wHeavy > 2*wLight && wLight > 0) {
		t.Fatalf("weights %v and %v: the test needs a heavy and a light clause", wHeavy, wLight)
	}
	scores := pairScores{
		{heavy, "Flight QF 2976 leaves at 14:05 from gate B12 for $1644."}: 1,
		{light, "Flight QF 2976 leaves at 14:05 from gate B12 for $1644."}: 0.2,
		{heavy, "Seats are roomy."}:                                        0.2,
	}
	for _, tc := range []struct {
		pred     string
		cov      float64
		share    float64
		complete bool
	}{
		{heavy, 0.7, wHeavy / (wHeavy + wLight), true},
		{heavy, 1, wHeavy / (wHeavy + wLight), false},
		{light, 0.7, 0, false}, // "Seats are roomy." is verbatim: covered, but the heavy clause is not
		{gold, 1, 1, true},
	} {
		d := oneTurn(t, fmt.Sprintf(`{"turn_no":1,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}}`, gold, tc.pred))
		cfg := DefaultConfig()
		cfg.Thresholds.SubMetrics = map[string]float64{SubCompleteResponse: tc.cov}
		m := mustNew(t, cfg).WithVocabulary(vocab)
		r, err := m.Decide(d, repliesAt(0.9, scores, m.Requests(d)), "table")
		if err != nil {
			t.Fatal(err)
		}
		v := r.Turns[0]
		fs := v.FieldScores[1]
		if tc.pred == light {
			tc.share = wLight / (wHeavy + wLight)
		}
		if fs.Field != "response.coverage" || fs.Method != MethodCoverage || math.Abs(fs.Score-tc.share) > 1e-12 ||
			fs.Threshold != tc.cov || fs.Pass != tc.complete || (v.Completeness == OutcomePass) != tc.complete {
			t.Errorf("pred %q at %v: coverage %+v (want share %v), completeness %s", tc.pred, tc.cov, fs, tc.share, v.Completeness)
		}
		if !tc.complete && !slices.Contains(v.FailedChecks, ReasonIncompleteResponse) {
			t.Errorf("pred %q: checks %v", tc.pred, v.FailedChecks)
		}
	}
}

// TestEvaluateLearnsItsVocabulary: without WithVocabulary, Evaluate weighs
// clauses by the gold replies of the dialogs it is given, so a sign-off
// every reply repeats is not required.
func TestEvaluateLearnsItsVocabulary(t *testing.T) {
	var ds []Dialog
	for i := range 12 {
		gold := fmt.Sprintf("Parcel %d left depot %d. Let me know if you need more.", 100+i, 3*i)
		pred := fmt.Sprintf("Parcel %d left depot %d.", 100+i, 3*i)
		ds = append(ds, oneTurn(t, fmt.Sprintf(`{"turn_no":1,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}}`, gold, pred)))
		ds[i].ID = fmt.Sprint("d", i)
	}
	rs, err := Default().Evaluate(t.Context(), Lexical{}, ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if v := r.Turns[0]; !v.Pass || v.Clauses[1].Required {
			t.Errorf("%s: pass %v, clauses %+v", r.DialogID, v.Pass, v.Clauses)
		}
	}
	// The same dialog decided alone, with nothing learned, requires the sign-off.
	rs, err = Default().WithVocabulary(features.NewVocabulary()).Evaluate(t.Context(), Lexical{}, ds[:1])
	if err != nil {
		t.Fatal(err)
	}
	if v := rs[0].Turns[0]; v.Pass || !v.Clauses[1].Required {
		t.Errorf("empty vocabulary: pass %v, clauses %+v", v.Pass, v.Clauses)
	}
}

// TestAnotherNameIsNotCovered: a clause naming another person, place or
// team than gold's is not covered however similar the wording; a name
// mentioned by one of its words or its acronym is.
func TestAnotherNameIsNotCovered(t *testing.T) {
	const gold = "I emailed Alice Chen about the refund."
	for _, tc := range []struct {
		pred     string
		complete bool
		missing  []string
	}{
		{"I emailed Deepak Rao about the refund.", false, []string{"Alice Chen"}},
		{"I emailed Alice about the refund.", true, nil},
	} {
		d := oneTurn(t, fmt.Sprintf(`{"turn_no":1,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}}`, gold, tc.pred))
		m := mustNew(t, DefaultConfig()).WithVocabulary(signOffVocabulary())
		r, err := m.Decide(d, repliesAt(0.9, pairScores{{gold, tc.pred}: 0.93}, m.Requests(d)), "table")
		if err != nil {
			t.Fatal(err)
		}
		v := r.Turns[0]
		if c := v.Clauses[0]; (v.Completeness == OutcomePass) != tc.complete || !reflect.DeepEqual(c.MissingNames, tc.missing) || !c.Pass {
			t.Errorf("%q: completeness %s, clause %+v; want complete %v, missing names %v", tc.pred, v.Completeness, c, tc.complete, tc.missing)
		}
	}
}
