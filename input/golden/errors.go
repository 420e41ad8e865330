package golden

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
)

// Sentinel errors. Every error about the content of an input file is a
// *badinput.RowError, wraps badinput.ErrInvalid (exit status 3) and one of
// the sentinels below, which say what kind of problem it is (check with
// errors.Is).
var (
	// ErrInvalidRow: one row (or JSON turn or dialog) is bad.
	ErrInvalidRow = errors.New("invalid row")
	// ErrMissingColumn: required columns are absent or have an unusable
	// type.
	ErrMissingColumn = errors.New("missing or unusable column")
	// ErrUnsorted: ReadOptions.RequireSorted is set and a dialog's rows are
	// not contiguous in the input.
	ErrUnsorted = errors.New("input not grouped by dialog_id")
	// ErrCorrupt: a Parquet file cannot be decoded (truncated, bad footer,
	// bad page) or a JSON file is not valid JSON.
	ErrCorrupt = errors.New("corrupt or truncated file")
	// ErrEmpty: the file holds no turns (no bytes, only white space, an
	// empty JSON array, or a Parquet file without rows): an input every
	// reader refuses alike, since a run of nothing is never what was meant.
	ErrEmpty = errors.New("no turns")
	// ErrBadMapping is wrapped by errors from ParseMapping (a usage error,
	// not bad input).
	ErrBadMapping = errors.New("bad column mapping")
)

// rowError reports a bad row (or JSON turn or dialog): see
// badinput.RowError for how row, line and field locate it.
func rowError(file string, row int64, line int, field, problem, fix string, cause error) error {
	return &badinput.RowError{File: file, Row: row, Line: line, Field: field, Problem: problem, Fix: fix,
		Kind: ErrInvalidRow, Err: cause}
}

// err reports a problem with field of this turn. A turn of a JSON dialog
// object is located by line and JSON path ("turns[2].gold_turn.args"); a
// Parquet row or an element of a JSON array of turns by its row.
func (rec *turnRec) err(file, field, problem, fix string, cause error) error {
	if rec.jsonPath != "" {
		path := rec.jsonPath
		if field != "" {
			path += "." + field
		}
		return rowError(file, badinput.NoRow, rec.line, path, problem, fix, cause)
	}
	return rowError(file, rec.row, rec.line, field, problem, fix, cause)
}

// where names the turn in another turn's message: "row 3" or "turns[3]".
func (rec *turnRec) where() string {
	if rec.jsonPath != "" {
		return rec.jsonPath
	}
	return fmt.Sprintf("row %d", rec.row)
}

// columnError reports required columns the file lacks (missing) or another
// schema problem (problem), listing the columns the file has.
func columnError(file string, present, missing []string, problem, fix string) error {
	if len(missing) > 0 {
		problem = "missing required column(s) " + strings.Join(missing, ", ")
	}
	return &badinput.RowError{File: file, Row: badinput.NoRow, Field: strings.Join(missing, ", "),
		Problem: problem + "; the file has columns: " + strings.Join(present, ", "), Fix: fix, Kind: ErrMissingColumn}
}

// unsortedError reports a dialog whose rows are not contiguous, when
// ReadOptions.RequireSorted is set.
func unsortedError(file, dialogID string, firstRow, row int64) error {
	return &badinput.RowError{File: file, Row: row, Field: ColDialogID,
		Problem: fmt.Sprintf("dialog_id %q appears again after other dialogs (its earlier rows end at row %d); input must be grouped by dialog_id", dialogID, firstRow),
		Fix:     "sort the file by dialog_id, or drop --require-sorted to let aem group it on disk",
		Kind:    ErrUnsorted}
}

// corrupt reports a file that cannot be decoded; line is the 1-based line
// of a JSON syntax error (0 when unknown).
func corrupt(file string, line int, what string, cause error) error {
	return &badinput.RowError{File: file, Row: badinput.NoRow, Line: line, Problem: what, Err: cause,
		Fix: "the file is corrupt, truncated or not a Parquet/JSON golden dataset", Kind: ErrCorrupt}
}

// empty reports a file without turns; what says how it is empty.
func empty(file, what string) error {
	return &badinput.RowError{File: file, Row: badinput.NoRow, Problem: "holds no turns: " + what, Kind: ErrEmpty,
		Fix: "check the step that wrote the file; a golden dataset needs at least one turn"}
}

// safely runs f, turning a panic inside parquet-go into an error naming the
// file.
func safely(path, what string, f func() error) error {
	return badinput.Recover(badinput.RowError{File: path, Row: badinput.NoRow, Problem: what,
		Fix: "the file is corrupt or truncated", Kind: ErrCorrupt}, f)
}
