package metrics

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/features"
)

// FuzzCompareValues decides a Tool turn built from two arbitrary JSON
// objects: Requests must cover everything Decide needs, verdicts must be
// self-consistent, and a spec-free value must always match itself.
func FuzzCompareValues(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"a":1}`, `{"a":"1"}`},
		{`{"city":{"$any":["NYC","New York"]}}`, `{"city":"Big Apple"}`},
		{`{"u":{"$any":[1],"$optional":true},"l":[1,{"x":null}]}`, `{"l":[1.0,{"x":null,"y":true}]}`},
		{`{"n":1e400,"b":true}`, `{"n":"1e400","b":"TRUE"}`},
		{`{"x":{"$any":[]}}`, `{"x":[]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, goldJSON, predJSON string) {
		gold, err1 := DecodeArgs([]byte(goldJSON))
		pred, err2 := DecodeArgs([]byte(predJSON))
		if err1 != nil || err2 != nil {
			return
		}
		d := Dialog{ID: "f", Turns: []Turn{{TurnNo: 1, Role: RoleTool, HasGold: true, HasPredict: true,
			Gold: Call{ToolID: "t", Action: "a", Args: gold}, Predict: Call{ToolID: "t", Action: "a", Args: pred}}}}
		cs := Default().Requests(d)
		for _, c := range cs {
			if c.Gold == c.Predicted {
				t.Fatalf("identical pair requested: %q", c.Gold)
			}
			if strings.EqualFold(strings.Join(strings.Fields(c.Gold), " "), strings.Join(strings.Fields(c.Predicted), " ")) {
				t.Fatalf("a pair equal but for case and spaces reached the scorer: %q vs %q", c.Gold, c.Predicted)
			}
		}
		sims := lexicalSims(cs)
		r, err := Default().Decide(d, sims, "lexical")
		if specErr := ValidateGoldArgs(gold); (err != nil) != (specErr != nil) {
			t.Fatalf("Decide error %v, spec error %v", err, specErr)
		}
		if err != nil {
			return
		}
		v := r.Turns[0]
		for _, fs := range v.FieldScores {
			if fs.Score < 0 || fs.Score > 1 || fs.Pass && fs.Method == MethodMissing {
				t.Fatalf("bad field score %+v", fs)
			}
		}
		if v.Pass != (len(v.FailedChecks) == 0) {
			t.Fatalf("pass %v with checks %v", v.Pass, v.FailedChecks)
		}
		if hasSpec(pred) {
			return
		}
		self := Dialog{ID: "s", Turns: []Turn{{TurnNo: 1, Role: RoleTool, HasGold: true, HasPredict: true,
			Gold: Call{ToolID: "t", Action: "a", Args: pred}, Predict: Call{ToolID: "t", Action: "a", Args: pred}}}}
		if len(Default().Requests(self)) != 0 {
			t.Fatal("a value compared with itself needs the scorer")
		}
		if rs, err := Default().Decide(self, nil, "x"); err != nil || !rs.Turns[0].Pass {
			t.Fatalf("a value does not match itself: %v %+v", err, rs.Turns)
		}
	})
}

func hasSpec(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if isSpecObject(x) {
			return true
		}
		for _, e := range x {
			if hasSpec(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if hasSpec(e) {
				return true
			}
		}
	}
	return false
}

// FuzzSplitClauses checks that splitting loses no word and yields trimmed,
// non-empty clauses.
func FuzzSplitClauses(f *testing.F) {
	for _, s := range []string{"", "Revenue rose 1.5%. Costs fell!", "e.g. a; b\nc", "J. Smith. U.S. office...", "1. a 2. b", "\"x.\" y", "- a\n• b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		clauses := SplitClauses(text)
		for _, c := range clauses {
			if c == "" || c != strings.TrimSpace(c) {
				t.Fatalf("bad clause %q", c)
			}
		}
		if got, want := words(strings.Join(clauses, " ")), words(text); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
			t.Fatalf("words changed:\n got %q\nwant %q", got, want)
		}
	})
}

// FuzzCoverage decides a reply against its gold reply after a user turn:
// the coverage is a share in [0, 1] computed from the clauses' weights, a
// clause is covered only when required and with no anchor missing, a
// clause that is not required is never compared, an identical reply is
// complete, and deciding twice gives the same verdict.
func FuzzCoverage(f *testing.F) {
	for _, s := range [][3]string{
		{"Where is order A-1043?", "Here is what I found. Your order A-1043 shipped on May 2. Anything else?", "Order A-1043 went out on May 3."},
		{"", "It is 21 degrees; wind 40 km/h.\nLet me know if you need more.", "21 degrees, windy."},
		{"Q3?", "Q3 revenue was $4.5M. 1. Costs fell. e.g. rent", "Revenue in the third quarter: 4,500,000 dollars."},
		{"", "", "anything"}, {"", "Done.", ""}, {"\xff", "\xfe 1,2,,3 ..", "… 3rd"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	vocab := features.NewVocabulary()
	for i := range 30 {
		vocab.Add(fmt.Sprintf("Here is what I found. Parcel %d left. Anything else?", i))
	}
	f.Fuzz(func(t *testing.T, user, gold, pred string) {
		d := Dialog{ID: "d", Turns: []Turn{
			{TurnNo: 1, Role: RoleUser, HasGold: true, GoldResponse: user},
			{TurnNo: 2, Role: RoleAgent, HasGold: true, HasPredict: true, GoldResponse: gold, PredictResponse: pred},
		}}
		m := Default().WithVocabulary(vocab)
		decide := func() Verdict {
			sims, err := m.Similarities(t.Context(), Lexical{}, []Dialog{d})
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Decide(d, sims, "lexical")
			if err != nil {
				t.Fatal(err)
			}
			return r.Turns[0]
		}
		v := decide()
		// A Plan, which keeps the reply's clauses between its two steps,
		// decides the same.
		p := m.Plan([]Dialog{d})
		psims, err := p.Similarities(t.Context(), Lexical{})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := p.Decide(0, psims, "lexical")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(pr.Turns[0], v) {
			t.Fatalf("Plan.Decide %+v\nMetric.Decide %+v", pr.Turns[0], v)
		}
		cov := v.FieldScores[1]
		if cov.Field != "response.coverage" || math.IsNaN(cov.Score) || cov.Score < 0 || cov.Score > 1 || cov.Pass != (v.Completeness == OutcomePass) {
			t.Fatalf("coverage %+v, completeness %s", cov, v.Completeness)
		}
		var req, covered float64
		for _, c := range v.Clauses {
			if c.Weight < 0 || math.IsNaN(c.Weight) || c.Required != (c.Weight > 0) || c.Covered && (!c.Required || !c.Pass || len(c.MissingAnchors) > 0) {
				t.Fatalf("clause %+v", c)
			}
			if c.Required {
				req += c.Weight
				if c.Covered {
					covered += c.Weight
				}
			} else {
				for _, q := range m.Requests(d) {
					if q.Kind == CompareClause && q.Field == c.Field {
						t.Fatalf("clause %q is not required but compared: %+v", c.Text, q)
					}
				}
			}
		}
		if req > 0 && math.Abs(cov.Score-covered/req) > 1e-9 || req == 0 && cov.Score != 1 {
			t.Fatalf("coverage %v, clauses give %v / %v", cov.Score, covered, req)
		}
		if gold == pred && v.Completeness != OutcomePass {
			t.Fatalf("an identical reply is incomplete: %+v", v.Clauses)
		}
		if again := decide(); !reflect.DeepEqual(again, v) {
			t.Fatalf("not deterministic:\n%+v\n%+v", v, again)
		}
	})
}
