package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/batch/location"
	"github.com/aem-dev/aem/batch/predictions"
	"github.com/aem-dev/aem/batch/rundir"
	"github.com/aem-dev/aem/batch/safefile"
	"github.com/aem-dev/aem/metrics/trials"
)

// trialsFile is written into a run directory whose dialogs are repeated
// trials of tasks: reliability over trials (pass@k, pass^k, flaky tasks)
// overall and per task.
const trialsFile = "trials.json"

// trialsReport is trials.json.
type trialsReport struct {
	Summary trials.Summary `json:"summary"`
	Tasks   []trials.Task  `json:"tasks"`
}

// writeTrials computes reliability over the trials of the run in runDir
// (a local directory) from its dialogs' test_pass, with each dialog's task
// and trial from the join, writes runDir/trials.json and returns it.
func writeTrials(ctx context.Context, runDir string, j *predictions.Joiner) (trialsReport, error) {
	rd, err := rundir.Open(ctx, runDir, rundir.OpenOptions{})
	if err != nil {
		return trialsReport{}, err
	}
	defer rd.Close()
	var outcomes []trials.Outcome
	for dr, err := range rd.Dialogs(ctx) {
		if err != nil {
			return trialsReport{}, err
		}
		tt, ok := j.TaskOf(dr.DialogID)
		if !ok {
			return trialsReport{}, fmt.Errorf("dialog %q of %s was not given by the join", dr.DialogID, runDir)
		}
		outcomes = append(outcomes, trials.Outcome{Task: tt.Task, Trial: tt.Trial, Pass: dr.TestPass})
	}
	tasks := trials.PerTask(outcomes)
	rep := trialsReport{Summary: trials.Summarize(tasks), Tasks: tasks}
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return trialsReport{}, err
	}
	return rep, safefile.WriteFile(filepath.Join(runDir, trialsFile), append(b, '\n'))
}

// printTrials prints the headline reliability figures.
func printTrials(w io.Writer, s trials.Summary) {
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

// readTrials reads a run's trials.json; ok is false when the run has none
// (not scored from repeated trials, or not a local directory).
func readTrials(dir string) (trialsReport, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, trialsFile))
	if err != nil {
		if os.IsNotExist(err) || location.IsURL(dir) {
			return trialsReport{}, false, nil
		}
		return trialsReport{}, false, err
	}
	var rep trialsReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return trialsReport{}, false, fmt.Errorf("%s: %w", filepath.Join(dir, trialsFile), err)
	}
	return rep, true, nil
}

// compareTrials appends pass^k between releases to the compare report's
// Markdown, when every run has trials.json.
func compareTrials(w io.Writer, dirs []string) error {
	reps := make([]trialsReport, len(dirs))
	for i, d := range dirs {
		rep, ok, err := readTrials(d)
		if err != nil || !ok {
			return err
		}
		reps[i] = rep
	}
	k := reps[0].Summary.K
	for _, r := range reps {
		k = min(k, r.Summary.K)
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
		for _, r := range reps {
			fmt.Fprintf(w, " %.3f | %.3f |", r.Summary.PassHat[i], r.Summary.PassAt[i])
		}
		fmt.Fprintf(w, " %+.3f |\n", reps[len(reps)-1].Summary.PassHat[i]-reps[0].Summary.PassHat[i])
	}
	fmt.Fprintf(w, "\nflaky tasks:")
	for i, r := range reps {
		fmt.Fprintf(w, " %s %d/%d (%.3f)", dirs[i], r.Summary.Flaky, r.Summary.Tasks, r.Summary.FlakyShare)
	}
	fmt.Fprintln(w)
	return nil
}
