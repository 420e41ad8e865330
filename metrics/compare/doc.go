// Package compare compares two or more runs of `aem run` made on the same
// golden dataset: it pairs their turns on (dialog_id, turn_no), measures
// the difference in correctness overall, per sub-metric, per action-chain
// bucket, per tool/action and per failure reason, says whether each
// difference is real or noise, lists the turns that regressed or were
// fixed, and decides whether a candidate release fails the regression gate.
//
// The package is pure: it does no I/O, knows nothing of Parquet or the
// file system, and is deterministic: the same runs and Options (including
// Seed) give the same Report, byte for byte once encoded. Reading run
// directories and writing reports live in results/compareio.
//
// # Statistics
//
// Every compared quantity is a share of "units" (paired turns, or dialogs
// for the dialog pass rate) for which an indicator holds, measured in the
// base run and in the candidate run on the same units. For each such Stat:
//
//   - Diff is candidate minus base.
//   - CI is a percentile bootstrap interval of Diff at level 1-Alpha,
//     resampling whole dialogs with replacement (turns of one dialog are
//     correlated, cascades especially, so resampling turns would make the
//     interval too narrow). Each Stat has its own random stream, seeded
//     from Options.Seed and the Stat's name, so results do not depend on
//     which other Stats are computed or in which order.
//   - P is the exact two-sided McNemar test on the discordant units: with
//     b units that got worse and c that got better, P = min(1, 2·P[X ≤
//     min(b,c)]) for X ~ Binomial(b+c, 1/2); P = 1 when b+c = 0.
//
// Sub-metric Stats (structure, completeness and truthfulness, separately
// for action and response turns) count a turn only when the sub-metric was
// assessed ("pass" or "fail", not "n/a") in both runs, so a sub-metric
// skipped because an earlier check failed is not counted twice.
//
// Chain-bucket and tool/action Stats group paired turns by the base run's
// bucket and gold tool.action (the same in both runs when they share the
// golden dataset); an unexpected turn, which has no gold call, is grouped
// by its predicted call.
//
// Per-failure-reason Stats give the share of paired turns whose primary
// failure_reason is that reason; there a higher value is worse
// (HigherIsBetter is false). They also carry root-cause and cascade counts
// for each run. The "root_cause_free" Stat is the share of turns that are
// not root-cause failures: it moves by one when a new early error makes
// several later turns fail as cascades.
//
// # Failure-reason shift
//
// ReasonShift tests whether the failure-reason distribution of failed
// paired turns differs between the runs (for example tool_mismatch rising
// after a model swap). The statistic is Pearson's chi-square of
// homogeneity on the 2×K table of failure counts by primary reason. Its
// p-value is a sign-flip permutation test (PPermutation, the one used for
// Significant): under the null hypothesis the two runs' verdicts of a
// dialog are exchangeable, so each dialog's base and candidate verdicts
// are swapped, all its turns together, with probability 1/2 and the
// statistic recomputed, Options.Permutations times. Swapping whole dialogs
// respects both the pairing (the same turns appear in both rows) and the
// correlation of a root cause with its cascades, and needs no merging of
// sparse categories. (In the pure-noise simulation of TestNoiseCalibration,
// swapping single turns made 7.9% of comparisons significant at 0.05;
// swapping whole dialogs, 5.1%.) For reference
// PAsymptotic gives the classic p-value from the chi-square distribution
// with K-1 degrees of freedom, after merging categories with an expected
// count below 5 into "other" (Cochran's rule); it assumes independent
// turns, which paired runs are not, and is absent when too few failures
// remain.
//
// # Gating
//
// A comparison fails the gate (Gate.Failed) when the candidate is
// significantly worse than the base overall or on any sub-metric Stat
// (the gate family). A Stat in the gate family fails when both hold:
//
//  1. its McNemar p-value, Holm-adjusted across the gate family, is below
//     Alpha (Holm keeps the chance that any of the six tests fires on
//     pure noise at most Alpha, for independent turns), and
//  2. the upper end of its bootstrap CI of Diff is below -Margin: the
//     candidate is worse by more than the tolerated Margin with confidence
//     1-Alpha/2, allowing for dialog-level correlation.
//
// Both are needed. McNemar treats turns as independent, and they are not:
// in TestNoiseCalibration (1000 pairs of pure-noise runs of 150 dialogs,
// 20% of which fail at turn 2 with three cascades), the raw turn-level
// McNemar p of overall correctness was below 0.05 in 27.6% of
// comparisons, while the gate, which also needs the dialog-level
// bootstrap, failed in 3.1%.
//
// Other Stats get the same verdict rule with unadjusted p-values; they are
// exploratory and never gate. With several candidates, the report fails
// the gate when any candidate does (each is compared with the base, the
// first run).
package compare
