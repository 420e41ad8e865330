package metrics

import (
	"reflect"
	"testing"
)

// TestThresholdsFor pins the lookup's precedence: exact nested field path,
// then tool.action.param, then the parameter's schema type, then the
// sub-metric, then the global value; 0 is a value like any other.
func TestThresholdsFor(t *testing.T) {
	full := Thresholds{Threshold: 0.5,
		SubMetrics: map[string]float64{SubTruthValues: 0.7, SubTruthResponse: 0, SubCompleteClause: 0.55, SubCompleteResponse: 0.8},
		Types:      map[string]float64{"string": 0.8, "integer": 0},
		Fields:     map[string]float64{"t.a.p": 0.9, "t.a.p.sub[0]": 0.2, "t.a.zero": 0}}
	global := Thresholds{Threshold: 0.5}
	value := func(field, param, typ string) ThresholdQuery {
		return ThresholdQuery{SubMetric: SubTruthValues, Field: field, Param: param, Type: typ}
	}
	tests := []struct {
		name string
		th   Thresholds
		q    ThresholdQuery
		want Applied
	}{
		{"exact nested path beats its parameter", full, value("t.a.p.sub[0]", "t.a.p", "string"), Applied{0.2, "fields.t.a.p.sub[0]"}},
		{"parameter beats type", full, value("t.a.p.sub[1]", "t.a.p", "string"), Applied{0.9, "fields.t.a.p"}},
		{"parameter at the top level", full, value("t.a.p", "t.a.p", ""), Applied{0.9, "fields.t.a.p"}},
		{"a field at 0 beats everything below it", full, value("t.a.zero", "t.a.zero", "string"), Applied{0, "fields.t.a.zero"}},
		{"type beats sub-metric", full, value("t.a.q", "t.a.q", "string"), Applied{0.8, "types.string"}},
		{"a type at 0", full, value("t.a.q", "t.a.q", "integer"), Applied{0, "types.integer"}},
		{"type without an entry falls to the sub-metric", full, value("t.a.q", "t.a.q", "boolean"), Applied{0.7, "sub_metrics.truthfulness.values"}},
		{"no type (no tool definitions) falls to the sub-metric", full, value("t.a.q", "t.a.q", ""), Applied{0.7, "sub_metrics.truthfulness.values"}},
		{"reply: sub-metric at 0", full, ThresholdQuery{SubMetric: SubTruthResponse}, Applied{0, "sub_metrics.truthfulness.response"}},
		{"clause: sub-metric", full, ThresholdQuery{SubMetric: SubCompleteClause, By: ByEmbed}, Applied{0.55, "sub_metrics.completeness.clause"}},
		{"clause: falls to the global threshold", global, ThresholdQuery{SubMetric: SubCompleteClause}, Applied{0.5, "threshold"}},
		{"reply ignores fields and types", Thresholds{Threshold: 0.4, Types: map[string]float64{"string": 0.8}},
			ThresholdQuery{SubMetric: SubTruthResponse}, Applied{0.4, "threshold"}},
		{"global", global, value("t.a.p", "t.a.p", "string"), Applied{0.5, "threshold"}},
		{"global 0", Thresholds{}, value("t.a.p", "t.a.p", ""), Applied{0, "threshold"}},
		{"embed and lexical share the entries", full, ThresholdQuery{SubMetric: SubTruthValues, Field: "x.y.z", Param: "x.y.z", By: ByEmbed}, Applied{0.7, "sub_metrics.truthfulness.values"}},
		{"a composite's decision: its field's own", Thresholds{Threshold: 0.5, Composite: map[string]float64{"t.a.p": 0.7, SubTruthValues: 0.4, CompositeDefault: 0.3}},
			ThresholdQuery{SubMetric: SubTruthValues, Field: "t.a.p.sub[0]", Param: "t.a.p", By: ByComposite}, Applied{0.7, "composite.t.a.p"}},
		{"a composite's decision: its sub-metric's", Thresholds{Threshold: 0.5, Composite: map[string]float64{"t.a.p": 0.7, SubTruthValues: 0.4, CompositeDefault: 0.3}},
			ThresholdQuery{SubMetric: SubTruthValues, Field: "t.a.q", Param: "t.a.q", By: ByComposite}, Applied{0.4, "composite.truthfulness.values"}},
		{"a composite's decision: the default", Thresholds{Threshold: 0.5, Composite: map[string]float64{CompositeDefault: 0.3}},
			ThresholdQuery{SubMetric: SubTruthResponse, By: ByComposite}, Applied{0.3, "composite.default"}},
		{"a composite's decision: no entry", full, ThresholdQuery{SubMetric: SubTruthResponse, By: ByComposite}, Applied{DefaultCompositeThreshold, "composite"}},
		{"a judge's decision is held to JudgeThreshold", full, ThresholdQuery{SubMetric: SubTruthValues, Field: "t.a.p", Param: "t.a.p", Type: "string", By: ByJudge}, Applied{JudgeThreshold, "judge"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.th.For(tc.q); got != tc.want {
				t.Errorf("For(%+v) = %+v, want %+v", tc.q, got, tc.want)
			}
		})
	}
}

// TestCoverageThreshold: the coverage a reply needs comes from its own
// entry, else the default; the global similarity threshold never applies.
func TestCoverageThreshold(t *testing.T) {
	for _, tc := range []struct {
		name string
		th   Thresholds
		want Applied
	}{
		{"own entry", Thresholds{Threshold: 0.3, SubMetrics: map[string]float64{SubCompleteResponse: 0.8}}, Applied{0.8, "sub_metrics.completeness.response"}},
		{"0 is a value", Thresholds{SubMetrics: map[string]float64{SubCompleteResponse: 0}}, Applied{0, "sub_metrics.completeness.response"}},
		{"default, not the global threshold", Thresholds{Threshold: 0.3, SubMetrics: map[string]float64{SubCompleteClause: 0.6}}, Applied{DefaultCoverage, "default"}},
	} {
		if got := tc.th.Coverage(); got != tc.want {
			t.Errorf("%s: Coverage() = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	bad := Thresholds{Threshold: 0.5, SubMetrics: map[string]float64{SubCompleteResponse: -0.2}}
	if p := bad.Problems(); len(p) != 1 || p[0].Key != "sub_metrics.completeness.response" {
		t.Errorf("a negative coverage: problems %+v", p)
	}
}

// TestZeroThreshold: with every threshold at 0 a comparison passes when
// its score is >= 0, and a negative score fails.
func TestZeroThreshold(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"z","turns":[`+salesTurn(1, "a", "revenue", "profit", "")+`]}`)
	cfg := DefaultConfig()
	cfg.Thresholds = Thresholds{Threshold: 0.9, SubMetrics: map[string]float64{SubTruthValues: 0}}
	m := mustNew(t, cfg)
	for _, tc := range []struct {
		score float64
		pass  bool
	}{{0, true}, {0.01, true}, {-0.01, false}} {
		r, err := m.Evaluate(t.Context(), fixedScorer(tc.score), []Dialog{d})
		if err != nil {
			t.Fatal(err)
		}
		v := r[0].Turns[0]
		fs := v.FieldScores[0]
		if v.Pass != tc.pass || fs.Threshold != 0 || fs.ThresholdFrom != "sub_metrics.truthfulness.values" || v.Threshold == nil || *v.Threshold != 0 {
			t.Errorf("score %v: pass %v, field %+v, turn threshold %v; want pass %v at 0", tc.score, v.Pass, fs, v.Threshold, tc.pass)
		}
	}
}

// TestAppliedThresholdsRecorded: every compared value records the
// threshold applied and its entry, and the turn records the threshold of
// the deciding comparison (the failing one, else the narrowest pass), not
// the global value.
func TestAppliedThresholdsRecorded(t *testing.T) {
	turn := `{"turn_no":1,"turn":"Tool",
		"gold_turn":{"tool_id":"sales","action":"report","args":{"metric":"revenue","region":"EMEA","n":3,"city":{"$any":["NYC","New York"]}}},
		"predict_turn":{"tool_id":"sales","action":"report","args":{"metric":"profit","region":"EMEA region","n":3,"city":"New York, NY"}}}`
	reply := `{"turn_no":2,"turn":"Agent","gold_turn":{"response":"Revenue rose. Costs fell."},"predict_turn":{"response":"Revenue rose. Costs dropped."}}`
	d := dialogJSON(t, `{"dialog_id":"r","turns":[`+turn+`,`+reply+`]}`)
	sims := pairScores{{"revenue", "profit"}: 0.8, {"EMEA", "EMEA region"}: 0.6, {"New York", "New York, NY"}: 0.45,
		{"Revenue rose. Costs fell.", "Revenue rose. Costs dropped."}: 0.9,
		{"Costs fell.", "Revenue rose."}:                              0.1, {"Costs fell.", "Costs dropped."}: 0.7}
	cfg := DefaultConfig()
	cfg.Thresholds = Thresholds{Threshold: 0.5, SubMetrics: map[string]float64{SubTruthValues: 0.4, SubCompleteClause: 0.65, SubCompleteResponse: 0.9},
		Fields: map[string]float64{"sales.report.metric": 0.75}}
	m := mustNew(t, cfg)
	r, err := m.Decide(d, sims.similarities(m.Requests(d)), "table")
	if err != nil {
		t.Fatal(err)
	}
	type rec struct {
		Field, Method string
		Score, Th     float64
		From, By      string
		Pass          bool
	}
	var got []rec
	for _, v := range r.Turns {
		for _, fs := range v.FieldScores {
			got = append(got, rec{fs.Field, fs.Method, fs.Score, fs.Threshold, fs.ThresholdFrom, fs.By, fs.Pass})
		}
		for _, c := range v.Clauses {
			fs := c.FieldScore
			got = append(got, rec{fs.Field, fs.Method, fs.Score, fs.Threshold, fs.ThresholdFrom, fs.By, fs.Pass})
		}
	}
	want := []rec{
		{"sales.report.city", MethodAny, 0.45, 0.4, "sub_metrics.truthfulness.values", "table", true},
		{"sales.report.metric", MethodSemantic, 0.8, 0.75, "fields.sales.report.metric", "table", true},
		{"sales.report.n", MethodExact, 1, 0, "", "", true},
		{"sales.report.region", MethodSemantic, 0.6, 0.4, "sub_metrics.truthfulness.values", "table", true},
		{"response", MethodSemantic, 0.9, 0.5, "threshold", "table", true},
		{"response.coverage", MethodCoverage, 1, 0.9, "sub_metrics.completeness.response", "", true},
		{"response.clause[0]", MethodExact, 1, 0, "", "", true},
		{"response.clause[1]", MethodSemantic, 0.7, 0.65, "sub_metrics.completeness.clause", "table", true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("field scores\n got %+v\nwant %+v", got, want)
	}
	// Action turn: the narrowest pass is city (0.45 - 0.4), not metric (0.8 - 0.75).
	// Reply: clause[1] (0.7 - 0.65) is narrower than the reply (0.9 - 0.5).
	for i, want := range []float64{0.4, 0.65} {
		if th := r.Turns[i].Threshold; th == nil || *th != want {
			t.Errorf("turn %d threshold %v, want %v", r.Turns[i].TurnNo, th, want)
		}
	}
	// The field at 0.75 decides when it fails.
	sims[[2]string{"revenue", "profit"}] = 0.7
	r, err = m.Decide(d, sims.similarities(m.Requests(d)), "table")
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Turns[0]; v.Pass || v.Threshold == nil || *v.Threshold != 0.75 {
		t.Errorf("failing metric: pass %v, turn threshold %v, want a fail at 0.75", v.Pass, v.Threshold)
	}
}

// TestNewCopiesConfig: the Metric is not changed by later edits of the
// Config it was built from.
func TestNewCopiesConfig(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Thresholds.Fields = map[string]float64{"t.a.p": 0.9}
	m := mustNew(t, cfg)
	cfg.Thresholds.Fields["t.a.p"] = 5
	if got := m.Config().Thresholds.Fields["t.a.p"]; got != 0.9 {
		t.Errorf("Metric's field threshold %v after the caller's edit, want 0.9", got)
	}
}

// TestSchemaTypeAndContext: with tool definitions, a value's threshold
// can come from its parameter's schema type (types), and its comparison
// carries the tool's and the parameter's descriptions as context.
func TestSchemaTypeAndContext(t *testing.T) {
	tools := mustTools(t, `[{"name": "get_weather", "description": "Weather forecast for a city.", "parameters": {"type": "object", "properties": {
		"city": {"type": "string", "description": "City name."},
		"note": {"type": ["string", "null"]},
		"tags": {"type": "array", "items": {"type": "string"}},
		"free": {}}}}]`)
	gold := call(t, "get_weather", `{"city": "New York City", "note": "urgent", "tags": ["rain"], "free": "x"}`)
	pred := call(t, "get_weather", `{"city": "New York", "note": "asap", "tags": ["showers"], "free": "y"}`)
	d := Dialog{ID: "d", Tools: tools, Turns: []Turn{{DialogID: "d", TurnNo: 1, Role: RoleTool, HasGold: true, HasPredict: true, Gold: gold, Predict: pred}}}
	cfg := DefaultConfig()
	cfg.Thresholds = Thresholds{Threshold: 0.5, Types: map[string]float64{"string": 0.8, "array": 0.3}}
	m := mustNew(t, cfg)
	cs := m.Requests(d)
	context := map[string]string{}
	for _, c := range cs {
		context[c.Field] = c.Context
	}
	base := "get_weather.call."
	wantContext := map[string]string{
		base + "city":    "get_weather: Weather forecast for a city.\ncity: City name.",
		base + "free":    "get_weather: Weather forecast for a city.",
		base + "note":    "get_weather: Weather forecast for a city.",
		base + "tags[0]": "get_weather: Weather forecast for a city.",
	}
	if !reflect.DeepEqual(context, wantContext) {
		t.Errorf("contexts %q, want %q", context, wantContext)
	}
	r, err := m.Decide(d, pairScores{{"New York City", "New York"}: 0.79, {"urgent", "asap"}: 0.85, {"rain", "showers"}: 0.35, {"x", "y"}: 0.5}.similarities(cs), "table")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Applied{}
	for _, fs := range r.Turns[0].FieldScores {
		got[fs.Field] = Applied{fs.Threshold, fs.ThresholdFrom}
	}
	want := map[string]Applied{
		base + "city":    {0.8, "types.string"}, // 0.79 fails
		base + "note":    {0.8, "types.string"}, // string|null is a string
		base + "tags[0]": {0.3, "types.array"},  // a nested value takes its parameter's type
		base + "free":    {0.5, "threshold"},    // no type
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("thresholds %v, want %v", got, want)
	}
	if v := r.Turns[0]; v.Pass || v.Threshold == nil || *v.Threshold != 0.8 {
		t.Errorf("turn pass %v threshold %v, want a fail decided at 0.8 (city)", v.Pass, v.Threshold)
	}
}
