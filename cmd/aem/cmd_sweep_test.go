package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/results/sweepio"
	"github.com/aem-dev/aem/rundir"
)

func TestSweepFlags(t *testing.T) {
	var o sweepOptions
	fs := newFlagSet("sweep")
	o.addFlags(fs)
	pos, err := parseInterspersed(fs.flags, []string{"out", "--objective", "recall@0.9", "-o", "cal", "--folds", "3", "--seed", "7", "--bootstrap", "50", "--labels", "l.csv", "--binarize-at", "4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pos) != 1 || pos[0] != "out" || o.out != "cal" || o.labels != "l.csv" {
		t.Errorf("options %+v positional %v", o, pos)
	}
	opts, err := o.calibration()
	if err != nil || opts.Objective != (sweep.Objective{Name: "recall", Target: 0.9}) || opts.Folds != 3 || opts.Seed != 7 || opts.Bootstrap != 50 || opts.BinarizeAt != 4 {
		t.Errorf("calibration options %+v, %v", opts, err)
	}
	o.noCV = true
	if opts, _ := o.calibration(); opts.Folds != 0 {
		t.Errorf("--no-cv kept %d folds", opts.Folds)
	}
	for _, bad := range []sweepOptions{{objective: "auc", folds: 5, level: 0.95, minLabels: 30, minPerClass: 5},
		{objective: "f1", folds: 1, level: 0.95, minLabels: 30, minPerClass: 5},
		{objective: "f1", folds: 5, level: 0.95, minLabels: 30, minPerClass: 5, binarizeAt: "high"}} {
		if _, err := bad.calibration(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

func runSweepCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	return runSweepCmdEnv(t, func(string) string { return "" }, args...)
}

func runSweepCmdEnv(t *testing.T, getenv func(string) string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: getenv}
	err = runCommand(context.Background(), env, cmdSweep(), args)
	return out.String(), errb.String(), err
}

func writeSweepRun(t *testing.T, oneClass bool) string {
	return writeLabelledRun(t, func(s float64, r *rand.Rand) bool { return s >= 0.55 || oneClass })
}

// writeLabelledRun writes a run of 30 dialogs of 4 action turns whose
// similarity s is uniform and whose human label is label(s).
func writeLabelledRun(t *testing.T, label func(s float64, r *rand.Rand) bool) string {
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	tool, action := "crm", "find"
	var rows []rundir.TurnRow
	for d := range 30 {
		for k := int64(1); k <= 4; k++ {
			s := r.Float64()
			label := label(s, r)
			rows = append(rows, rundir.TurnRow{DialogID: fmt.Sprintf("d%02d", d), TurnNo: k, Kind: "action", Role: "Tool", Pass: s >= 0.5,
				Structure: "pass", GoldToolID: &tool, GoldAction: &action, HumanLabel: &label, Scorer: "lexical",
				FieldScores: []rundir.FieldScoreRow{{Field: "crm.find.city", Method: "semantic", Score: s, Threshold: 0.5, Pass: s >= 0.5}}})
		}
	}
	if _, err := rundir.WriteRows(dir, rundir.Summary{Scorer: "lexical"}, rows, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSweepCommandRun(t *testing.T) {
	dir := writeSweepRun(t, false)
	stdout, stderr, err := runSweepCmd(t, dir, "--bootstrap", "100")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"120 labelled samples from 30 dialogs", "cross-validated (5 folds", "threshold", "f1", "roc_auc", "verdict kappa", "truthfulness.values", "thresholds.json, sweep.png, sweep.svg, summary.json into " + filepath.Join(dir, "sweep")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{sweepio.SweepFile, sweepio.ThresholdsFile, sweepio.SummaryFile, sweepio.PlotPNG, sweepio.PlotSVG} {
		if _, err := os.Stat(filepath.Join(dir, "sweep", f)); err != nil {
			t.Error(err)
		}
	}
	t.Log("\n" + stdout)
}

func TestSweepCommandWeak(t *testing.T) {
	// Labels independent of the scores: the fit is no better than chance.
	dir := writeLabelledRun(t, func(_ float64, r *rand.Rand) bool { return r.Float64() < 0.7 })
	stdout, stderr, err := runSweepCmd(t, dir, "--bootstrap", "0")
	if !errors.Is(err, sweep.ErrWeak) || errorStatus(err) != exitWeak {
		t.Fatalf("err = %v (status %d), want ErrWeak (status %d)\n%s", err, errorStatus(err), exitWeak, stderr)
	}
	if !strings.Contains(stderr, "no better than a trivial rule") || !strings.Contains(stdout, "wrote ") {
		t.Errorf("stderr %q\nstdout %q", stderr, stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, "sweep", sweepio.SummaryFile))
	if err != nil || !strings.Contains(string(b), `"warning": "the fit is no better than a trivial rule`) {
		t.Errorf("summary.json: %v\n%s", err, b)
	}
	if _, stderr, err = runSweepCmd(t, dir, "--bootstrap", "0", "--accept-weak"); err != nil || !strings.Contains(stderr, "no better than a trivial rule") {
		t.Errorf("--accept-weak: %v; stderr %q", err, stderr)
	}
}

// TestSweepFewLabelsReview: on a handful of labels sweep exits 5 and its
// advice names an aem review command that works as given and exports the
// comparisons inside the threshold's interval.
func TestSweepFewLabelsReview(t *testing.T) {
	n := 0
	dir := writeLabelledRun(t, func(s float64, _ *rand.Rand) bool { return s >= 0.55 })
	keep := writeRunWithLabels(t, dir, func(*rundir.TurnRow) bool { // the first 10 labels
		n++
		return n <= 10
	})
	_, stderr, err := runSweepCmd(t, keep, "--bootstrap", "200")
	if !errors.Is(err, sweep.ErrFewLabels) || errorStatus(err) != exitWeak {
		t.Fatalf("err = %v (status %d), want ErrFewLabels (status %d)\n%s", err, errorStatus(err), exitWeak, stderr)
	}
	m := regexp.MustCompile(`aem review (\S+) --band (\S+) --html review.html`).FindStringSubmatch(stderr)
	if m == nil || m[1] != keep {
		t.Fatalf("no aem review command for %s in\n%s", keep, stderr)
	}
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	reviewFile := filepath.Join(t.TempDir(), "review.jsonl")
	if err := runCommand(context.Background(), env, cmdReview(), []string{m[1], "--band", m[2], "-o", reviewFile}); err != nil {
		t.Fatalf("aem review %s --band %s: %v\n%s", m[1], m[2], err, errb.String())
	}
	if !regexp.MustCompile(`wrote [1-9][0-9]* items`).MatchString(out.String()) {
		t.Errorf("aem review --band %s exported nothing:\n%s", m[2], out.String())
	}
}

// writeRunWithLabels rewrites the run in dir into a new one in which only
// the turns keep accepts keep their human label, each turn with the texts
// its field compared.
func writeRunWithLabels(t *testing.T, dir string, keep func(*rundir.TurnRow) bool) string {
	t.Helper()
	rd, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var rows []rundir.TurnRow
	for row, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		if !keep(&row) {
			row.HumanLabel = nil
		}
		// The texts compared, for aem review to show.
		gold, pred := `{"city": "Boston"}`, fmt.Sprintf(`{"city": "Boston %d"}`, len(rows))
		row.GoldArgs, row.PredictArgs = &gold, &pred
		rows = append(rows, row)
	}
	out := t.TempDir()
	if _, err := rundir.WriteRows(out, rundir.Summary{Scorer: "lexical"}, rows, nil); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestSweepCommandFitPairs(t *testing.T) {
	// Paraphrases pass; copies with one number changed, lexically closer
	// to the original than the paraphrases, fail.
	var b strings.Builder
	b.WriteString("text_a\ttext_b\tlabel\n")
	r := rand.New(rand.NewPCG(3, 3))
	for i := range 120 {
		a := fmt.Sprintf("The order %d ships on day %d with %d items", 1000+i, 1+r.IntN(28), 1+r.IntN(9))
		pred, label := strings.Replace(strings.Replace(a, "The order", "Order", 1), "ships on", "is shipped by", 1), 1
		if i%3 == 0 {
			pred, label = a[:len(a)-1]+"0", 0
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\n", a, pred, label)
	}
	pairs := filepath.Join(t.TempDir(), "pairs.tsv")
	if err := os.WriteFile(pairs, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "cal")
	stdout, stderr, err := runSweepCmd(t, "--pairs", pairs, "--scorer", "lexical", "--fit", "-o", out, "--bootstrap", "0")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "scored by composite") || !strings.Contains(stdout, "cosine only") {
		t.Errorf("output:\n%s", stdout)
	}
	var sum struct {
		ScoredBy   string `json:"scored_by"`
		Accuracy   struct{ Value float64 }
		CosineOnly struct{ Accuracy struct{ Value float64 } } `json:"cosine_only"`
		Composite  struct {
			Features []string              `json:"features"`
			HeldOut  struct{ Samples int } `json:"held_out"`
		}
	}
	data, _ := os.ReadFile(filepath.Join(out, sweepio.SummaryFile))
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.ScoredBy != "composite" || sum.Composite.HeldOut.Samples != 120 || len(sum.Composite.Features) == 0 || sum.Accuracy.Value <= sum.CosineOnly.Accuracy.Value {
		t.Errorf("summary: %+v", sum)
	}
	t.Log("\n" + stdout)
}

func TestSweepCommandPairs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cal")
	stdout, _, err := runSweepCmd(t, "--pairs", "../../results/sweepio/testdata/stsb-sample.tsv", "--scorer", "lexical", "-o", out, "--bootstrap", "0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "correlation only") || !strings.Contains(stdout, "spearman") || !strings.Contains(stdout, "scorer lexical") {
		t.Errorf("output:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, sweepio.ThresholdsFile)); !os.IsNotExist(err) {
		t.Errorf("graded-only pairs wrote a thresholds file: %v", err)
	}
}

func TestSweepCommandErrors(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		usage bool
		want  error
	}{
		{"no run dir", nil, true, nil},
		{"run dir and pairs", []string{"x", "--pairs", "p.csv"}, true, nil},
		{"bad objective", []string{"x", "--objective", "auc"}, true, nil},
		{"output to a URL", []string{"x", "-o", "s3://bucket/sweep"}, true, nil},
		{"incomplete remote run", []string{"file://" + filepath.ToSlash(t.TempDir())}, false, rundir.ErrIncomplete},
		{"not a run", []string{t.TempDir()}, false, rundir.ErrIncomplete},
		{"one class", []string{writeSweepRun(t, true)}, false, sweep.ErrOneClass},
		{"unknown scorer", []string{"--pairs", "../../results/sweepio/testdata/pairs.csv", "--scorer", "magic", "-o", t.TempDir()}, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runSweepCmd(t, tc.args...)
			var ue *usageError
			if err == nil || errors.As(err, &ue) != tc.usage || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v (usage %v), want usage %v / %v", err, errors.As(err, &ue), tc.usage, tc.want)
			}
			if tc.want != nil && errorStatus(err) != exitInvalidRows {
				t.Errorf("exit status %d, want %d (invalid input)", errorStatus(err), exitInvalidRows)
			}
		})
	}
}

// TestSweepSTSB is the end-to-end check on the STS Benchmark dev set. It
// runs only when AEM_TEST_STSB names the file (it embeds 3000 sentences):
//
//	AEM_TEST_STSB=/work/shared/data/stsb-dev/sts-dev.csv go test -run STSB -v ./cmd/aem/
func TestSweepSTSB(t *testing.T) {
	file := os.Getenv("AEM_TEST_STSB")
	if file == "" {
		t.Skip("set AEM_TEST_STSB to the STS-B dev file to run")
	}
	scorer := os.Getenv("AEM_TEST_STSB_SCORER")
	if scorer == "" {
		scorer = "embed"
	}
	if wd, _ := os.Getwd(); os.Getenv("AEM_HOME") == "" {
		t.Setenv("AEM_HOME", filepath.Join(wd, "..", "..", ".aem"))
	}
	out := os.Getenv("AEM_TEST_STSB_OUT") // keep the outputs to look at
	if out == "" {
		out = t.TempDir()
	}
	stdout, stderr, err := runSweepCmdEnv(t, os.Getenv, "--pairs", file, "--scorer", scorer, "--binarize-at", "4", "--no-cache", "-o", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Log("\n" + stdout + stderr)
}
