package metrics_test

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/metrics"
)

// Evaluate decides dialogs with a scorer; here the model-free Lexical one.
func ExampleMetric_Evaluate() {
	call := func(metric string) metrics.Call {
		return metrics.Call{ToolID: "sales_db", Action: "aggregate", Args: map[string]any{"metric": metric}}
	}
	d := metrics.Dialog{ID: "demo", Turns: []metrics.Turn{
		{TurnNo: 1, Role: metrics.RoleTool, HasGold: true, HasPredict: true, Gold: call("revenue"), Predict: call("profit")},
		{TurnNo: 2, Role: metrics.RoleAgent, HasGold: true, HasPredict: true,
			GoldResponse: "Revenue grew 12% in Q3.", PredictResponse: "Profit grew 12% in Q3."},
	}}
	cfg := metrics.DefaultConfig()
	cfg.Thresholds.Threshold = 0.8
	m, err := metrics.New(cfg) // validates cfg once
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := m.Evaluate(context.Background(), metrics.Lexical{}, []metrics.Dialog{d})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := res[0]
	fmt.Println(r.SuccessRate, r.TestPass, r.RootCause, r.CascadingCount)
	fmt.Println(r.Reason)
	// Output:
	// 0 false inconsistent_parameter_values 1
	// 2 of 2 turns failed: turn 1 inconsistent_parameter_values (root cause); turn 2 prior_action_failed from turn 1
}

// Requests and Decide split evaluation so that similarities can be computed
// in large batches across dialogs.
func ExampleMetric_Decide() {
	d := metrics.Dialog{ID: "two-phase", Turns: []metrics.Turn{{
		TurnNo: 1, Role: metrics.RoleTool, HasGold: true, HasPredict: true,
		Gold:    metrics.Call{ToolID: "weather", Action: "forecast", Args: map[string]any{"city": "New York City"}},
		Predict: metrics.Call{ToolID: "weather", Action: "forecast", Args: map[string]any{"city": "New York"}},
	}}}
	m := metrics.Default()
	cs := m.Requests(d)
	sims := metrics.Similarities{}
	for _, c := range cs {
		sims[c] = metrics.Similarity{Score: 0.93, By: metrics.ByEmbed} // from the embedding scorer, in practice
	}
	r, err := m.Decide(d, sims, "embed:demo")
	if err != nil {
		fmt.Println(err)
		return
	}
	fs := r.Turns[0].FieldScores[0]
	fmt.Printf("%+v\n", cs)
	fmt.Println(fs.Field, fs.Method, fs.Score, fs.By, fs.Pass, r.Label)
	// Output:
	// [{Kind:value Field:weather.forecast.city Context: ValueKind:name Gold:New York City Predicted:New York Among: Moot:false}]
	// weather.forecast.city semantic 0.93 embed true pass
}

func ExampleSplitClauses() {
	for _, c := range metrics.SplitClauses("Revenue rose 1.5% in Q3, e.g. in EMEA. Costs fell; margins held.") {
		fmt.Println(c)
	}
	// Output:
	// Revenue rose 1.5% in Q3, e.g. in EMEA.
	// Costs fell;
	// margins held.
}
