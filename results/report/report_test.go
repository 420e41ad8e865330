package report

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// TestPageNumbersEqualSummary is the golden test of the page's data: every
// figure the page marks with data-sum equals the value at that path in
// summary.json, formatted as the page formats it, and every figure of
// summary.json that a reader looks for is on the page.
func TestPageNumbersEqualSummary(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input func(t *testing.T) string
		cfg   metrics.Config
	}{
		{"example", func(*testing.T) string { return example }, exampleConfig()},
		{"generated", func(t *testing.T) string { return generated(t, 300, 3) }, metrics.DefaultConfig()},
		{"trials", func(*testing.T) string { return filepath.Join("testdata", "trials.jsonl") }, metrics.DefaultConfig()},
		{"usage blocks", func(*testing.T) string { return example }, exampleConfig()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scoreRun(t, tc.input(t), tc.cfg)
			if tc.name == "usage blocks" {
				addUsage(t, dir)
			}
			rep := build(t, dir, Options{})
			doc, _ := page(t, rep)
			raw, err := os.ReadFile(filepath.Join(dir, rundir.SummaryFile))
			if err != nil {
				t.Fatal(err)
			}
			var sum map[string]any
			if err := json.Unmarshal(raw, &sum); err != nil {
				t.Fatal(err)
			}
			shown := map[string]bool{}
			each(doc, func(n *html.Node) {
				path, ok := attr(n, "data-sum")
				if !ok {
					return
				}
				kind, _ := attr(n, "data-fmt")
				v, err := lookup(sum, path)
				if err != nil {
					t.Errorf("data-sum=%q: %v", path, err)
					return
				}
				// A bar may precede the number in the same cell.
				if got, want := text(n), Format(kind, v); got != want {
					t.Errorf("data-sum=%q shows %q, summary.json has %v (%q)", path, got, v, want)
				}
				shown[path] = true
			})
			for _, path := range wanted(sum) {
				if !shown[path] {
					t.Errorf("summary.json's %s is not on the page", path)
				}
			}
			// Figures computed from the rows agree with the summary's.
			var roots, cascades float64
			for _, r := range sum["failure_reasons"].(map[string]any) {
				roots += r.(map[string]any)["root_cause"].(float64)
				cascades += r.(map[string]any)["cascade"].(float64)
			}
			if float64(rep.RootCauses) != roots || float64(rep.Cascades) != cascades {
				t.Errorf("root causes / cascades %d / %d, summary.json %v / %v", rep.RootCauses, rep.Cascades, roots, cascades)
			}
			if rep.Turns != int(sum["turns"].(float64)) || rep.Dialogs != int(sum["dialogs"].(float64)) {
				t.Errorf("read %d turns, %d dialogs; summary.json %v, %v", rep.Turns, rep.Dialogs, sum["turns"], sum["dialogs"])
			}
		})
	}
}

// wanted lists the summary.json paths the page must show.
func wanted(sum map[string]any) []string {
	out := []string{"correctness", "dialog_pass_rate", "mean_dialog_score", "dialogs", "turns", "passed"}
	keys := func(m any) []string {
		var ks []string
		for k := range m.(map[string]any) {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	for _, k := range keys(sum["sub_metrics"]) {
		out = append(out, "sub_metrics."+k)
	}
	for _, k := range keys(sum["failure_reasons"]) {
		out = append(out, "failure_reasons."+k+".total", "failure_reasons."+k+".root_cause", "failure_reasons."+k+".cascade")
	}
	for _, k := range keys(sum["by_chain_bucket"]) {
		out = append(out, "by_chain_bucket."+k+".turns", "by_chain_bucket."+k+".passed", "by_chain_bucket."+k+".correctness")
	}
	if tr, ok := sum["trials"].(map[string]any); ok {
		out = append(out, "trials.tasks", "trials.flaky_tasks")
		for i := range tr["pass_hat_k"].([]any) {
			out = append(out, fmt.Sprintf("trials.pass_hat_k.%d", i), fmt.Sprintf("trials.pass_at_k.%d", i))
		}
	}
	if _, ok := sum["embedding"]; ok {
		out = append(out, "embedding.strings_per_scored_turn", "embedding.strings_embedded", "embedding.model_seconds")
	}
	if _, ok := sum["judge"]; ok {
		out = append(out, "judge.escalated_share", "judge.escalated_fields", "judge.judge_decided_fields")
	}
	if _, ok := sum["latency_correlation"]; ok {
		out = append(out, "latency_correlation.dialogs", "latency_correlation.pearson", "latency_correlation.spearman")
	}
	return out
}

// lookup finds the number at a dotted path of a decoded JSON document.
func lookup(doc map[string]any, path string) (float64, error) {
	var v any = doc
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return 0, fmt.Errorf("no %q", p)
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return 0, fmt.Errorf("no element %q", p)
			}
			v = x[i]
		default:
			return 0, fmt.Errorf("%q is not inside an object", p)
		}
	}
	f, ok := v.(float64)
	if !ok {
		return 0, fmt.Errorf("not a number: %v", v)
	}
	return f, nil
}

// TestCausesExample checks the attribution on the write-up's sales report:
// turn 2 passed profit for revenue and turns 3-5 built on it, so one root
// explains four failures, and it alone fails the dialog.
func TestCausesExample(t *testing.T) {
	rep := build(t, scoreRun(t, example, exampleConfig()), Options{})
	i := slices.IndexFunc(rep.Causes, func(c Cause) bool {
		return c.Reason == "inconsistent_parameter_values" && c.Tool == "sales_db.aggregate"
	})
	if i < 0 {
		t.Fatalf("no sales_db.aggregate root cause in %+v", rep.Causes)
	}
	c := rep.Causes[i]
	if c.Field != "metric" || c.Roots != 1 || c.Cascades != 3 || c.Explained != 4 || c.Dialogs != 1 || c.Sole != 1 {
		t.Errorf("sales report cause = %+v, want field metric, 1 root + 3 cascades, 1 dialog it alone fails", c)
	}
	if len(c.Examples) != 1 || c.Examples[0].DialogID != "sales-report-q3" || c.Examples[0].TurnNo != 2 {
		t.Errorf("examples = %+v, want sales-report-q3 turn 2", c.Examples)
	}
	if i != 0 {
		t.Errorf("it explains the most failures, but ranks %d", i+1)
	}
	explained := 0
	for _, c := range rep.Causes {
		explained += c.Explained
	}
	if explained != rep.RootCauses+rep.Cascades {
		t.Errorf("the causes explain %d failures, the run has %d (every cascade of the example has its root)", explained, rep.RootCauses+rep.Cascades)
	}
}

func f64(v float64) *float64 { return &v }
func str(s string) *string   { return &s }

// TestMarginsShift checks which turn verdicts a threshold move flips.
func TestMarginsShift(t *testing.T) {
	sem := func(score, thr float64) rundir.FieldScoreRow {
		return rundir.FieldScoreRow{Field: "t.a.x", Method: metrics.MethodSemantic, Score: score, Threshold: thr, ThresholdFrom: "threshold", Pass: score >= thr, By: str("embed")}
	}
	exact := func(pass bool) rundir.FieldScoreRow {
		return rundir.FieldScoreRow{Field: "t.a.y", Method: metrics.MethodExact, Score: map[bool]float64{true: 1, false: 0}[pass], Pass: pass}
	}
	coverage := func(share, thr float64) rundir.FieldScoreRow {
		return rundir.FieldScoreRow{Field: "response.coverage", Method: metrics.MethodCoverage, Score: share, Threshold: thr, Pass: share >= thr}
	}
	// clause is a required clause; covered is false for one whose anchors
	// are missing although its score passes.
	clause := func(score, thr float64, anchors bool) rundir.ClauseRow {
		return rundir.ClauseRow{Field: "response.clause[0]", Required: true, Method: metrics.MethodSemantic, Score: &score, Threshold: &thr,
			ThresholdFrom: str("sub_metrics.completeness.clause"), Pass: score >= thr, Covered: score >= thr && anchors, By: str("embed")}
	}
	judged := sem(0.9, 0.5)
	judged.By, judged.Cosine = str("judge"), f64(0.52)
	for _, tc := range []struct {
		name       string
		turn       rundir.TurnRow
		fail, pass []int // flips at each of Deltas (0.01, 0.02, 0.05, 0.1)
	}{
		{"pass, narrow margin", rundir.TurnRow{Pass: true, FieldScores: []rundir.FieldScoreRow{sem(0.515, 0.5), sem(0.9, 0.5)}}, []int{0, 1, 1, 1}, []int{0, 0, 0, 0}},
		{"pass, wide margin", rundir.TurnRow{Pass: true, FieldScores: []rundir.FieldScoreRow{sem(0.7, 0.5)}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
		{"fail just below", rundir.TurnRow{FailedChecks: []string{"inconsistent_parameter_values"}, FieldScores: []rundir.FieldScoreRow{sem(0.47, 0.5), exact(true)}}, []int{0, 0, 0, 0}, []int{0, 0, 1, 1}},
		{"fail, two below: the widest counts", rundir.TurnRow{FailedChecks: []string{"inconsistent_parameter_values"}, FieldScores: []rundir.FieldScoreRow{sem(0.49, 0.5), sem(0.42, 0.5)}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 1}},
		{"fail on an exact value too", rundir.TurnRow{FailedChecks: []string{"inconsistent_parameter_values"}, FieldScores: []rundir.FieldScoreRow{sem(0.499, 0.5), exact(false)}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
		{"fail on a missing key", rundir.TurnRow{FailedChecks: []string{"missing_parameters", "inconsistent_parameter_values"}, FieldScores: []rundir.FieldScoreRow{sem(0.499, 0.5)}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
		{"cascade with its own near miss", rundir.TurnRow{FailedChecks: []string{"inconsistent_parameter_values", "prior_action_failed"}, FieldScores: []rundir.FieldScoreRow{sem(0.495, 0.5)}}, []int{0, 0, 0, 0}, []int{1, 1, 1, 1}},
		{"judged: its threshold does not move", rundir.TurnRow{Pass: true, FieldScores: []rundir.FieldScoreRow{judged}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
		{"missing turn", rundir.TurnRow{FailedChecks: []string{"missing_turn"}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
		{"reply: a clause just below, coverage follows", rundir.TurnRow{Kind: "response", FailedChecks: []string{"incomplete_response"},
			FieldScores: []rundir.FieldScoreRow{sem(0.9, 0.5), coverage(0.5, 1)},
			Clauses:     []rundir.ClauseRow{clause(0.485, 0.5, true), clause(0.9, 0.5, true)}}, []int{0, 0, 0, 0}, []int{0, 1, 1, 1}},
		{"reply: a clause lacks its anchors", rundir.TurnRow{Kind: "response", FailedChecks: []string{"incomplete_response"},
			FieldScores: []rundir.FieldScoreRow{sem(0.9, 0.5), coverage(0.5, 1)},
			Clauses:     []rundir.ClauseRow{clause(0.48, 0.5, true), clause(0.9, 0.5, false)}}, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newMarginAcc()
			a.turn(&tc.turn)
			m := a.result()
			for i, s := range m.Shifts {
				if s.Fail != tc.fail[i] || s.Pass != tc.pass[i] {
					t.Errorf("delta %v: %d fail, %d pass; want %d, %d", s.Delta, s.Fail, s.Pass, tc.fail[i], tc.pass[i])
				}
			}
		})
	}
}

// TestMarginBins checks the histogram and near counts of one entry.
func TestMarginBins(t *testing.T) {
	a := newMarginAcc()
	for _, d := range []float64{-0.5, -0.015, 0.005, 0.005, 0.03, 0.5} {
		a.add(&rundir.FieldScoreRow{Score: 0.6 + d, Threshold: 0.6, ThresholdFrom: "fields.t.a.x", Pass: d >= 0, Method: metrics.MethodSemantic})
	}
	m := a.result()
	if len(m.Entries) != 1 {
		t.Fatalf("entries %+v", m.Entries)
	}
	e := m.Entries[0]
	if e.From != "fields.t.a.x" || e.Threshold != 0.6 || e.Compared != 6 || e.Passed != 4 || e.Below != 1 || e.Above != 1 {
		t.Errorf("entry %+v", e)
	}
	if got := e.Bins[14] + e.Bins[15]; got != 3 { // [-0.02, 0) and [0, 0.02)
		t.Errorf("bins around 0 hold %d, want 3: %v", got, e.Bins)
	}
	if !slices.Equal(e.Near, []int{2, 3, 4, 4}) {
		t.Errorf("near = %v, want [2 3 4 4]", e.Near)
	}
}

// TestExplorerPicks checks that the explorer holds exactly the worst
// dialogs, in order, plus the named ones, and reports unknown names.
func TestExplorerPicks(t *testing.T) {
	dir := scoreRun(t, generated(t, 200, 5), metrics.DefaultConfig())
	rd, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var all []rundir.DialogRow
	for d, err := range rd.Dialogs(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d)
	}
	rd.Close()
	order := slices.Clone(all)
	slices.SortStableFunc(order, func(a, b rundir.DialogRow) int {
		switch {
		case a.Score != b.Score:
			return map[bool]int{true: -1, false: 1}[a.Score < b.Score]
		case a.RootCauseCount != b.RootCauseCount:
			return int(b.RootCauseCount - a.RootCauseCount)
		}
		return 0
	})
	named := all[len(all)/2].DialogID
	rep := build(t, dir, Options{Worst: 7, Dialogs: []string{named, "no-such-dialog"}, Causes: 1, Examples: 1})
	for i := range 7 {
		if rep.Explorer[i].DialogID != order[i].DialogID || !rep.Explorer[i].Worst {
			t.Errorf("explorer[%d] = %s, want worst #%d %s", i, rep.Explorer[i].DialogID, i+1, order[i].DialogID)
		}
	}
	if !slices.ContainsFunc(rep.Explorer, func(d Dialog) bool { return d.DialogID == named && d.Named }) {
		t.Errorf("named dialog %s not in the explorer", named)
	}
	if !slices.Equal(rep.Missing, []string{"no-such-dialog"}) {
		t.Errorf("missing = %v", rep.Missing)
	}
	ex := rep.Causes[0].Examples[0]
	if !slices.ContainsFunc(rep.Explorer, func(d Dialog) bool { return d.DialogID == ex.DialogID }) {
		t.Errorf("the first cause's example %s is not in the explorer", ex.DialogID)
	}
	if len(rep.Explorer) > 7+1+1 {
		t.Errorf("explorer holds %d dialogs, want at most 9", len(rep.Explorer))
	}
	for _, d := range rep.Explorer {
		if len(d.Turns) == 0 {
			t.Errorf("dialog %s has no turns", d.DialogID)
		}
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, o := range []Options{{Worst: -1}, {Causes: -2}, {MaxText: -1}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
}

// addUsage gives a lexical run's summary.json the embedding and judge
// blocks an embedding run with a judge writes, so that the page's figures
// of them are checked too.
func addUsage(t *testing.T, dir string) {
	t.Helper()
	s, err := rundir.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Embedding = &rundir.EmbeddingUsage{ScoredTurns: 24, StringsEmbedded: 61, StringsPerScoredTurn: 61.0 / 24,
		EmbeddedByKind: map[string]int64{"values": 20, "replies": 11, "clauses": 30}, MemoHits: 5, CacheHits: 2,
		DecidedWithoutModel: map[string]int64{"exact": 40, "typed": 3}, Sessions: 2, Threads: 1, BatchTokens: 2048, ModelCalls: 3, Tokens: 900, PaddedTokens: 1200, ModelSeconds: 0.0421}
	s.Judge = &rundir.JudgeSummary{Semantic: 30, Escalated: 9, Decided: 8, Errors: 1, EscalatedShare: 0.3,
		Usage: &rundir.JudgeUsage{Compared: 30, Escalated: 9, Calls: 10, Retries: 1, PromptTokens: 3000, CompletionTokens: 200}}
	if err := rundir.WriteSummary(dir, s, nil); err != nil {
		t.Fatal(err)
	}
}

// TestOldRuns builds the report of run directories written by an earlier
// aem (rundir/testdata/v1: before the trial columns; its trials run
// carries a trial in the turns' extra columns only).
func TestOldRuns(t *testing.T) {
	for _, name := range []string{"plain", "trials"} {
		t.Run(name, func(t *testing.T) {
			rep := build(t, filepath.Join("..", "..", "rundir", "testdata", "v1", name), Options{})
			if rep.Turns != rep.Summary.Turns || rep.Dialogs != rep.Summary.Dialogs || len(rep.Explorer) == 0 {
				t.Errorf("read %d turns, %d dialogs (summary %d, %d), %d in the explorer", rep.Turns, rep.Dialogs, rep.Summary.Turns, rep.Summary.Dialogs, len(rep.Explorer))
			}
			if _, b := page(t, rep); len(b) == 0 {
				t.Error("empty page")
			}
		})
	}
}

// TestWritePNGs writes every chart of a generated run's report as a PNG
// that decodes, at the size of its SVG.
func TestWritePNGs(t *testing.T) {
	rep := build(t, scoreRun(t, generated(t, 120, 2), metrics.DefaultConfig()), Options{})
	dir := filepath.Join(t.TempDir(), "charts")
	paths, err := WritePNGs(dir, rep)
	if err != nil {
		t.Fatal(err)
	}
	figs := Figures(rep)
	if len(paths) != len(figs) || len(paths) != 6 {
		t.Fatalf("wrote %v for %d figures, want 6", paths, len(figs))
	}
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() != int(figs[i].Figure.Width) || b.Dy() != int(figs[i].Figure.Height) || filepath.Base(p) != figs[i].Name+".png" {
			t.Errorf("%s: %v, want %vx%v named %s", p, b, figs[i].Figure.Width, figs[i].Figure.Height, figs[i].Name)
		}
	}
}
