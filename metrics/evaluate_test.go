package metrics

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/features"
)

func TestDecideErrors(t *testing.T) {
	tests := []struct {
		name   string
		turns  []string
		target error
		want   string
	}{
		{"malformed $any", []string{salesTurn(1, "a", "x", "x", ""),
			`{"turn_no":2,"turn":"Tool","gold_turn":{"tool_id":"w","action":"f","args":{"opts":{"city":{"$any":"NYC"}}}},"predict_turn":{"tool_id":"w","action":"f","args":{}}}`},
			ErrBadSpec, `dialog "e" turn 2: gold args field "opts.city": $any must be a JSON array`},
		{"malformed spec on a missing turn", []string{
			`{"turn_no":1,"turn":"Tool","gold_turn":{"tool_id":"w","action":"f","args":{"u":{"$optional":true}}}}`},
			ErrBadSpec, `field "u": $optional needs $any`},
		{"duplicate turn", []string{salesTurn(1, "a", "x", "x", ""), salesTurn(1, "b", "x", "x", "")},
			ErrBadDialog, "turn_no 1 appears twice"},
		{"no gold, no prediction", []string{`{"turn_no":1,"turn":"Tool"}`}, ErrBadDialog, "neither a gold nor a predicted output"},
		{"depends_on a later turn", []string{salesTurn(1, "a", "x", "x", `,"depends_on":[2]`), salesTurn(2, "b", "x", "x", "")},
			ErrBadDialog, "turn 1 depends_on 2"},
		{"depends_on an unknown turn", []string{salesTurn(3, "a", "x", "x", `,"depends_on":[1]`)}, ErrBadDialog, "turn 3 depends_on 1"},
		{"negative weight", []string{salesTurn(1, "a", "x", "x", `,"weight":-1`)}, ErrBadDialog, "weight -1"},
		{"two blocks", []string{salesTurn(1, "a", "x", "x", `,"tags":["OrderInvariant_a","OrderInvariant_b"]`)}, ErrBadDialog, "two order-invariant blocks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := dialogJSON(t, `{"dialog_id":"e","turns":[`+strings.Join(tc.turns, ",")+`]}`)
			_, err := Default().Decide(d, Similarities{}, "s")
			if !errors.Is(err, tc.target) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %v containing %q", err, tc.target, tc.want)
			}
			if _, err := Default().Evaluate(t.Context(), Lexical{}, []Dialog{d}); !errors.Is(err, tc.target) {
				t.Errorf("Evaluate: %v", err)
			}
			if p := Default().Requests(d); p != nil {
				t.Errorf("Requests = %v for a dialog Decide rejects", p)
			}
		})
	}
}

func TestUnknownRole(t *testing.T) {
	d := Dialog{ID: "r", Turns: []Turn{{TurnNo: 1, Role: "Robot", HasGold: true}}}
	if _, err := Default().Decide(d, nil, "s"); !errors.Is(err, ErrBadDialog) || !strings.Contains(err.Error(), `unknown role "Robot"`) {
		t.Fatalf("got %v", err)
	}
}

func TestMissingSimilarity(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"m","turns":[`+salesTurn(7, "a", "revenue", "profit", "")+`]}`)
	_, err := Default().Decide(d, Similarities{{Kind: CompareValue, Field: "a.run.p", Gold: "other", Predicted: "pair"}: {Score: 1}}, "s")
	if !errors.Is(err, ErrMissingSimilarity) || !strings.Contains(err.Error(), `dialog "m" turn 7: field a.run.p: gold "revenue" vs predicted "profit"`) {
		t.Fatalf("got %v", err)
	}
}

func TestRequests(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"q","turns":[`+strings.Join([]string{
		salesTurn(1, "a", "revenue", "profit", ""),
		salesTurn(2, "b", "revenue", "profit", ""),    // duplicate pair
		salesTurn(3, "c", "same", "same", ""),         // exact: no request
		salesTurn(9, "e", "New-York", "new york", ""), // normalized: no request
		`{"turn_no":4,"turn":"Tool","gold_turn":{"tool_id":"w","action":"f","args":{"city":{"$any":["NYC","New York"]},"n":5}},"predict_turn":{"tool_id":"w","action":"f","args":{"city":"NYC","n":"5"}}}`,
		`{"turn_no":5,"turn":"Tool","gold_turn":{"tool_id":"w","action":"f","args":{"city":{"$any":["NYC","New York"]}}},"predict_turn":{"tool_id":"w","action":"f","args":{"city":"New York, NY"}}}`,
		`{"turn_no":10,"turn":"Tool","gold_turn":{"tool_id":"w","action":"f","args":{"city":"NYC"}},"predict_turn":{"tool_id":"w","action":"f","args":{"city":"Big Apple"}}}`, // different names: no request
		agentTurn(6, "Revenue rose. Costs fell.", "Revenue rose. Costs dropped.", ""),
		toolTurn(7, "OrderInvariant_x", `"Paris"`, `"Paris, France"`), toolTurn(8, "OrderInvariant_x", `"Paris, TX"`, `"Paris"`),
	}, ",")+`]}`)
	got := Default().Requests(d)
	v, r, c := CompareValue, CompareReply, CompareClause
	among := "Revenue rose.\nCosts dropped." // the predicted clauses: alternatives of one decision
	want := []Comparison{
		{v, "a.run.p", "", "category", "revenue", "profit", "", false},
		{v, "b.run.p", "", "category", "revenue", "profit", "", false},     // same strings, another field: asked again
		{v, "w.f.city", "", "name", "New York", "New York, NY", "", false}, // "NYC" and "New York" are different names
		{r, "response", "", "", "Revenue rose. Costs fell.", "Revenue rose. Costs dropped.", "", false},
		{c, "response.clause[1]", "", "", "Costs fell.", "Revenue rose.", among, false}, {c, "response.clause[1]", "", "", "Costs fell.", "Costs dropped.", among, false},
		{v, "geo.lookup.city", "", "name", "Paris", "Paris, France", "", false}, {v, "geo.lookup.city", "", "name", "Paris, TX", "Paris, France", "", false}, {v, "geo.lookup.city", "", "name", "Paris, TX", "Paris", "", false},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if again := Default().Requests(d); !reflect.DeepEqual(again, got) {
		t.Error("Requests is not deterministic")
	}
	// Decide with exactly these similarities succeeds and matches Evaluate.
	sims := lexicalSims(got)
	viaDecide, err := Default().Decide(d, sims, "lexical")
	if err != nil {
		t.Fatal(err)
	}
	if viaEval := evalAll(t, DefaultConfig(), d)[0]; !reflect.DeepEqual(viaDecide, viaEval) {
		t.Errorf("Decide and Evaluate disagree:\n%+v\n%+v", viaDecide, viaEval)
	}
}

func TestEvaluateScoresOnce(t *testing.T) {
	ds := loadJSONL(t, "../datasets/example/golden.jsonl")
	ds = append(ds, ds[0]) // a repeated dialog adds no pairs
	s := &countingScorer{}
	res, err := Default().Evaluate(t.Context(), s, ds)
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != 1 || len(res) != len(ds) {
		t.Fatalf("%d Score calls, %d results", s.calls, len(res))
	}
	seen := map[Comparison]bool{}
	for _, c := range s.cs {
		if seen[c] || c.Gold == c.Predicted {
			t.Errorf("comparison %+v scored twice or identical", c)
		}
		seen[c] = true
	}
	for i, r := range res {
		if r.DialogID != ds[i].ID || r.Turns[0].Scorer != "counting" {
			t.Errorf("result %d: %s scorer %s", i, r.DialogID, r.Turns[0].Scorer)
		}
	}
}

type badScorer struct {
	answers []Similarity
	err     error
}

func (b badScorer) ID() string { return "bad" }
func (b badScorer) Compare(context.Context, []Comparison) ([]Similarity, error) {
	return b.answers, b.err
}

func TestEvaluateScorerFailures(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"s","turns":[`+salesTurn(1, "a", "revenue", "profit", "")+`]}`)
	for _, s := range []Scorer{badScorer{err: errors.New("boom")}, badScorer{answers: []Similarity{}}, badScorer{answers: []Similarity{{Score: math.NaN()}}}} {
		if _, err := Default().Evaluate(t.Context(), s, []Dialog{d}); err == nil {
			t.Errorf("%+v: want error", s)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Default().Evaluate(ctx, Lexical{}, []Dialog{d}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	// No pairs needed: the scorer is never called.
	same := dialogJSON(t, `{"dialog_id":"s","turns":[`+salesTurn(1, "a", "x", "x", "")+`]}`)
	if _, err := Default().Evaluate(t.Context(), badScorer{err: errors.New("boom")}, []Dialog{same}); err != nil {
		t.Errorf("scorer called without pairs: %v", err)
	}
}

// TestFixedScorer exercises the threshold edge: score == threshold passes.
func TestFixedScorer(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"f","turns":[`+salesTurn(1, "a", "revenue", "profit", "")+`]}`)
	for _, tc := range []struct {
		score float64
		pass  bool
	}{{0.5, true}, {0.4999, false}, {-1, false}, {1, true}} {
		r, err := Default().Evaluate(t.Context(), fixedScorer(tc.score), []Dialog{d})
		if err != nil || r[0].Turns[0].Pass != tc.pass {
			t.Errorf("score %v: pass %v, want %v (%v)", tc.score, r[0].Turns[0].Pass, tc.pass, err)
		}
	}
}

func TestVerdictBookkeeping(t *testing.T) {
	d := Dialog{ID: "dlg", Turns: []Turn{
		{TurnNo: 2, Role: RoleTool, HasGold: true, HasPredict: true, Gold: Call{ToolID: "t", Action: "a"}, Predict: Call{ToolID: "t", Action: "a"}},
		{TurnNo: 1, Role: RoleAgent, HasGold: true, HasPredict: true, GoldResponse: "Hi.", PredictResponse: "Hi."},
	}}
	cfg := withThreshold(0.7)
	r := evalAll(t, cfg, d)[0]
	if len(r.Turns) != 2 || r.Turns[0].TurnNo != 1 || r.Turns[1].TurnNo != 2 {
		t.Fatalf("verdicts not in turn order: %+v", r.Turns)
	}
	for _, v := range r.Turns {
		if v.DialogID != "dlg" || v.Threshold != nil || v.Scorer != "lexical" || !v.Pass || v.PredictTurnNo != v.TurnNo {
			t.Errorf("%+v", v)
		}
	}
	if d.Turns[0].TurnNo != 2 {
		t.Error("Decide reordered the caller's turns")
	}
}

// TestPlanDecidesAsDecide: a Plan keeps each reply's clauses, weights and
// missing anchors and names from Similarities to Decide; deciding a dialog
// through it gives what Metric.Decide gives, with every set of answers in
// turn (one plan used three times, as batch decides a composite's first
// scorer alone after the composite), and nothing of one decision leaks
// into the next.
func TestPlanDecidesAsDecide(t *testing.T) {
	ds := append(loadJSONL(t, "../datasets/example/golden.jsonl"), loadJSONL(t, "testdata/sales_report.jsonl")...)
	v := features.NewVocabulary()
	for _, d := range ds {
		AddReplies(v, d)
	}
	m := Default().WithVocabulary(v)
	p := m.Plan(ds)
	s := &countingScorer{}
	lexical, err := p.Similarities(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	constant := func(s Similarity) Similarities {
		sims := Similarities{}
		for c := range lexical {
			sims[c] = s
		}
		return sims
	}
	var clauses int
	for _, tt := range []struct {
		name string
		sims Similarities
	}{
		{"lexical", lexical},
		{"all pass", constant(Similarity{Score: 1, By: ByLexical})},
		{"all fail", constant(Similarity{Score: 0, By: ByLexical})},
	} {
		name, sims := tt.name, tt.sims
		for i, d := range ds {
			got, err := p.Decide(i, sims, "s")
			if err != nil {
				t.Fatal(err)
			}
			want, err := m.Decide(d, sims, "s")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, dialog %s: Plan.Decide\n%+v\nMetric.Decide\n%+v", name, d.ID, got, want)
			}
			// A result shares nothing the next decision reads: scribble on it.
			for _, tv := range got.Turns {
				clauses += len(tv.Clauses)
				for k := range tv.Clauses {
					tv.Clauses[k] = ClauseScore{Text: "scribbled"}
				}
			}
		}
	}
	if s.calls != 1 || clauses == 0 {
		t.Errorf("%d Compare calls (want 1), %d clauses checked (want some)", s.calls, clauses)
	}
}
