package golden

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error about the content of an input file wraps
// ErrInvalidInput (check with errors.Is), so the CLI can map them all to
// exit status 3; the more specific sentinels below say what kind it is.
var (
	// ErrInvalidInput is wrapped by every error caused by the input data
	// rather than by the environment (I/O, cancellation).
	ErrInvalidInput = errors.New("invalid input")
	// ErrInvalidRow is wrapped by *RowError: one row (or JSON turn) is bad.
	ErrInvalidRow = errors.New("invalid row")
	// ErrMissingColumn is wrapped by *ColumnError when required columns are
	// absent or have an unusable type.
	ErrMissingColumn = errors.New("missing or unusable column")
	// ErrUnsorted is returned when ReadOptions.RequireSorted is set and a
	// dialog's rows are not contiguous in the input.
	ErrUnsorted = errors.New("input not grouped by dialog_id")
	// ErrCorrupt is wrapped when a Parquet file cannot be decoded (truncated,
	// bad footer, bad page) or a JSON file is not valid JSON.
	ErrCorrupt = errors.New("corrupt or truncated file")
	// ErrBadMapping is wrapped by errors from ParseMapping and by mappings
	// that do not fit the file (a mapped column that does not exist).
	ErrBadMapping = errors.New("bad column mapping")
)

// RowError reports one bad input row: which file, where, which column and
// what is wrong, plus how to fix it. It wraps ErrInvalidRow and
// ErrInvalidInput.
//
// Row is the 0-based row index in a Parquet file (DuckDB's file_row_number),
// or the 0-based index of the turn in a JSON array / in a JSONL line's
// "turns" array. Line is the 1-based line in a JSON or JSONL file (0 for
// Parquet).
type RowError struct {
	File    string
	Row     int64
	Line    int
	Column  string // canonical column or JSON field (e.g. "gold_turn.args"); may be empty
	Problem string
	Fix     string
	Err     error // underlying cause (a JSON error, say); may be nil
}

// Error formats the error as
// "FILE: row N, column C: PROBLEM (fix: FIX)".
func (e *RowError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	b.WriteString(": ")
	if e.Line > 0 {
		fmt.Fprintf(&b, "line %d", e.Line)
		if e.Row >= 0 {
			fmt.Fprintf(&b, ", turn %d", e.Row)
		}
	} else {
		fmt.Fprintf(&b, "row %d", e.Row)
	}
	if e.Column != "" {
		fmt.Fprintf(&b, ", column %s", e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Problem)
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", e.Fix)
	}
	return b.String()
}

// Unwrap returns the sentinels and the underlying cause.
func (e *RowError) Unwrap() []error {
	errs := []error{ErrInvalidRow, ErrInvalidInput}
	if e.Err != nil {
		errs = append(errs, e.Err)
	}
	return errs
}

// ColumnError reports required columns that a file lacks or whose type
// cannot be read. It wraps ErrMissingColumn and ErrInvalidInput.
type ColumnError struct {
	File    string
	Missing []string // canonical names (with the mapped name when mapped)
	Present []string // top-level columns the file has
	Problem string   // set instead of Missing for a column of the wrong type
	Fix     string
}

// Error names the file, the missing columns, the columns present and the fix.
func (e *ColumnError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	b.WriteString(": ")
	if len(e.Missing) > 0 {
		fmt.Fprintf(&b, "missing required column(s) %s", strings.Join(e.Missing, ", "))
	} else {
		b.WriteString(e.Problem)
	}
	fmt.Fprintf(&b, "; the file has columns: %s", strings.Join(e.Present, ", "))
	if e.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", e.Fix)
	}
	return b.String()
}

// Unwrap returns ErrMissingColumn and ErrInvalidInput.
func (e *ColumnError) Unwrap() []error { return []error{ErrMissingColumn, ErrInvalidInput} }

// UnsortedError reports a dialog whose rows are not contiguous, when
// ReadOptions.RequireSorted is set. It wraps ErrUnsorted and ErrInvalidInput.
type UnsortedError struct {
	File     string
	DialogID string
	FirstRow int64 // last row of the dialog's earlier run of rows
	Row      int64 // the row where the dialog appears again
}

// Error names both places and the fix.
func (e *UnsortedError) Error() string {
	return fmt.Sprintf("%s: row %d: dialog_id %q appears again after other dialogs (its earlier rows end at row %d); "+
		"input must be grouped by dialog_id (fix: sort the file by dialog_id, or drop --require-sorted to let aem group it on disk)",
		e.File, e.Row, e.DialogID, e.FirstRow)
}

// Unwrap returns ErrUnsorted and ErrInvalidInput.
func (e *UnsortedError) Unwrap() []error { return []error{ErrUnsorted, ErrInvalidInput} }

// corruptError wraps a decoding failure of a whole file.
type corruptError struct {
	File string
	What string
	Err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("%s: %s: %v (the file is corrupt, truncated or not a Parquet/JSON golden dataset)", e.File, e.What, e.Err)
}

func (e *corruptError) Unwrap() []error { return []error{ErrCorrupt, ErrInvalidInput, e.Err} }
