// Package batch runs the AEM metric over a golden dataset at nightly scale
// and reads the results back.
//
// Data flow of [Run]: first one pass over the whole gold side ([ReadGold],
// whatever the shard or the point a run resumes from): the vocabulary that
// weighs reply clauses and the gold calls' conflicts with their tool
// definitions, which summary.json lists (or Options.StrictGold refuses).
// Then a reader goroutine streams dialogs from the golden
// dataset (package input/golden) and groups them into chunks; worker
// goroutines collect the semantic comparisons of a whole chunk and score
// them with one call to the metrics.Scorer (metrics.Metric.Similarities, so
// an embedding model gets full batches across dialogs), then judge every
// dialog (metrics.Metric.Decide) with the one Metric built for the run
// (Options.Metric); one writer goroutine commits chunks strictly in input
// order through a bounded reorder window. The three stages are joined by
// bounded channels inside one errgroup: the first error cancels the rest and
// is returned once, and memory stays bounded whatever the dataset size.
//
// # Outputs
//
// Run writes a run directory through package rundir, which owns its
// files (turns.parquet, dialogs.parquet, summary.json, ordinals.parquet),
// their row types, the writer, the reader and Merge. Each file is written
// under a temporary name, fsynced and renamed; summary.json is renamed last
// and is the mark of a complete run (rundir.Open refuses a directory
// without it). turns.parquet and dialogs.parquet are byte-identical for the
// same input and settings whatever the number of workers, chunk size or
// interruptions; summary.json differs only in its timings_seconds object
// and in the embedding block's account of the model's work, which depends
// on how timing batched the strings (rundir.EmbeddingUsage).
//
// # Checkpoints and resume
//
// The writer streams the final files (under temporary names) and, at
// dialog boundaries, checkpoints into OUTDIR/.aem-run/: part files
// (part-NNNNN.turns.parquet, part-NNNNN.dialogs.parquet,
// part-NNNNN.index.parquet), each holding a contiguous range of dialogs, and
// manifest.json, rewritten by temp+rename after each part, listing the
// committed parts, the fingerprint of the input and settings, and what an
// LLM judge was paid so far (Options.Judge), so that a resumed run's budget
// and summary count every invocation; a run that paid a judge keeps its
// checkpoint even when it stops before its first part. A killed
// run (even kill -9) resumed with Options.Resume deletes the leftovers,
// replays its parts into new final files, skips the dialogs they cover and
// ends with the same bytes an uninterrupted run gives. Rows reach the
// Parquet writers in fixed batches whatever their origin, so the bytes
// depend only on the row sequence.
//
// # Shards and object stores
//
// Options.Shard selects a deterministic subset of dialogs (FNV-1a of the
// dialog ID modulo the shard count); a shard's run directory also holds
// ordinals.parquet (each dialog's input position and gold digest) so that
// rundir.Merge can rebuild exactly the files a single run gives. Input and
// output locations may be local paths or gocloud.dev/blob URLs (package
// internal/location: file://, mem://, s3:// and gs://); a remote output is
// staged locally and uploaded at the end, summary.json last.
//
// Package batch never prints: progress is reported through [Progress].
package batch
