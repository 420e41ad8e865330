package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/batch/predictions"
	"github.com/aem-dev/aem/batch/rundir"
	"github.com/aem-dev/aem/batch/safefile"
	"github.com/aem-dev/aem/metrics/trials"
)

// trialsFile is written into a run directory whose dialogs are repeated
// trials of tasks: each task's pass@k, pass^k and whether it is flaky (the
// run's figures are in summary.json's "trials").
const trialsFile = "trials.json"

// writeTrials writes runDir/trials.json from the run's dialogs (test_pass)
// and each dialog's task and trial from the join.
func writeTrials(ctx context.Context, runDir string, j *predictions.Joiner) error {
	rd, err := rundir.Open(ctx, runDir, rundir.OpenOptions{})
	if err != nil {
		return err
	}
	defer rd.Close()
	var outcomes []trials.Outcome
	for dr, err := range rd.Dialogs(ctx) {
		if err != nil {
			return err
		}
		if task, trial, ok := j.TaskOf(dr.DialogID); ok {
			outcomes = append(outcomes, trials.Outcome{Task: task, Trial: trial, Pass: dr.TestPass})
		}
	}
	b, err := json.MarshalIndent(struct {
		Tasks []trials.Task `json:"tasks"`
	}{trials.PerTask(outcomes)}, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Join(runDir, trialsFile), append(b, '\n'))
}

// printTrials prints the headline reliability figures.
func printTrials(w io.Writer, s *trials.Summary) {
	fmt.Fprintf(w, "trials: %d tasks, k=%d; pass^k %s; pass@k %s; flaky tasks %d (%.3f)\n",
		s.Tasks, s.K, series(s.PassHat), series(s.PassAt), s.Flaky, s.FlakyShare)
}

func series(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("k=%d %.3f", i+1, x)
	}
	return strings.Join(parts, ", ")
}

// compareTrials appends pass^k between releases to the compare report's
// Markdown, when every run's summary has trials.
func compareTrials(ctx context.Context, w io.Writer, dirs []string) error {
	sums := make([]*trials.Summary, len(dirs))
	for i, d := range dirs {
		rd, err := rundir.Open(ctx, d, rundir.OpenOptions{})
		if err != nil {
			return err
		}
		sums[i] = rd.Summary.Trials
		rd.Close()
		if sums[i] == nil {
			return nil
		}
	}
	k := sums[0].K
	for _, s := range sums {
		k = min(k, s.K)
	}
	fmt.Fprintf(w, "\n## Reliability over trials\n\npass^k: every one of k trials of a task passes (τ-bench); pass@k: at least one does.\n\n| k |")
	for _, d := range dirs {
		fmt.Fprintf(w, " %s pass^k | %s pass@k |", d, d)
	}
	fmt.Fprintf(w, " Δ pass^k (last - first) |\n|---|")
	for range dirs {
		fmt.Fprintf(w, "---|---|")
	}
	fmt.Fprintf(w, "---|\n")
	for i := range k {
		fmt.Fprintf(w, "| %d |", i+1)
		for _, s := range sums {
			fmt.Fprintf(w, " %.3f | %.3f |", s.PassHat[i], s.PassAt[i])
		}
		fmt.Fprintf(w, " %+.3f |\n", sums[len(sums)-1].PassHat[i]-sums[0].PassHat[i])
	}
	fmt.Fprintf(w, "\nflaky tasks:")
	for i, s := range sums {
		fmt.Fprintf(w, " %s %d/%d (%.3f)", dirs[i], s.Flaky, s.Tasks, s.FlakyShare)
	}
	fmt.Fprintln(w)
	return nil
}
