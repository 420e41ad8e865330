// Package rundir owns the run directory that `aem run` writes and `aem
// show`, `aem sweep`, `aem compare`, `aem merge` and reports read: its
// files, their row types, the one projection of verdicts into rows
// (RowsOf) and back, the one writer, the one reader with its completeness
// rule, and merging the outputs of shards.
//
// # Layout
//
//	turns.parquet     one TurnRow per scored turn, in input order, then the
//	                  input's extra columns (TurnSchema)
//	dialogs.parquet   one DialogRow per dialog, in input order
//	summary.json      Summary: totals, settings, timings; written last, its
//	                  presence marks the directory complete
//	ordinals.parquet  sharded runs only: one OrdinalRow per dialog (input
//	                  position, gold digest), which Merge needs
//	.aem-run/         the checkpoint of an unfinished run (package batch)
//	.aem-lock         while a process writes the directory: its lock (flock),
//	                  holding the writer's pid
//
// # Claiming
//
// A writer of a run directory ([ClaimDir], which aem run and Merge call
// before anything else) checks what the directory holds and locks it: a
// directory that is not empty and not a run's, files derived from an
// earlier run there (report.html, review.jsonl, sweep/), and an input the
// writer would replace are refused with [ErrOutput], naming what is there
// and the fix; a directory another process writes is [ErrBusy], naming its
// pid. [CheckRemote] is the check for an object-store prefix, which has no
// lock; [CheckOutputFile] and [CheckOutputDir] keep the other commands'
// outputs off a run's files. The local-path logic lives here only.
//
// The Parquet files use zstd and real list and optional types, so DuckDB,
// pyarrow and Spark read them; rows are numbered from 0 as DuckDB's
// file_row_number.
//
// # Writing
//
// [Create] starts a [Writer] on a set of [Files]; [Writer.Add] appends one
// [Dialog] (its turns, its dialog row, its ordinal); [Writer.CommitData]
// renames the Parquet files into place (each was written under a temporary
// name through package safefile: fsync, rename, fsync the directory); then
// [WriteSummary] writes summary.json. A directory without summary.json is
// never read as a run. The bytes of turns.parquet and dialogs.parquet
// depend only on the row sequence (rows reach the Parquet writer in fixed
// batches), which is what makes resumed, merged and multi-worker runs
// byte-identical to a single uninterrupted one. The checkpoint parts of
// package batch are written by the same Writer.
//
// # Reading
//
// [Open] opens a local directory or a gocloud.dev/blob URL (remote files
// are downloaded to a temporary directory first) and applies one
// completeness rule, documented on Open; [Run.Turns], [Run.Dialogs] and
// [ReadTurns] (decoding only the columns a reader needs) iterate over the
// rows. Every refusal is a *badinput.RowError wrapping
// badinput.ErrInvalid (exit status 3) and one of [ErrNotRun],
// [ErrIncomplete], [ErrCorrupt] or [ErrShardMismatch], naming the location,
// the file, the row and the column when there is one, and the fix.
//
// # Repeated trials
//
// A dialog is identified by (dialog_id, trial): DialogRow.Trial and
// TurnRow.Trial number the repeated trials of one task (the dialog_id),
// null for a dialog that is not one. The Writer fills each trial's task
// figures (DialogRow.TaskTrials, TaskPassed, TaskPassAtK, TaskPassHatK,
// TaskFlaky; package metrics/trials) when it commits the data, from the
// rows it was given, and Summary.Trials the run's, so a resumed or merged
// run reports what a single one does; a trial given twice is ErrCorrupt.
// A shard holds whole tasks (Shard.Contains looks at the dialog_id only).
//
// # Gold conflicts
//
// Summary.GoldConflicts lists every gold call that breaks its tool
// definitions (NewGoldConflicts, from package input/golden's Conflict), in
// an order that depends only on where the input holds them; Merge lists
// the shards' together, so a merged run reports what a single one does.
//
// # Adding a column
//
// Add a field to TurnRow or DialogRow at the end of the struct, optional
// (a pointer, or an optional list), with parquet and json tags, and its
// name at the end of the row type's layout (layout.go); a column added
// inside an existing field (a list's element) needs no entry. Readers
// accept a file that starts with the first layout's fields by name and
// lacks what was added since: its values convert by column path, the
// missing columns reading as null or zero, and DialogReader upgrades raw
// rows, so Merge writes the current layout (testdata/v1 holds run
// directories of an earlier version to test this). Fill the new column in
// RowsOf (verdicts.go), the one place verdicts become rows; TurnRow.Verdict
// and DialogRow.Result, beside it, go back from rows to verdicts.
// Summary fields go in summary.go; bump SummaryVersion only for a change
// old readers would misread.
package rundir
