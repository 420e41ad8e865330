package metrics

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// oneTurn wraps a turn JSON object into a dialog.
func oneTurn(t testing.TB, turn string) Dialog {
	return dialogJSON(t, `{"dialog_id":"d","turns":[`+turn+`]}`)
}

func TestActionChecks(t *testing.T) {
	const gold = `{"tool_id":"weather","action":"forecast","args":{"city":"Paris","days":3,"unit":{"$any":["celsius"],"$optional":true}}}`
	tests := []struct {
		name          string
		pred          string
		wantChecks    []Reason
		missing, xtra []string
		structure     Outcome
		complete      Outcome
		truth         Outcome
	}{
		{"pass, optional omitted", `{"tool_id":"weather","action":"forecast","args":{"city":"Paris","days":3}}`, nil, nil, nil, OutcomePass, OutcomePass, OutcomePass},
		{"pass, optional given", `{"tool_id":"weather","action":"forecast","args":{"city":"Paris","days":"3","unit":"celsius"}}`, nil, nil, nil, OutcomePass, OutcomePass, OutcomePass},
		{"optional wrong value", `{"tool_id":"weather","action":"forecast","args":{"city":"Paris","days":3,"unit":"kelvin"}}`,
			[]Reason{ReasonInconsistentValues}, nil, nil, OutcomePass, OutcomePass, OutcomeFail},
		{"tool mismatch", `{"tool_id":"meteo","action":"forecast","args":{"city":"Paris","days":3}}`,
			[]Reason{ReasonToolMismatch}, nil, nil, OutcomeFail, OutcomePass, OutcomePass},
		{"action mismatch", `{"tool_id":"weather","action":"current","args":{"city":"Paris","days":3}}`,
			[]Reason{ReasonActionMismatch}, nil, nil, OutcomeFail, OutcomePass, OutcomePass},
		{"missing", `{"tool_id":"weather","action":"forecast","args":{"city":"Paris"}}`,
			[]Reason{ReasonMissingParameters}, []string{"days"}, nil, OutcomePass, OutcomeFail, OutcomePass},
		{"extra", `{"tool_id":"weather","action":"forecast","args":{"days":3,"city":"Paris","lang":"fr","alerts":true}}`,
			[]Reason{ReasonExtraParameters}, nil, []string{"alerts", "lang"}, OutcomePass, OutcomeFail, OutcomePass},
		{"wrong value", `{"tool_id":"weather","action":"forecast","args":{"city":"Paris","days":4}}`,
			[]Reason{ReasonInconsistentValues}, nil, nil, OutcomePass, OutcomePass, OutcomeFail},
		{"everything wrong, precedence order", `{"tool_id":"meteo","action":"current","args":{"days":5,"zip":"75001"}}`,
			[]Reason{ReasonToolMismatch, ReasonActionMismatch, ReasonMissingParameters, ReasonExtraParameters, ReasonInconsistentValues},
			[]string{"city"}, []string{"zip"}, OutcomeFail, OutcomeFail, OutcomeFail},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := oneTurn(t, fmt.Sprintf(`{"turn_no":1,"turn":"Tool","gold_turn":%s,"predict_turn":%s}`, gold, tc.pred))
			v := evalAll(t, DefaultConfig(), d)[0].Turns[0]
			if !reflect.DeepEqual(v.FailedChecks, tc.wantChecks) || v.Pass != (len(tc.wantChecks) == 0) {
				t.Errorf("checks %v pass %v, want %v", v.FailedChecks, v.Pass, tc.wantChecks)
			}
			if len(tc.wantChecks) > 0 && (v.FailureReason != tc.wantChecks[0] || v.OwnReason != tc.wantChecks[0] || !v.RootCause) {
				t.Errorf("reason %s own %s root %v", v.FailureReason, v.OwnReason, v.RootCause)
			}
			if !reflect.DeepEqual(v.MissingKeys, tc.missing) || !reflect.DeepEqual(v.ExtraKeys, tc.xtra) {
				t.Errorf("missing %v extra %v", v.MissingKeys, v.ExtraKeys)
			}
			if v.Structure != tc.structure || v.Completeness != tc.complete || v.Truthfulness != tc.truth {
				t.Errorf("outcomes %s/%s/%s", v.Structure, v.Completeness, v.Truthfulness)
			}
		})
	}
}

func TestWrongValueNamesFieldAndScore(t *testing.T) {
	d := oneTurn(t, `{"turn_no":1,"turn":"Tool","gold_turn":{"tool_id":"sales","action":"report","args":{"metric":"revenue"}},
		"predict_turn":{"tool_id":"sales","action":"report","args":{"metric":"profit"}}}`)
	cfg := DefaultConfig()
	cfg.Thresholds.Fields = map[string]float64{"sales.report.metric": 0.8}
	v := evalAll(t, cfg, d)[0].Turns[0]
	want := []FieldScore{{Field: "sales.report.metric", Method: MethodSemantic, Kind: "category", Score: 0, Threshold: 0.8, ThresholdFrom: "fields.sales.report.metric", By: ByLexical}}
	if !reflect.DeepEqual(v.FieldScores, want) || v.Scorer != "lexical" || v.Threshold == nil || *v.Threshold != 0.8 {
		t.Errorf("got %+v scorer %q threshold %v", v.FieldScores, v.Scorer, v.Threshold)
	}
}

func TestResponseChecks(t *testing.T) {
	const gold = "Your order shipped on May 2. The refund of 49.99 dollars was issued to your card."
	tests := []struct {
		name, pred string
		sub        map[string]float64
		want       []Reason
	}{
		{"identical", gold, nil, nil},
		{"paraphrase passes", "Your order shipped May 2. The 49.99 dollars refund was issued to your card.", nil, nil},
		{"clause dropped", "Your order shipped on May 2.", nil, []Reason{ReasonIncompleteResponse}},
		{"clause dropped, strict truth", "Your order shipped on May 2.", map[string]float64{SubTruthResponse: 0.95}, []Reason{ReasonIncompleteResponse, ReasonInconsistentResponse}},
		{"complete but inconsistent overall", gold + " Also we cancelled your account and deleted all of your saved addresses permanently today.",
			map[string]float64{SubTruthResponse: 0.85}, []Reason{ReasonInconsistentResponse}},
		{"empty reply", "", nil, []Reason{ReasonIncompleteResponse, ReasonInconsistentResponse}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := oneTurn(t, fmt.Sprintf(`{"turn_no":1,"turn":"Agent","gold_turn":{"response":%q},"predict_turn":{"response":%q}}`, gold, tc.pred))
			cfg := DefaultConfig()
			cfg.Thresholds.SubMetrics = tc.sub
			v := evalAll(t, cfg, d)[0].Turns[0]
			if !reflect.DeepEqual(v.FailedChecks, tc.want) {
				t.Errorf("checks %v, want %v; scores %+v", v.FailedChecks, tc.want, v.FieldScores)
			}
			if v.Kind != KindResponse || v.Structure != OutcomeNA || v.ChainLength != 0 || v.ChainBucket != "" {
				t.Errorf("kind %s structure %s chain %d %q", v.Kind, v.Structure, v.ChainLength, v.ChainBucket)
			}
			if len(v.FieldScores) != 2 || v.FieldScores[0].Field != "response" || v.FieldScores[1].Field != "response.coverage" || len(v.Clauses) != 2 {
				t.Errorf("field scores %+v, clauses %+v: want response, response.coverage and 2 clauses", v.FieldScores, v.Clauses)
			}
		})
	}
}

func TestMissingAndUnexpectedTurns(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"d","turns":[
		{"turn_no":1,"turn":"User","gold_turn":{"response":"hi"}},
		{"turn_no":2,"turn":"Tool","gold_turn":{"tool_id":"a","action":"b","args":{}},"predict_turn":null},
		{"turn_no":3,"turn":"Tool","gold_turn":null,"predict_turn":{"tool_id":"a","action":"c","args":{}}},
		{"turn_no":4,"turn":"Agent","predict_turn":{"response":"extra reply"}},
		{"turn_no":5,"turn":"Agent","gold_turn":{"response":"a reply"}}]}`)
	r := evalAll(t, DefaultConfig(), d)[0]
	want := []struct {
		turn, pred int
		reason     Reason
		kind       Kind
	}{{2, 0, ReasonMissingTurn, KindAction}, {3, 3, ReasonUnexpectedTurn, KindAction}, {4, 4, ReasonUnexpectedTurn, KindResponse}, {5, 0, ReasonMissingTurn, KindResponse}}
	if len(r.Turns) != len(want) {
		t.Fatalf("%d verdicts, want %d (user turns are not scored)", len(r.Turns), len(want))
	}
	for i, w := range want {
		v := r.Turns[i]
		if v.TurnNo != w.turn || v.PredictTurnNo != w.pred || v.FailureReason != w.reason || v.Kind != w.kind ||
			!reflect.DeepEqual(v.FailedChecks, []Reason{w.reason}) || v.Completeness != OutcomeFail || v.Truthfulness != OutcomeFail {
			t.Errorf("verdict %d: %+v", i, v)
		}
	}
	if r.StructureRate != 0 || r.RootCauseCount != 4 {
		t.Errorf("structure rate %v, roots %d", r.StructureRate, r.RootCauseCount)
	}
}

func TestSplitClauses(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"One sentence", []string{"One sentence"}},
		{"Revenue rose 1.5% in Q3. Costs fell!", []string{"Revenue rose 1.5% in Q3.", "Costs fell!"}},
		{"First part; second part", []string{"First part;", "second part"}},
		{"Line one\nLine two\r\n\n", []string{"Line one", "Line two"}},
		{"- item one\n* item two\n• item three", []string{"item one", "item two", "item three"}},
		{"See e.g. the chart. Dr. Smith agrees.", []string{"See e.g. the chart.", "Dr. Smith agrees."}},
		{"J. Smith works in the U.S. office.", []string{"J. Smith works in the U.S. office."}},
		{"1. Revenue rose. 2. Costs fell.", []string{"1. Revenue rose.", "2. Costs fell."}},
		{"The high is 88°F. Rain later.", []string{"The high is 88°F.", "Rain later."}},
		{`He said "done." Then left?`, []string{`He said "done."`, "Then left?"}},
		{"Wait... what?! OK", []string{"Wait...", "what?!", "OK"}},
		{"... ; !!", nil},
		{"Visit example.com today. Thanks", []string{"Visit example.com today.", "Thanks"}},
	}
	for _, tc := range tests {
		if got := SplitClauses(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitClauses(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestLexical(t *testing.T) {
	tests := []struct {
		a, b   string
		lo, hi float64
	}{
		{"profit", "profit", 1, 1},
		{"", "", 1, 1},
		{"Profit", "PROFIT", 1, 1},
		{"profit", "revenue", 0, 0},
		{"", "x", 0, 0},
		{"!!!", "???", 0, 0},
		{"EMEA Q3 revenue by product line", "EMEA Q3 profit by product line", 0.6, 0.9},
		{"New York City", "NYC", 0, 0.2},
	}
	for _, tc := range tests {
		s, r := LexicalSimilarity(tc.a, tc.b), LexicalSimilarity(tc.b, tc.a)
		if s < tc.lo || s > tc.hi || s != r {
			t.Errorf("LexicalSimilarity(%q, %q) = %v (reverse %v), want in [%v, %v]", tc.a, tc.b, s, r, tc.lo, tc.hi)
		}
	}
	got, err := Lexical{}.Compare(t.Context(), []Comparison{{Gold: "a b", Predicted: "a b"}, {Kind: CompareReply, Gold: "x", Predicted: "y"}})
	if want := []Similarity{{Score: 1, By: ByLexical}, {Score: 0, By: ByLexical}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Compare = %v, %v; want %v", got, err, want)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (Lexical{}).Compare(ctx, []Comparison{{Gold: "a", Predicted: "b"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
