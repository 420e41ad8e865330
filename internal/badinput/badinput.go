package badinput

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error caused by the content of an input
// rather than by the environment (I/O, cancellation). The command line maps
// it to exit status 3.
var ErrInvalid = errors.New("invalid input")

// NoRow is RowError.Row for an error that is not about one record.
const NoRow int64 = -1

// RowError is a problem with an input file, located by file, row, line and
// field (see the package documentation for how rows and lines are counted),
// with what is wrong and how to fix it. It wraps ErrInvalid, Kind and Err.
type RowError struct {
	File    string
	Row     int64  // 0-based record index (DuckDB's file_row_number); NoRow when not about one record
	Line    int    // 1-based line in a text file; 0 for binary files or when unknown
	Field   string // column or JSON path; may be empty
	Problem string // what is wrong
	Fix     string // what the user can do about it; may be empty
	Kind    error  // a finer sentinel of the reading package; may be nil
	Err     error  // the underlying cause; may be nil
}

// Error formats the error as "FILE: row R, line L, field F: PROBLEM: CAUSE
// (fix: FIX)", leaving out what is not known.
func (e *RowError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	var where []string
	if e.Row >= 0 {
		where = append(where, fmt.Sprintf("row %d", e.Row))
	}
	if e.Line > 0 {
		where = append(where, fmt.Sprintf("line %d", e.Line))
	}
	if e.Field != "" {
		where = append(where, "field "+e.Field)
	}
	if len(where) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(where, ", "))
	}
	if e.Problem != "" {
		b.WriteString(": ")
		b.WriteString(e.Problem)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", e.Fix)
	}
	return b.String()
}

// Unwrap returns ErrInvalid, then Kind and Err when set.
func (e *RowError) Unwrap() []error {
	errs := []error{ErrInvalid}
	if e.Kind != nil {
		errs = append(errs, e.Kind)
	}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// Recover runs f and returns its error. Some decoders (parquet-go among
// them) panic on corrupt data instead of returning an error; Recover turns
// such a panic into a copy of at, with the panic as its cause, so the user
// learns which file is damaged instead of seeing a crash.
func Recover(at RowError, f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			at.Err = fmt.Errorf("decoder failed: %v", p)
			err = &at
		}
	}()
	return f()
}
