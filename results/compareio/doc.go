// Package compareio reads the run directories written by `aem run`
// (turns.parquet, dialogs.parquet, summary.json) into compare.Run values,
// and writes the results of package metrics/compare: compare.json
// (everything, machine-readable), compare.parquet (the paired turns with
// both verdicts), compare.md (the Markdown report a person reads in a pull
// request) and compare.html (the same with plots as inline SVG). When
// every run has repeated trials, compare.md ends with their pass^k, pass@k
// and flaky tasks (from each summary's trials), as the Markdown on stdout
// does.
//
// Every output file is written to a temporary name, synced and renamed,
// so a reader never sees a half-written file; compare.json is renamed
// last, so its presence means the set is complete.
//
// Runs are identified by their directory path as given (cleaned). Their
// identity for the comparability check is the summary's Scorer, Dataset,
// Thresholds (in canonical JSON, without the informative Model and Source
// fields) and Settings (cascade policy, composition, numeric tolerance;
// not the column mapping or the shard).
package compareio
