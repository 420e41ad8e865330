package batch

import (
	"errors"

	"github.com/aem-dev/aem/batch/badinput"
)

// Sentinel errors returned (wrapped) by Run, ReadRun and Merge; check them
// with errors.Is. Errors about the golden dataset itself wrap the sentinels
// of package batch/golden (badinput.ErrInvalid and the sentinels of golden).
var (
	// ErrInvalidOptions is wrapped by Options.Validate errors.
	ErrInvalidOptions = errors.New("invalid batch options")
	// ErrCheckpointExists is returned when the output directory holds the
	// checkpoint of an unfinished run and Options.Resume is not set.
	ErrCheckpointExists = errors.New("output directory holds an unfinished run")
	// ErrResumeMismatch is returned by a resumed run whose input or settings
	// differ from those of the checkpointed run.
	ErrResumeMismatch = errors.New("checkpoint does not match this input and settings")
	// ErrCorruptCheckpoint is returned when the checkpoint cannot be read.
	ErrCorruptCheckpoint = errors.New("corrupt checkpoint")
	// ErrIncompleteRun is returned by ReadRun and Merge for a directory that
	// is not a complete run (no summary.json, or a file missing).
	ErrIncompleteRun = errors.New("not a complete run directory")
	// ErrCorruptOutput is returned by ReadRun and Merge when a run file
	// cannot be decoded or disagrees with summary.json.
	ErrCorruptOutput = errors.New("corrupt run output")
	// ErrShardMismatch is returned by Merge when the shard directories do
	// not form one complete set of shards of the same run.
	ErrShardMismatch = errors.New("shard outputs do not belong together")
	// ErrScorer wraps errors returned by the metrics.Scorer.
	ErrScorer = errors.New("scorer failed")
	// ErrUnreadableLocation is returned when an input or output URL cannot
	// be opened or read.
	ErrUnreadableLocation = errors.New("cannot access location")
)

// corruptOutput reports a run or checkpoint file that does not decode, at
// row (badinput.NoRow when not about one).
func corruptOutput(path string, row int64, problem string, cause error) error {
	return &badinput.RowError{File: path, Row: row, Problem: problem, Err: cause, Kind: ErrCorruptOutput,
		Fix: "the file is corrupt or truncated; rerun 'aem run' to rewrite it"}
}

// safely runs f, turning a panic of the Parquet decoder on corrupt data
// into a corruptOutput error.
func safely(path string, row int64, f func() error) error {
	return badinput.Recover(badinput.RowError{File: path, Row: row, Problem: "cannot decode the file", Kind: ErrCorruptOutput,
		Fix: "the file is corrupt or truncated; rerun 'aem run' to rewrite it"}, f)
}
