package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/batch/sweepio"
	"github.com/aem-dev/aem/metrics/sweep"
)

func TestSweepFlags(t *testing.T) {
	var o sweepOptions
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	o.addFlags(fs)
	pos, err := parseInterspersed(fs, []string{"out", "--objective", "recall@0.9", "-o", "cal", "--folds", "3", "--seed", "7", "--bootstrap", "50", "--labels", "l.csv", "--binarize-at", "4"})
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
	t.Helper()
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	tool, action := "crm", "find"
	var rows []batch.TurnRow
	for d := range 30 {
		for k := int64(1); k <= 4; k++ {
			s := r.Float64()
			label := s >= 0.55 || oneClass
			rows = append(rows, batch.TurnRow{DialogID: fmt.Sprintf("d%02d", d), TurnNo: k, Kind: "action", Role: "Tool", Pass: s >= 0.5,
				Structure: "pass", GoldToolID: &tool, GoldAction: &action, HumanLabel: &label, Scorer: "lexical",
				FieldScores: []batch.FieldScoreRow{{Field: "crm.find.city", Method: "semantic", Score: s, Threshold: 0.5, Pass: s >= 0.5}}})
		}
	}
	if err := parquet.WriteFile(filepath.Join(dir, batch.TurnsFile), rows); err != nil {
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
	for _, want := range []string{"120 labelled samples from 30 groups", "cross-validated (5 folds", "threshold", "f1", "roc_auc", "verdict kappa", "truthfulness.values", "thresholds.json, sweep.png, sweep.svg, summary.json into " + filepath.Join(dir, "sweep")} {
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

func TestSweepCommandPairs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cal")
	stdout, _, err := runSweepCmd(t, "--pairs", "../../batch/sweepio/testdata/stsb-sample.tsv", "--scorer", "lexical", "-o", out, "--bootstrap", "0")
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
		{"incomplete remote run", []string{"file://" + filepath.ToSlash(t.TempDir())}, false, batch.ErrIncompleteRun},
		{"not a run", []string{t.TempDir()}, false, sweepio.ErrRun},
		{"one class", []string{writeSweepRun(t, true)}, false, sweep.ErrOneClass},
		{"unknown scorer", []string{"--pairs", "../../batch/sweepio/testdata/pairs.csv", "--scorer", "magic", "-o", t.TempDir()}, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runSweepCmd(t, tc.args...)
			var ue *usageError
			if err == nil || errors.As(err, &ue) != tc.usage || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("err = %v (usage %v), want usage %v / %v", err, errors.As(err, &ue), tc.usage, tc.want)
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
