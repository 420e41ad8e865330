package predictions

import "github.com/aem-dev/aem/batch/badinput"

// rowError is the one place this package builds its input errors: a
// badinput.RowError (file, record, line, field, problem, fix), which wraps
// badinput.ErrInvalid (exit status 3).
func rowError(file string, row int64, line int, field, problem, fix string, err error) error {
	return &badinput.RowError{File: file, Row: row, Line: line, Field: field, Problem: problem, Fix: fix, Err: err}
}
