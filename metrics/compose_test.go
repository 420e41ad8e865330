package metrics

import (
	"math"
	"strings"
	"testing"
)

// compositionDialog: 4 action turns, turn 2 (weight 3, critical) and turn 4 fail.
func compositionDialog(t testing.TB) Dialog {
	return dialogJSON(t, `{"dialog_id":"w","turns":[`+strings.Join([]string{
		salesTurn(1, "a", "x", "x", `,"weight":1`),
		salesTurn(2, "b", "revenue", "profit", `,"weight":3,"critical":true`),
		salesTurn(3, "c", "x", "x", `,"weight":4`),
		`{"turn_no":4,"turn":"Tool","gold_turn":{"tool_id":"d","action":"run","args":{"k":1}},"predict_turn":{"tool_id":"d","action":"run","args":{}}}`,
	}, ",")+`]}`)
}

func TestComposition(t *testing.T) {
	tests := []struct {
		name     string
		comp     Composition
		score    float64
		testPass bool
	}{
		{"mean", Composition{Rule: RuleMean, PassScore: 1}, 0.5, false},
		{"mean, lenient pass score", Composition{Rule: RuleMean, PassScore: 0.5}, 0.5, true},
		{"weighted (nil weight = 1)", Composition{Rule: RuleWeighted, PassScore: 0.5}, 5.0 / 9.0, true},
		{"gating caps at GateCap", Composition{Rule: RuleGating, GateCap: 0.25, PassScore: 0.5}, 0.25, false},
		{"gating cap above score", Composition{Rule: RuleGating, GateCap: 0.9, PassScore: 0.5}, 0.5, true},
		{"min rates met", Composition{Rule: RuleMean, PassScore: 0.5, MinRates: map[string]float64{SubStructure: 1, SubTruthfulness: 0.75}}, 0.5, true},
		{"min rate missed", Composition{Rule: RuleMean, PassScore: 0.5, MinRates: map[string]float64{SubCompleteness: 0.8}}, 0.5, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Composition = tc.comp
			r := evalAll(t, cfg, compositionDialog(t))[0]
			if math.Abs(r.Score-tc.score) > 1e-12 || r.TestPass != tc.testPass || r.SuccessRate != 0.5 {
				t.Errorf("score %v test_pass %v success %v, want %v %v 0.5", r.Score, r.TestPass, r.SuccessRate, tc.score, tc.testPass)
			}
			if want := map[bool]string{true: "pass", false: "fail"}[tc.testPass]; r.Label != want {
				t.Errorf("label %q, want %q", r.Label, want)
			}
			if r.StructureRate != 1 || r.CompletenessRate != 0.75 || r.TruthfulnessRate != 0.75 {
				t.Errorf("rates %v %v %v", r.StructureRate, r.CompletenessRate, r.TruthfulnessRate)
			}
		})
	}
}

func TestGatingWithoutCriticalFailure(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"g","turns":[`+salesTurn(1, "a", "x", "x", `,"critical":true`)+","+salesTurn(2, "b", "revenue", "profit", "")+`]}`)
	cfg := DefaultConfig()
	cfg.Composition = Composition{Rule: RuleGating, GateCap: 0, PassScore: 0.5}
	if r := evalAll(t, cfg, d)[0]; r.Score != 0.5 || !r.TestPass {
		t.Errorf("score %v test_pass %v", r.Score, r.TestPass)
	}
}

func TestWeightedAllZero(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"z","turns":[`+salesTurn(1, "a", "x", "x", `,"weight":0`)+","+salesTurn(2, "b", "revenue", "profit", `,"weight":0`)+`]}`)
	cfg := DefaultConfig()
	cfg.Composition.Rule = RuleWeighted
	if r := evalAll(t, cfg, d)[0]; r.Score != 0.5 {
		t.Errorf("score %v, want the unweighted 0.5", r.Score)
	}
}

func TestEmptyDialog(t *testing.T) {
	for _, d := range []Dialog{{ID: "none"}, dialogJSON(t, `{"dialog_id":"users","turns":[`+userTurn(1)+`]}`)} {
		r := evalAll(t, DefaultConfig(), d)[0]
		if r.TurnCount != 0 || r.SuccessRate != 0 || r.Score != 0 || r.TestPass || r.Label != "fail" ||
			!strings.HasPrefix(r.Reason, "no scored turns") || r.FirstFailureTurn != 0 || r.StructureRate != 1 {
			t.Errorf("%s: %+v", d.ID, r)
		}
	}
}

func TestReasonText(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"r","turns":[`+strings.Join([]string{
		salesTurn(1, "a", "revenue", "profit", ""), salesTurn(2, "b", "revenue", "profit", ""),
		salesTurn(3, "c", "EMEA", "APAC", ""), salesTurn(4, "d", "revenue", "profit", ""), salesTurn(5, "e", "x", "x", ""),
	}, ",")+`]}`)
	r := evalAll(t, DefaultConfig(), d)[0]
	want := "4 of 5 turns failed: turn 1 inconsistent_parameter_values (root cause); turns 2, 4 prior_action_failed from turn 1; turn 3 inconsistent_parameter_values (root cause)"
	if r.Reason != want {
		t.Errorf("reason %q\nwant   %q", r.Reason, want)
	}
	if got := turnList([]int{3, 3, 4, 5, 7, 9, 10}); got != "turns 3-5, 7, 9-10" {
		t.Errorf("turnList = %q", got)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(*Config)
		want   string
	}{
		{"threshold", func(c *Config) { c.Thresholds.Threshold = 1.5 }, "thresholds threshold: 1.5 is not in [-1, 1]"},
		{"threshold NaN", func(c *Config) { c.Thresholds.Threshold = math.NaN() }, "thresholds threshold: NaN is not in [-1, 1]"},
		{"sub-metric key", func(c *Config) { c.Thresholds.SubMetrics = map[string]float64{"truth": 0.5} }, `thresholds sub_metrics.truth: unknown sub_metrics key`},
		{"sub-metric value", func(c *Config) { c.Thresholds.SubMetrics = map[string]float64{SubTruthValues: -2} }, "sub_metrics.truthfulness.values: -2 is not in [-1, 1]"},
		{"type key", func(c *Config) { c.Thresholds.Types = map[string]float64{"str": 0.5} }, "types.str: unknown types key: use one of string"},
		{"type value", func(c *Config) { c.Thresholds.Types = map[string]float64{"string": math.Inf(1)} }, "types.string: +Inf is not in [-1, 1]"},
		{"field key", func(c *Config) { c.Thresholds.Fields = map[string]float64{"metric": 0.5} }, "fields.metric: not a field path: name a parameter as tool.action.param"},
		{"field value", func(c *Config) { c.Thresholds.Fields = map[string]float64{"t.a.p": 1.5} }, "fields.t.a.p: 1.5 is not in [-1, 1]"},
		{"tolerance", func(c *Config) { c.NumericTolerance = -1 }, "numeric tolerance"},
		{"cascade", func(c *Config) { c.Cascade = "greedy" }, `cascade policy "greedy"`},
		{"empty cascade", func(c *Config) { c.Cascade = "" }, "cascade policy"},
		{"rule", func(c *Config) { c.Composition.Rule = "median" }, `composition rule "median"`},
		{"gate cap", func(c *Config) { c.Composition.GateCap = 2 }, "gate cap"},
		{"pass score", func(c *Config) { c.Composition.PassScore = -0.1 }, "pass score"},
		{"min rate key", func(c *Config) { c.Composition.MinRates = map[string]float64{"speed": 1} }, `min rate key "speed"`},
		{"min rate value", func(c *Config) { c.Composition.MinRates = map[string]float64{SubStructure: 1.1} }, "min rate"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tc.mutate(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
			if m, err := New(cfg); err == nil || m != nil || !strings.Contains(err.Error(), "metric config: ") {
				t.Errorf("New accepted an invalid config: %v", err)
			}
		})
	}
}

func TestParsePolicyAndRule(t *testing.T) {
	if p, err := ParseCascadePolicy(" Chain "); err != nil || p != CascadeChain {
		t.Errorf("ParseCascadePolicy = %q, %v", p, err)
	}
	if r, err := ParseRule("weighted"); err != nil || r != RuleWeighted {
		t.Errorf("ParseRule = %q, %v", r, err)
	}
	if _, err := ParseCascadePolicy("x"); err == nil {
		t.Error("want error")
	}
	if _, err := ParseRule("x"); err == nil {
		t.Error("want error")
	}
}

// TestWeightedLargestDoubles: weights near the largest finite double
// compose without overflow (issue 28): the sums were +Inf, which gave NaN
// (both pass) or 0 (one passes) where the share is right.
func TestWeightedLargestDoubles(t *testing.T) {
	const big = math.MaxFloat64
	for _, c := range []struct {
		name   string
		w1, w2 string
		pass2  bool
		want   float64
	}{
		{"both pass", "1e308", "1e308", true, 1},
		{"one passes", "1e308", "1e308", false, 0.5},
		{"largest finite, one passes", "1.7976931348623157e308", "1.7976931348623157e308", false, 0.5},
		{"unequal", "1e308", "1.7976931348623157e308", false, 1e308 / (1e308 + big)},
		{"tiny beside huge", "5e-324", "1.7976931348623157e308", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			second := salesTurn(2, "b", "revenue", "profit", `,"weight":`+c.w2)
			if c.pass2 {
				second = salesTurn(2, "b", "revenue", "revenue", `,"weight":`+c.w2)
			}
			d := dialogJSON(t, `{"dialog_id":"big","turns":[`+salesTurn(1, "a", "x", "x", `,"weight":`+c.w1)+","+second+`]}`)
			cfg := DefaultConfig()
			cfg.Composition.Rule = RuleWeighted
			r := evalAll(t, cfg, d)[0]
			if math.IsNaN(r.Score) || math.Abs(r.Score-c.want) > 1e-12 {
				t.Errorf("score %v, want %v", r.Score, c.want)
			}
		})
	}
}
