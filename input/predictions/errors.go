package predictions

import (
	"errors"

	"github.com/aem-dev/aem/internal/badinput"
)

// The kinds of input error, each wrapped by the *badinput.RowError that
// reports it (check with errors.Is); the spans of OTLP JSON files carry
// package otlpjson's kinds instead.
var (
	// ErrInvalidRecord: a conversation of a chat log or a Phoenix span is
	// bad (not JSON, truncated, a field missing or of the wrong type), or
	// appears twice.
	ErrInvalidRecord = errors.New("invalid predictions record")
	// ErrFormat: a file's format cannot be told, or files of a directory
	// mix chat logs and spans, or a directory holds no predictions.
	ErrFormat = errors.New("unknown predictions format")
	// ErrJoin: the golden dataset cannot be joined with predictions (a
	// gold dialog with its own trial).
	ErrJoin = errors.New("gold and predictions do not join")
)

// rowError is the one place this package builds its input errors: a
// badinput.RowError (file, record, line, field, problem, fix) wrapping
// badinput.ErrInvalid (exit status 3) and kind.
func rowError(kind error, file string, row int64, line int, field, problem, fix string, err error) error {
	return &badinput.RowError{File: file, Row: row, Line: line, Field: field, Problem: problem, Fix: fix, Kind: kind, Err: err}
}
