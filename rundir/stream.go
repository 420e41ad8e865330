package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/parquet-go/parquet-go"
)

// DialogReader reads the dialogs of a (turns, dialogs, ordinals) file
// triple in file order, as raw rows: Merge reads shard outputs with it and
// package batch the parts of a checkpoint. A DialogReader is for use by one
// goroutine.
//
// Files written before a column was added to TurnRow or DialogRow (see
// layout) are read in the current layout: Next gives rows with the
// missing columns null and TurnSchema the schema of the upgraded turns.
type DialogReader struct {
	files                    []*parquetFile
	turns, dialogs, ordinals *rowIter
	n                        int64
	// How the turns and dialogs files map to the current layout.
	turnLayout, dialogLayout fileLayout
	schema                   *TurnSchema
}

// OpenDialogs opens files. A missing file is ErrIncomplete; a turns or
// dialogs file that does not start with the columns of TurnRow or
// DialogRow is ErrCorrupt.
func OpenDialogs(files Files) (*DialogReader, error) {
	r := &DialogReader{}
	for _, p := range []string{files.Turns, files.Dialogs, files.Ordinals} {
		f, err := openParquet(p)
		if err != nil {
			r.Close()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, incomplete(p, "", "missing", "rerun 'aem run' to write it", err)
			}
			return nil, err
		}
		r.files = append(r.files, f)
	}
	var err error
	if r.turnLayout, err = turnLayout.of(r.files[0].pf.Schema()); err != nil {
		r.Close()
		return nil, corrupt(files.Turns, noRow, "", "not the schema of "+TurnsFile, err)
	}
	if r.dialogLayout, err = dialogLayout.of(r.files[1].pf.Schema()); err != nil {
		r.Close()
		return nil, corrupt(files.Dialogs, noRow, "", "not the schema of "+DialogsFile, err)
	}
	if r.schema, err = turnSchemaOf(r.files[0].pf.Schema(), r.turnLayout); err != nil {
		r.Close()
		return nil, corrupt(files.Turns, noRow, "", "cannot read its extra columns", err)
	}
	r.turns, r.dialogs, r.ordinals = newRowIter(r.files[0]), newRowIter(r.files[1]), newRowIter(r.files[2])
	return r, nil
}

// Next returns the next dialog (with RowRaw and TurnsRaw set) or io.EOF.
func (r *DialogReader) Next() (*Dialog, error) {
	turnsPath, dialogsPath, ordinalsPath := r.files[0].path, r.files[1].path, r.files[2].path
	raw, err := r.ordinals.Next()
	if errors.Is(err, io.EOF) {
		if _, err := r.dialogs.Next(); !errors.Is(err, io.EOF) {
			return nil, corrupt(dialogsPath, r.n, "", "more rows than "+ordinalsPath, err)
		}
		if _, err := r.turns.Next(); !errors.Is(err, io.EOF) {
			return nil, corrupt(turnsPath, noRow, "", "more rows than "+ordinalsPath+" lists", err)
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	d := &Dialog{}
	if err := ordinalRowSchema.Reconstruct(&d.Ordinal, raw); err != nil {
		return nil, corrupt(ordinalsPath, r.n, "", "cannot decode the row", err)
	}
	if d.RowRaw, err = r.dialogs.Next(); err != nil {
		if errors.Is(err, io.EOF) {
			err = corrupt(dialogsPath, r.n, "", "the file ends before "+ordinalsPath, nil)
		}
		return nil, err
	}
	if d.RowRaw, err = r.dialogLayout.upgrade(d.RowRaw); err != nil {
		return nil, corrupt(dialogsPath, r.n, "", "cannot convert the row to this version's columns", err)
	}
	if err := dialogRowSchema.Reconstruct(&d.Row, d.RowRaw); err != nil {
		return nil, corrupt(dialogsPath, r.n, "", "cannot decode the row", err)
	}
	if d.Row.DialogID != d.Ordinal.DialogID {
		return nil, corrupt(dialogsPath, r.n, "dialog_id", fmt.Sprintf("dialog %q where %s says %q", d.Row.DialogID, ordinalsPath, d.Ordinal.DialogID), nil)
	}
	d.TurnsRaw = make([]parquet.Row, d.Ordinal.Turns)
	for i := range d.TurnsRaw {
		if d.TurnsRaw[i], err = r.turns.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				err = corrupt(turnsPath, noRow, "", fmt.Sprintf("the file ends inside dialog %q", d.Ordinal.DialogID), nil)
			}
			return nil, err
		}
		if d.TurnsRaw[i], err = r.turnLayout.upgrade(d.TurnsRaw[i]); err != nil {
			return nil, corrupt(turnsPath, noRow, "", fmt.Sprintf("cannot convert a turn of dialog %q to this version's columns", d.Ordinal.DialogID), err)
		}
	}
	r.n++
	return d, nil
}

// TurnSchema is the schema of the turns Next gives.
func (r *DialogReader) TurnSchema() *TurnSchema { return r.schema }

// Close closes the files.
func (r *DialogReader) Close() error {
	for _, it := range []*rowIter{r.turns, r.dialogs, r.ordinals} {
		if it != nil {
			it.Close()
		}
	}
	var errs []error
	for _, f := range r.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
