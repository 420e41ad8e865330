package metrics

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// judgeScorer answers every comparison by gold string: a score and who
// decided; judge decisions carry a note.
type judgeScorer map[string]Similarity

func (judgeScorer) ID() string { return "judge-stub" }

func (js judgeScorer) Compare(_ context.Context, cs []Comparison) ([]Similarity, error) {
	out := make([]Similarity, len(cs))
	for i, c := range cs {
		out[i] = js[c.Gold+"|"+c.Predicted]
	}
	return out, nil
}

func byJudge(score, cosine float64) Similarity {
	return Similarity{Score: score, By: ByJudge, Judge: &JudgeNote{FirstScore: cosine, Reason: "because"}}
}

// A judge's decision is held to JudgeThreshold whatever the thresholds
// say for the field, and its note reaches the FieldScore; the embedding's
// decisions keep their thresholds.
func TestJudgeDecisionsHeldToJudgeThreshold(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Thresholds = Thresholds{Threshold: 0.5, SubMetrics: map[string]float64{SubTruthValues: 0.75, SubTruthResponse: 0.8, SubCompleteClause: 0.55}}
	d := dialogJSON(t, `{"dialog_id": "d", "turns": [
		{"turn_no": 1, "turn": "Tool", "gold_turn": {"tool_id": "w", "action": "get", "args": {"city": "New York City", "unit": "metric", "when": {"$any": ["today", "now"]}}},
		 "predict_turn": {"tool_id": "w", "action": "get", "args": {"city": "New York", "unit": "imperial", "when": "right now"}}},
		{"turn_no": 2, "turn": "Agent", "gold_turn": {"response": "It is 20 degrees. Rain is likely."}, "predict_turn": {"response": "Twenty degrees right now. Expect showers."}}]}`)
	s := judgeScorer{
		"New York City|New York": byJudge(0.6, 0.8),         // passes at 0.5 though values need 0.75
		"metric|imperial":        byJudge(0.4, 0.7),         // fails
		"today|right now":        {Score: 0.7, By: ByEmbed}, // embed: fails at 0.75
		"now|right now":          byJudge(0.9, 0.76),        // the $any alternative the judge passes
		"It is 20 degrees. Rain is likely.|Twenty degrees right now. Expect showers.": byJudge(0.55, 0.6),
		"It is 20 degrees.|Twenty degrees right now.":                                 {Score: 0.52, By: ByEmbed}, // 0.03 below 0.55
		"It is 20 degrees.|Expect showers.":                                           byJudge(0.6, 0.4),          // 0.1 above 0.5: the best
		"Rain is likely.|Twenty degrees right now.":                                   {Score: 0.2, By: ByEmbed},
		"Rain is likely.|Expect showers.":                                             {Score: 0.9, By: ByEmbed},
	}
	rs, err := Evaluate(context.Background(), s, cfg, []Dialog{d})
	if err != nil {
		t.Fatal(err)
	}
	byField := map[string]FieldScore{}
	for _, v := range rs[0].Turns {
		for _, fs := range v.FieldScores {
			byField[fs.Field] = fs
		}
		for _, c := range v.Clauses {
			byField[c.Field] = c.FieldScore
		}
	}
	for _, tc := range []struct {
		field string
		pass  bool
		th    float64
		by    string
		note  bool
	}{
		{"w.get.city", true, JudgeThreshold, ByJudge, true},
		{"w.get.unit", false, JudgeThreshold, ByJudge, true},
		{"w.get.when", true, JudgeThreshold, ByJudge, true},
		{"response", true, JudgeThreshold, ByJudge, true},
		{"response.clause[0]", true, JudgeThreshold, ByJudge, true},
		{"response.clause[1]", true, 0.55, ByEmbed, false},
	} {
		fs, ok := byField[tc.field]
		if !ok {
			t.Fatalf("no field %s in %v", tc.field, byField)
		}
		if fs.Pass != tc.pass || fs.Threshold != tc.th || fs.By != tc.by || (fs.Judge != nil) != tc.note {
			t.Errorf("%s: %+v (judge %+v); want pass %v threshold %v by %s note %v", tc.field, fs, fs.Judge, tc.pass, tc.th, tc.by, tc.note)
		}
		if tc.note && (fs.Judge == nil || fs.Judge.Reason != "because") {
			t.Errorf("%s: judge note %+v", tc.field, fs.Judge)
		}
	}
}

// Spared alternatives are never kept as a clause's best, whatever their
// score: the escalation left them undecided because another alternative
// decides. Every alternative spared is a scorer's bug, reported.
func TestSparedAlternativesAreNeverTheBest(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id": "d", "turns": [
		{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "Revenue rose 5%."}, "predict_turn": {"response": "Sales were up. Revenue grew 5%. Costs fell."}}]}`)
	s := judgeScorer{
		"Revenue rose 5%.|Revenue grew 5%.":                            byJudge(0.55, 0.7),                       // accepted: 0.05 above 0.5
		"Revenue rose 5%.|Sales were up.":                              {Score: 0.65, By: ByEmbed, Spared: true}, // would be 0.15 above 0.5
		"Revenue rose 5%.|Costs fell.":                                 {Score: 0.4, By: ByEmbed, Spared: true},
		"Revenue rose 5%.|Sales were up. Revenue grew 5%. Costs fell.": {Score: 0.7, By: ByEmbed},
	}
	rs, err := Evaluate(context.Background(), s, DefaultConfig(), []Dialog{d})
	if err != nil {
		t.Fatal(err)
	}
	var clause *FieldScore
	for i, c := range rs[0].Turns[0].Clauses {
		if c.Field == "response.clause[0]" {
			clause = &rs[0].Turns[0].Clauses[i].FieldScore
		}
	}
	if clause == nil || clause.By != ByJudge || clause.Score != 0.55 || !clause.Pass || clause.Judge == nil {
		t.Fatalf("clause decision %+v, want the judge's accepted alternative", clause)
	}

	for k, v := range s {
		v.Spared = true
		s[k] = v
	}
	s["Revenue rose 5%.|Sales were up. Revenue grew 5%. Costs fell."] = Similarity{Score: 0.7, By: ByEmbed}
	if _, err := Evaluate(context.Background(), s, DefaultConfig(), []Dialog{d}); !errors.Is(err, ErrScorer) || !strings.Contains(err.Error(), "spared") {
		t.Errorf("every alternative spared: %v, want ErrScorer naming it", err)
	}
}

// A gold clause whose amount the reply lacks is not covered whatever its
// similarity: its comparisons are asked Moot, the others not.
func TestClauseComparisonsMootWithoutAnchors(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id": "d", "turns": [
		{"turn_no": 1, "turn": "Agent", "gold_turn": {"response": "Revenue was $4M. Costs fell."}, "predict_turn": {"response": "Revenue was high. Costs dropped."}}]}`)
	moot := map[string]bool{}
	for _, c := range Default().Requests(d) {
		if c.Kind == CompareClause {
			moot[c.Gold+"|"+c.Predicted] = c.Moot
		}
	}
	want := map[string]bool{
		"Revenue was $4M.|Revenue was high.": true, "Revenue was $4M.|Costs dropped.": true,
		"Costs fell.|Revenue was high.": false, "Costs fell.|Costs dropped.": false,
	}
	if d := cmp.Diff(want, moot); d != "" {
		t.Errorf("moot clause comparisons (-want +got):\n%s", d)
	}
}
