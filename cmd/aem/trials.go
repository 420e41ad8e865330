package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aem-dev/aem/internal/markdown"
	"github.com/aem-dev/aem/metrics/trials"
	"github.com/aem-dev/aem/rundir"
)

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
		fmt.Fprintf(w, " %s pass^k | %s pass@k |", markdown.CodeCell(d), markdown.CodeCell(d))
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
		fmt.Fprintf(w, " %s %d/%d (%.3f)", markdown.Code(dirs[i]), s.Flaky, s.Tasks, s.FlakyShare)
	}
	fmt.Fprintln(w)
	return nil
}
