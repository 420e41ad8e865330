package batch

import "errors"

// Sentinel errors returned (wrapped) by Run, ReadRun and Merge; check them
// with errors.Is. Errors about the golden dataset itself wrap the sentinels
// of package batch/golden (golden.ErrInvalidInput and friends).
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
