package tooldef

import (
	"errors"

	"github.com/aem-dev/aem/internal/badinput"
)

// ErrInvalid is the Kind of every error about the content of tool
// definitions: each is a *badinput.RowError (Row is the 0-based index of
// the definition, Line the line it starts on, Field the JSON path inside
// it) wrapping ErrInvalid and badinput.ErrInvalid, so the CLI maps it to
// exit status 3.
var ErrInvalid = errors.New("invalid tool definitions")

// fieldErr is an error about one field of a definition; Parse fills in the
// file, definition index and line.
func fieldErr(field, problem, fix string) *badinput.RowError {
	return rowErr(badinput.NoRow, 0, field, problem, fix, nil)
}

func rowErr(row int64, line int, field, problem, fix string, cause error) *badinput.RowError {
	return &badinput.RowError{Row: row, Line: line, Field: field, Problem: problem, Fix: fix, Kind: ErrInvalid, Err: cause}
}
