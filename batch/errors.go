package batch

import (
	"errors"

	"github.com/aem-dev/aem/metrics"
)

// Sentinel errors returned (wrapped) by Run; check them with errors.Is.
// Errors about the golden dataset are *badinput.RowError values wrapping
// badinput.ErrInvalid and the sentinels of package input/golden; errors
// about a run directory wrap those of package rundir; errors about a
// URL wrap location.ErrUnreadable.
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
	// ErrScorer wraps errors returned by the metrics.Scorer and answers it
	// cannot use; it is metrics.ErrScorer.
	ErrScorer = metrics.ErrScorer
)
