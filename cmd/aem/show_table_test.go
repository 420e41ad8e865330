package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/rundir"
)

// TestShowTableTTY: on a terminal the turns are an aligned table, long
// values cut, control characters escaped, no trailing blanks; the compact
// summary stays the first line.
func TestShowTableTTY(t *testing.T) {
	s := func(v string) *string { return &v }
	i := func(v int64) *int64 { return &v }
	long := strings.Repeat("very long value ", 5)
	rows := []rundir.TurnRow{
		{DialogID: "d", TurnNo: 1, Role: "Tool", Kind: "action", Pass: true, GoldToolID: s("crm"), GoldAction: s("find"),
			GoldArgs: s(`{"city":"Boston"}`), PredictToolID: s("crm"), PredictAction: s("find"), PredictArgs: s(`{"city":"Boston"}`)},
		{DialogID: "d", TurnNo: 2, Role: "Tool", Kind: "action", FailureReason: s("inconsistent_parameter_values"), RootCause: true,
			GoldToolID: s("crm"), GoldAction: s("find"), GoldArgs: s(`{"city":"Boston","note":"` + long + `"}`),
			PredictToolID: s("crm"), PredictAction: s("find"), PredictArgs: s(`{"city":"Bos\tton\u001b[0m","note":"short"}`),
			FieldScores: []rundir.FieldScoreRow{
				{Field: "crm.find.city", Method: "semantic", Kind: s("name"), Score: 0.41, Threshold: 0.75, ThresholdFrom: "threshold", By: s("embed")},
				{Field: "crm.find.note", Method: "semantic", Kind: s("text"), Score: 0.2, Threshold: 0.75, ThresholdFrom: "threshold", By: s("embed")}}},
		{DialogID: "d", TurnNo: 3, Role: "Tool", Kind: "action", FailureReason: s("prior_action_failed"), OwnReason: s("missing_parameters"),
			CascadeFrom: i(2), GoldToolID: s("crm"), GoldAction: s("list"), GoldArgs: s(`{"id":7}`),
			PredictToolID: s("crm"), PredictAction: s("list"), PredictArgs: s(`{}`),
			FieldScores: []rundir.FieldScoreRow{{Field: "crm.list.id", Method: "missing", Kind: s("identifier")}}},
		{DialogID: "other", TurnNo: 1, Role: "Tool", Kind: "action", Pass: true},
	}
	dir := t.TempDir()
	if _, err := rundir.WriteRows(dir, rundir.Summary{Scorer: "lexical"}, rows, nil); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, StdoutTTY: true, Getenv: func(string) string { return "" }}
	if err := runCommand(context.Background(), env, cmdShow(), []string{dir, "--dialog", "d"}); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], `{"success_rate":`) || lines[1] != "" {
		t.Fatalf("the compact summary is not the first line, then a blank one:\n%s", out.String())
	}
	want := []string{
		"TURN  ROLE  VERDICT              REASON                         FIELD          KIND        GOLD                                       PREDICTED            SCORE          DECIDED BY",
		"1     Tool  pass",
		`2     Tool  FAIL (root cause)    inconsistent_parameter_values  crm.find.city  name        "Boston"                                   "Bos\tton\u001b[0m"  0.410 < 0.750  semantic (embed)`,
		`                                                                crm.find.note  text        "very long value very long value very l…"  "short"              0.200 < 0.750  semantic (embed)`,
		"3     Tool  cascade from turn 2  prior_action_failed            crm.list.id    identifier  7                                          (missing)                           missing",
	}
	if diff := cmp.Diff(want, lines[2:]); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
	// --json: the summary alone.
	out.Reset()
	if err := runCommand(context.Background(), env, cmdShow(), []string{dir, "--dialog", "d", "--json"}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 1 {
		t.Errorf("--json printed %d lines:\n%s", n, out.String())
	}
}

func TestQuote(t *testing.T) {
	if got := quote(`say "hi" \ now`); got != `"say \"hi\" \\ now"` {
		t.Errorf("quote = %s", got)
	}
}
