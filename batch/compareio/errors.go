package compareio

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is through *RunError.
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

// RunError is a problem with one file of a run directory.
type RunError struct {
	Dir    string
	File   string // file name inside Dir; "" for the directory itself
	Row    int64  // 0-based row of a Parquet file; -1 when not about a row
	Column string // column or JSON field; "" when not about one
	Err    error  // one of the sentinels above, possibly wrapping the cause
	Fix    string // what to do about it
}

// Error describes the problem and how to fix it.
func (e *RunError) Error() string {
	s := e.Dir
	if e.File != "" {
		s += "/" + e.File
	}
	if e.Row >= 0 {
		s += fmt.Sprintf(": row %d", e.Row)
	}
	if e.Column != "" {
		s += fmt.Sprintf(": column %s", e.Column)
	}
	s += ": " + e.Err.Error()
	if e.Fix != "" {
		s += " (" + e.Fix + ")"
	}
	return s
}

// Unwrap returns the sentinel-wrapping cause.
func (e *RunError) Unwrap() error { return e.Err }
