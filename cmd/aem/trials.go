package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/aem-dev/aem/metrics/trials"
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
