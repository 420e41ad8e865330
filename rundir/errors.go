package rundir

import (
	"errors"
	"path/filepath"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/location"
)

// Sentinel errors. Every error about a run directory that is not what it
// should be is a *badinput.RowError: it wraps badinput.ErrInvalid (exit
// status 3) and one of these, names the location and file (File), the row
// (0-based, DuckDB's file_row_number) and column (Field) when there is
// one, and says how to fix it. I/O errors other than a missing file, and
// cancellation, are returned as they are.
var (
	// ErrNotRun: the location does not exist or is not a directory.
	ErrNotRun = errors.New("not a run directory")
	// ErrIncomplete: the directory lacks summary.json (an unfinished or
	// failed run) or a file summary.json implies.
	ErrIncomplete = errors.New("incomplete run directory")
	// ErrCorrupt: a run file does not decode, holds an invalid value or
	// disagrees with summary.json.
	ErrCorrupt = errors.New("corrupt run file")
	// ErrShardMismatch: the directories given to Merge are not one
	// complete set of shards of the same run.
	ErrShardMismatch = errors.New("shard outputs do not belong together")
	// ErrBadShard: a shard is not INDEX/COUNT with 0 <= INDEX < COUNT.
	ErrBadShard = errors.New("bad shard")
)

// Errors of ClaimDir and the output checks: not about the content of a
// run, so not *badinput.RowError values.
var (
	// ErrOutput: writing where asked would overwrite or mix with what the
	// writer must not touch: a directory that is not a run's, the files
	// derived from an earlier run, a file of a run, or the writer's own
	// input. The message names what is there and the fix (--force where it
	// applies, or another location).
	ErrOutput = errors.New("output location refused")
	// ErrBusy: another process is writing the run directory (its lock is
	// held); the message names the holder's pid.
	ErrBusy = errors.New("run directory in use")
)

const noRow = badinput.NoRow

// rerunFix is the fix for a damaged run file.
const rerunFix = "the file is damaged or was not written by aem; rerun 'aem run' to rewrite it"

// joinFile names file inside the run location loc ("" for loc itself).
func joinFile(loc, file string) string {
	if file == "" {
		return loc
	}
	if location.IsURL(loc) {
		return loc + "/" + file
	}
	return filepath.Join(loc, file)
}

// notRun reports a location that is not a run directory.
func notRun(loc, problem string, cause error) error {
	return &badinput.RowError{File: loc, Row: noRow, Problem: problem, Kind: ErrNotRun, Err: cause,
		Fix: "pass a directory written by 'aem run -o DIR'"}
}

// incomplete reports a missing file of the run at loc.
func incomplete(loc, file, problem, fix string, cause error) error {
	return &badinput.RowError{File: joinFile(loc, file), Row: noRow, Problem: problem, Fix: fix, Kind: ErrIncomplete, Err: cause}
}

// corrupt reports a run file that does not decode or holds a bad value at
// row (noRow when not about one) and field.
func corrupt(path string, row int64, field, problem string, cause error) error {
	return &badinput.RowError{File: path, Row: row, Field: field, Problem: problem, Fix: rerunFix, Kind: ErrCorrupt, Err: cause}
}

// mismatch reports shard directories that do not belong together.
func mismatch(loc, problem string) error {
	return &badinput.RowError{File: loc, Row: noRow, Problem: problem, Kind: ErrShardMismatch,
		Fix: "give the output directories of all shards of one run (aem run --shard i/n for i = 0..n-1), each once"}
}

// safely runs f, turning a panic of the Parquet decoder on corrupt data
// into an ErrCorrupt error about path at row.
func safely(path string, row int64, f func() error) error {
	return badinput.Recover(badinput.RowError{File: path, Row: row, Problem: "cannot decode the file", Fix: rerunFix, Kind: ErrCorrupt}, f)
}
