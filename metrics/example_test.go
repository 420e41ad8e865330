package metrics

import (
	"encoding/json"
	"testing"
)

const salesSummary = `{"cascading_count":3,"first_failure_turn":2,"root_cause":"inconsistent_parameter_values","root_cause_count":1,"success_rate":0.2,"test_pass":false}`

// TestSalesReportExample reproduces the write-up's published summary.
func TestSalesReportExample(t *testing.T) {
	d := loadJSONL(t, "testdata/sales_report.jsonl")[0]
	if s := LexicalSimilarity("profit", "revenue"); s >= 0.3 {
		t.Fatalf("lexical profit/revenue = %v: the test needs them non-equivalent", s)
	}
	for _, policy := range []CascadePolicy{CascadeEvidence, CascadeChain} {
		for _, th := range []float64{0.3, 0.5, 0.7, 0.9} {
			cfg := withThreshold(th)
			cfg.Cascade = policy
			r := evalAll(t, cfg, d)[0]
			got, _ := json.Marshal(compact(r))
			if string(got) != salesSummary {
				t.Errorf("%s @%v: got %s\nwant %s", policy, th, got, salesSummary)
			}
			want := "4 of 5 turns failed: turn 2 inconsistent_parameter_values (root cause); turns 3-5 prior_action_failed from turn 2"
			if r.Reason != want {
				t.Errorf("%s @%v: reason %q, want %q", policy, th, r.Reason, want)
			}
			for _, n := range []int{3, 4, 5} {
				v := verdict(t, r, n)
				if v.OwnReason != ReasonInconsistentValues || v.CascadeFrom != 2 || v.RootCause {
					t.Errorf("%s @%v turn %d: own %s from %d root %v", policy, th, n, v.OwnReason, v.CascadeFrom, v.RootCause)
				}
			}
		}
	}
}

// TestSalesReportAtEquivalence shows the example is sensitive to the
// threshold: when everything counts as equivalent, every turn passes.
func TestSalesReportAtEquivalence(t *testing.T) {
	d := loadJSONL(t, "testdata/sales_report.jsonl")[0]
	r := evalAll(t, withThreshold(0), d)[0]
	if r.SuccessRate != 1 || !r.TestPass || r.Label != "pass" || r.Reason != "all 5 turns passed" {
		t.Fatalf("got %+v", compact(r))
	}
}

// TestExampleDataset checks each bundled dialog and that together they
// exercise every failure reason.
func TestExampleDataset(t *testing.T) {
	ds := loadJSONL(t, "../datasets/example/golden.jsonl")
	want := map[string]string{
		"sales-report-q3":             salesSummary,
		"weather-nyc-forecast":        `{"cascading_count":0,"first_failure_turn":0,"root_cause":"","root_cause_count":0,"success_rate":1,"test_pass":true}`,
		"flight-booking-sfo-jfk":      `{"cascading_count":0,"first_failure_turn":3,"root_cause":"action_mismatch","root_cause_count":3,"success_rate":0.25,"test_pass":false}`,
		"calendar-quarterly-planning": `{"cascading_count":0,"first_failure_turn":2,"root_cause":"missing_parameters","root_cause_count":3,"success_rate":0,"test_pass":false}`,
		"support-order-status":        `{"cascading_count":0,"first_failure_turn":3,"root_cause":"incomplete_response","root_cause_count":1,"success_rate":0.5,"test_pass":false}`,
		"warehouse-restock":           `{"cascading_count":0,"first_failure_turn":0,"root_cause":"","root_cause_count":0,"success_rate":1,"test_pass":true}`,
		"crm-pipeline-northwind":      `{"cascading_count":2,"first_failure_turn":2,"root_cause":"inconsistent_parameter_values","root_cause_count":1,"success_rate":0,"test_pass":false}`,
	}
	seen := map[Reason]bool{}
	reordered := false
	for _, r := range evalAll(t, DefaultConfig(), ds...) {
		got, _ := json.Marshal(compact(r))
		if string(got) != want[r.DialogID] {
			t.Errorf("%s: got %s\nwant %s", r.DialogID, got, want[r.DialogID])
		}
		for _, v := range r.Turns {
			for _, c := range v.FailedChecks {
				seen[c] = true
			}
			reordered = reordered || v.PredictTurnNo != v.TurnNo && v.PredictTurnNo != 0
		}
	}
	for _, r := range []Reason{ReasonMissingTurn, ReasonUnexpectedTurn, ReasonToolMismatch, ReasonActionMismatch,
		ReasonMissingParameters, ReasonExtraParameters, ReasonInconsistentValues,
		ReasonIncompleteResponse, ReasonInconsistentResponse, ReasonPriorActionFailed} {
		if !seen[r] {
			t.Errorf("no dialog exercises %s", r)
		}
	}
	if !reordered {
		t.Error("no dialog exercises an order-invariant reordering")
	}
	if len(ds) != len(want) {
		t.Errorf("dataset has %d dialogs, want %d", len(ds), len(want))
	}
}
