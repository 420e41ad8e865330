package batch

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/aem-dev/aem/rundir"

	"github.com/aem-dev/aem/internal/badinput"

	"github.com/parquet-go/parquet-go"
)

// ShowOptions selects what WriteJSONLines prints.
type ShowOptions struct {
	// DialogID keeps only rows whose dialog_id equals it; empty keeps all.
	DialogID string
	// Columns keeps only these columns, in this order; empty keeps all.
	Columns []string
	// Limit stops after this many rows; 0 means no limit.
	Limit int
}

// WriteJSONLines prints the rows of any Parquet file as JSON Lines, one
// object per row with the columns in file order. It reads one row group at
// a time. It returns the number of rows written.
func WriteJSONLines(ctx context.Context, path string, w io.Writer, opts ShowOptions) (n int, err error) {
	err = badinput.Recover(badinput.RowError{File: path, Row: badinput.NoRow, Problem: "corrupt Parquet file", Kind: rundir.ErrCorrupt},
		func() error {
			var err error
			n, err = writeJSONLines(ctx, path, w, opts)
			return err
		})
	return n, err
}

func writeJSONLines(ctx context.Context, path string, w io.Writer, opts ShowOptions) (n int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		return 0, fmt.Errorf("opening %s as Parquet: %w", path, err)
	}
	schema := pf.Schema()
	var all []string
	for _, field := range schema.Fields() {
		all = append(all, field.Name())
	}
	names := opts.Columns
	if len(names) == 0 {
		names = all
	}
	for _, name := range names {
		if !slices.Contains(all, name) {
			return 0, fmt.Errorf("%s has no column %q", path, name)
		}
	}
	if opts.DialogID != "" && !slices.Contains(all, "dialog_id") {
		return 0, fmt.Errorf("%s has no dialog_id column to select dialog %q by", path, opts.DialogID)
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	for gi, rg := range pf.RowGroups() {
		done, err := writeRowGroupJSON(ctx, rg, schema, names, bw, opts, &n)
		if err != nil {
			return n, fmt.Errorf("reading row group %d of %s: %w", gi, path, err)
		}
		if done {
			break
		}
	}
	return n, bw.Flush()
}

func writeRowGroupJSON(ctx context.Context, rg parquet.RowGroup, schema *parquet.Schema, names []string, w *bufio.Writer, opts ShowOptions, n *int) (done bool, err error) {
	rows := rg.Rows()
	defer rows.Close()
	buf := make([]parquet.Row, 64)
	for {
		if err := ctx.Err(); err != nil {
			return true, err
		}
		k, err := rows.ReadRows(buf)
		for _, row := range buf[:k] {
			m := map[string]any{}
			if err := schema.Reconstruct(&m, row); err != nil {
				return true, err
			}
			if opts.DialogID != "" && fmt.Sprint(m["dialog_id"]) != opts.DialogID {
				continue
			}
			if err := writeOrdered(w, m, names); err != nil {
				return true, err
			}
			*n++
			if opts.Limit > 0 && *n >= opts.Limit {
				return true, nil
			}
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return true, err
		}
	}
}

// writeOrdered writes m as one JSON object with keys in the given order
// (encoding/json would sort them).
func writeOrdered(w *bufio.Writer, m map[string]any, names []string) error {
	w.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			w.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		v, err := json.Marshal(m[name])
		if err != nil {
			return fmt.Errorf("column %s: %w", name, err)
		}
		w.Write(k)
		w.WriteByte(':')
		w.Write(v)
	}
	_, err := w.WriteString("}\n")
	return err
}
