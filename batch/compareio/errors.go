package compareio

import (
	"errors"
	"path/filepath"

	"github.com/aem-dev/aem/batch/badinput"
)

// Sentinel errors. ReadRun's errors about a run directory are
// *badinput.RowError values (File is the directory, or the run file inside
// it) wrapping badinput.ErrInvalid and one of these.
var (
	// ErrNotRunDir means the path does not exist or is not a directory.
	ErrNotRunDir = errors.New("not a run directory")
	// ErrMissingFile means a run directory lacks turns.parquet,
	// dialogs.parquet or summary.json.
	ErrMissingFile = errors.New("run directory is missing a file")
	// ErrCorruptFile means a run file cannot be decoded, holds an invalid
	// value, or disagrees with summary.json.
	ErrCorruptFile = errors.New("corrupt run file")
)

// runError reports a problem with file (a name inside dir; "" for the
// directory itself) at row (badinput.NoRow when not about one) and field.
func runError(dir, file string, row int64, field string, kind error, problem string, cause error, fix string) error {
	if file != "" {
		file = filepath.Join(dir, file)
	} else {
		file = dir
	}
	return &badinput.RowError{File: file, Row: row, Field: field, Problem: problem, Fix: fix, Kind: kind, Err: cause}
}
