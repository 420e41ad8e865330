// Package sweep calibrates similarity thresholds against human labels: the
// logic of `aem sweep`, on in-memory data and free of I/O.
//
// The input is a list of Samples: a similarity score the scorer produced
// and the human judgement of it (a pass/fail label, a graded score, or
// both), with the group (dialog) it belongs to. Calibrate sweeps every
// candidate threshold (see stats.Sorted.Sweep), picks one by an Objective,
// estimates how well that choice generalises with k-fold cross-validation
// by group (the threshold is fitted on k-1 folds and scored on the held-out
// one; no dialog straddles folds), reports the spread of the per-fold
// thresholds and cluster-bootstrap confidence intervals (dialogs are
// resampled, not turns), fits per-sub-metric and per-field thresholds where
// there are enough labels, correlates scores with graded human scores, and
// measures the agreement (Cohen's kappa) of the automatic turn verdicts with
// the human ones. Result.Thresholds turns the fit into the metrics.Thresholds
// file that `aem run --thresholds` reads.
//
// The final threshold is fitted on all labelled samples; the held-out
// figures estimate how a threshold fitted this way performs on new dialogs.
// With Options.Folds < 2 the figures are in-sample (fitted and scored on the
// same rows) and Result.Evaluation says so.
//
// Calibrate is deterministic for a given Input and Options (the seed drives
// the fold split and the bootstrap) and safe for concurrent use.
package sweep
