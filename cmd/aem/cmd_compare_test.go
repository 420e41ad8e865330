package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/results/compareio"
	"github.com/aem-dev/aem/rundir"
)

func TestCompareFlags(t *testing.T) {
	var o compareOptions
	fs := newFlagSet("compare")
	o.addFlags(fs)
	pos, err := parseInterspersed(fs.flags, []string{"runs/v1", "--margin", "0.02", "runs/v2", "-o", "out", "--fail-on-regression", "--seed", "7", "--allow-mismatch", "--alpha", "0.01", "--bootstrap", "500"})
	if err != nil {
		t.Fatal(err)
	}
	want := compareOptions{out: "out", allowMismatch: true, failOnRegression: true, margin: 0.02, alpha: 0.01, seed: 7, bootstrap: 500, permutations: 10000}
	if o != want || len(pos) != 2 || pos[0] != "runs/v1" || pos[1] != "runs/v2" {
		t.Errorf("options %+v positional %v", o, pos)
	}
	if got := o.options(); got.Margin != 0.02 || got.Seed != 7 || !got.AllowMismatch || got.Validate() != nil {
		t.Errorf("compare options %+v", got)
	}
}

// writeCompareRun writes a run of n five-turn dialogs; in every fifth
// dialog starting at failFrom (if >= 0) turn 2 picks the wrong tool.
func writeCompareRun(t *testing.T, dir string, n, failFrom int) string {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	var turns []rundir.TurnRow
	var dialogs []rundir.DialogRow
	for d := range n {
		id := fmt.Sprintf("d%03d", d)
		dr := rundir.DialogRow{DialogID: id, TurnCount: 5, TestPass: true, Score: 1, SuccessRate: 1}
		for tn := int64(1); tn <= 5; tn++ {
			tr := rundir.TurnRow{DialogID: id, TurnNo: tn, Kind: "response", Structure: "n/a", Completeness: "pass", Truthfulness: "pass", Pass: true}
			if tn <= 2 {
				tool, action := "sales", "report"
				tr.Kind, tr.Structure, tr.GoldToolID, tr.GoldAction = "action", "pass", &tool, &action
			}
			if failFrom >= 0 && d%5 == failFrom && tn == 2 {
				reason := "tool_mismatch"
				tr.Pass, tr.FailureReason, tr.RootCause, tr.Structure = false, &reason, true, "fail"
				dr.TestPass, dr.Score, dr.SuccessRate = false, 0.8, 0.8
			}
			turns = append(turns, tr)
		}
		dialogs = append(dialogs, dr)
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.TurnsFile), turns); err != nil {
		t.Fatal(err)
	}
	if err := parquet.WriteFile(filepath.Join(dir, rundir.DialogsFile), dialogs); err != nil {
		t.Fatal(err)
	}
	sum, _ := json.Marshal(rundir.Summary{Version: 1, Scorer: "lexical", Dataset: "sha256:x", Turns: len(turns), Dialogs: len(dialogs)})
	if err := os.WriteFile(filepath.Join(dir, rundir.SummaryFile), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runCompareArgs(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	err = runCommand(context.Background(), env, cmdCompare(), append(args, "--bootstrap", "200", "--permutations", "200"))
	return out.String(), errb.String(), err
}

func TestCompareCommand(t *testing.T) {
	root := t.TempDir()
	base := writeCompareRun(t, filepath.Join(root, "v1"), 100, -1)
	worse := writeCompareRun(t, filepath.Join(root, "v2"), 100, 0) // 20 new root-cause failures
	tests := []struct {
		name     string
		args     []string
		wantErr  error
		inStdout string
	}{
		{"regression reported, no gating", []string{base, worse}, nil, "Regression gate: FAILED"},
		{"regression gates", []string{base, worse, "--fail-on-regression"}, compare.ErrRegression, "Regression gate: FAILED"},
		{"within the margin", []string{base, worse, "--fail-on-regression", "--margin", "0.2"}, nil, "Regression gate: passed"},
		{"improvement passes", []string{worse, base, "--fail-on-regression"}, nil, "▲ improved"},
		{"same run passes", []string{base, base + "/", "--fail-on-regression"}, nil, "0 turns regressed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, _, err := runCompareArgs(t, tt.args...)
			if tt.wantErr == nil && err != nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !strings.Contains(stdout, tt.inStdout) {
				t.Errorf("stdout lacks %q:\n%s", tt.inStdout, stdout)
			}
		})
	}
}

func TestCompareCommandOutputs(t *testing.T) {
	root := t.TempDir()
	base := writeCompareRun(t, filepath.Join(root, "v1"), 20, -1)
	cand := writeCompareRun(t, filepath.Join(root, "v2"), 20, 1)
	out := filepath.Join(root, "cmp")
	_, stderr, err := runCompareArgs(t, base, cand, "-o", out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{compareio.JSONFile, compareio.ParquetFile, compareio.MarkdownFile, compareio.HTMLFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	if !strings.Contains(stderr, "wrote") {
		t.Errorf("stderr %q", stderr)
	}
}

func TestCompareCommandErrors(t *testing.T) {
	root := t.TempDir()
	base := writeCompareRun(t, filepath.Join(root, "v1"), 5, -1)
	var ue *usageError
	if _, _, err := runCompareArgs(t, base); !errors.As(err, &ue) {
		t.Errorf("one run: err = %v, want a usage error", err)
	}
	if _, _, err := runCompareArgs(t, base, base, "--alpha", "0"); !errors.As(err, &ue) {
		t.Errorf("alpha 0: err = %v, want a usage error", err)
	}
	missing := filepath.Join(root, "nope")
	if _, _, err := runCompareArgs(t, base, missing); !errors.Is(err, rundir.ErrNotRun) || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: err = %v", err)
	}
	other := writeCompareRun(t, filepath.Join(root, "v2"), 5, -1)
	sum, _ := json.Marshal(rundir.Summary{Version: 1, Scorer: "embed:use-lite", Dataset: "sha256:x", Turns: 25, Dialogs: 5})
	os.WriteFile(filepath.Join(other, rundir.SummaryFile), sum, 0o644)
	if _, _, err := runCompareArgs(t, base, other); !errors.Is(err, compare.ErrMismatch) {
		t.Errorf("mismatch: err = %v", err)
	}
	if stdout, _, err := runCompareArgs(t, base, other, "--allow-mismatch"); err != nil || !strings.Contains(stdout, "--allow-mismatch") {
		t.Errorf("allowed mismatch: err = %v", err)
	}
}
