// Package stats holds the pure statistics behind `aem sweep`: confusion
// matrices and the figures derived from them, a threshold sweep over every
// midpoint between distinct scores in one O(n log n) pass, ROC-AUC and
// average precision, Pearson, Spearman and Kendall tau-b correlations,
// Fisher-z and percentile confidence intervals, k-fold splitting by group
// and seeded bootstrap resampling by group.
//
// Conventions: a score s is predicted positive ("the same meaning") when
// s >= threshold, matching how `aem run` applies a threshold. A figure whose
// denominator is zero (precision with no predicted positives, say) is 0, as
// scikit-learn's zero_division=0. Counts are float64 so the same code serves
// weighted (bootstrap) data; unweighted counts are whole numbers.
//
// Everything here is deterministic, allocation-conscious and free of I/O;
// nothing keeps state between calls, so all functions are safe for
// concurrent use.
package stats
