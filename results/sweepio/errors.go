package sweepio

import (
	"errors"

	"github.com/aem-dev/aem/internal/badinput"
)

// Sentinel errors; the errors returned wrap them (test with errors.Is).
// Errors about the content of a pairs, labels or run file are
// *badinput.RowError values: they also wrap badinput.ErrInvalid and locate
// the problem by file, 0-based row (DuckDB's file_row_number; the data
// record index for CSV, TSV and JSON Lines), 1-based line for text files,
// and field.
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
)

// fileError reports a problem with a whole file or one of its columns.
func fileError(file, field, problem, fix string, kind error) error {
	return &badinput.RowError{File: file, Row: badinput.NoRow, Field: field, Problem: problem, Fix: fix, Kind: kind}
}

// rowError reports a problem with one record: row is its 0-based index,
// line its 1-based line in a text file (0 for Parquet).
func rowError(file string, row, line int, field, problem, fix string, kind error) error {
	return &badinput.RowError{File: file, Row: int64(row), Line: line, Field: field, Problem: problem, Fix: fix, Kind: kind}
}
