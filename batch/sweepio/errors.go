package sweepio

import (
	"errors"
	"fmt"
)

// Sentinel errors; the errors returned wrap them (test with errors.Is).
var (
	// ErrFormat means a pairs or labels file is in no format sweep reads.
	ErrFormat = errors.New("unrecognised file format")
	// ErrColumn means a required column is missing.
	ErrColumn = errors.New("missing column")
	// ErrValue means a cell holds a value that cannot be used.
	ErrValue = errors.New("bad value")
	// ErrUnknownTurn means a label names a turn that is not in the run.
	ErrUnknownTurn = errors.New("label for a turn that is not in the run")
	// ErrUnknownField means a field label names a field the turn did not
	// compare.
	ErrUnknownField = errors.New("label for a field the turn does not have")
	// ErrRun means the run directory cannot be read as an `aem run` output.
	ErrRun = errors.New("not a readable aem run directory")
)

// RowError is a problem with one row of an input file, naming where it is,
// what is wrong and how to fix it. It unwraps to ErrColumn, ErrValue,
// ErrUnknownTurn or ErrUnknownField.
type RowError struct {
	File    string
	Row     int    // 1-based data row (line number for text files); 0 for the whole file
	Column  string // may be empty
	Problem string
	Fix     string
	Err     error
}

// Error names the file, row and column, the problem and the fix.
func (e *RowError) Error() string {
	where := e.File
	if e.Row > 0 {
		where += fmt.Sprintf(": row %d", e.Row)
	}
	if e.Column != "" {
		where += fmt.Sprintf(", column %s", e.Column)
	}
	s := where + ": " + e.Problem
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// Unwrap returns the sentinel error.
func (e *RowError) Unwrap() error { return e.Err }
