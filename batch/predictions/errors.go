package predictions

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalid is wrapped by every error about the content of a predictions
// file (the CLI maps it to exit status 3). An agent's malformed output (tool
// arguments that are not JSON) is not such an error: it is kept as data.
var ErrInvalid = errors.New("invalid predictions")

// RowError locates a problem in a predictions file: file, record (0-based
// row; -1 when not about one record), line (1-based), field (a JSON path),
// what is wrong and how to fix it.
type RowError struct {
	File    string
	Row     int64
	Line    int
	Field   string
	Problem string
	Fix     string
	Err     error
}

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
		b.WriteString(": " + strings.Join(where, ", "))
	}
	b.WriteString(": " + e.Problem)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	if e.Fix != "" {
		b.WriteString(" (fix: " + e.Fix + ")")
	}
	return b.String()
}

// Unwrap returns ErrInvalid and the cause.
func (e *RowError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// rowError is the one place this package builds its input errors.
func rowError(file string, row int64, line int, field, problem, fix string, err error) error {
	return &RowError{File: file, Row: row, Line: line, Field: field, Problem: problem, Fix: fix, Err: err}
}
