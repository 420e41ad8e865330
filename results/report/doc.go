// Package report builds the run report: one self-contained HTML page
// (inline CSS, SVG charts, a few lines of script; nothing fetched) that an
// evaluation lead reads after a run, and its charts as PNG files.
//
// [Build] reads a run directory through package rundir in one
// streaming pass, turns.parquet beside dialogs.parquet, and computes a
// [Report]: the headline from summary.json; correctness by sub-metric,
// turn kind, action-chain bucket and tool/action; failure reasons split
// into root causes and cascades; root-cause classes (a reason at a tool,
// action and parameter) ranked by the failures they explain, a root and
// its cascades counting together; latency against correctness; how the
// scorer's decisive scores sit around their thresholds and how many turn
// verdicts a small threshold move would flip; and the dialog explorer's
// rows: the Options.Worst lowest-scoring dialogs, the dialogs named in
// Options.Dialogs and the first examples of each root-cause class.
//
// Memory is bounded: aggregates are counts per group (tools, classes,
// threshold entries, fixed latency and margin bins), and only the
// explorer's dialogs keep their rows, with texts shortened.
//
// [WriteHTML] renders the page with html/template; [Figures] gives its
// charts (package chart) for [WritePNGs]. Every figure the page shows
// that summary.json also holds carries a data-sum attribute naming its
// path there, which the golden test checks.
package report
