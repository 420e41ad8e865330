package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/aem-dev/aem/internal/safefile"
)

// Wrap lets tests inject faults (a full disk) into file writes: it wraps
// the writer of the file whose base name is name. A nil Wrap writes
// straight through.
type Wrap func(name string, w io.Writer) io.Writer

// WriteFile writes data to path atomically (package safefile), through
// wrap.
func (wrap Wrap) WriteFile(path string, data []byte) error {
	t, err := createTemp(path, wrap)
	if err != nil {
		return err
	}
	if _, err := t.Write(data); err != nil {
		t.Abort()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return t.Commit()
}

// tempFile is an atomically written file (safefile) whose writes may
// pass through a fault-injection wrapper.
type tempFile struct {
	*safefile.File
	w io.Writer
}

func createTemp(final string, wrap Wrap) (*tempFile, error) {
	f, err := safefile.Create(final)
	if err != nil {
		return nil, err
	}
	t := &tempFile{File: f, w: f}
	if wrap != nil {
		t.w = wrap(filepath.Base(final), f)
	}
	return t, nil
}

func (t *tempFile) Write(p []byte) (int, error) { return t.w.Write(p) }

// stageRows is how many rows rowFile hands to the Parquet writer at once.
// It is fixed so that page boundaries depend only on the row sequence, not
// on how callers batch their writes.
const stageRows = 256

// textOptions keep the free-text columns (replies, arguments, reasons,
// clause texts) out of the page and column-chunk statistics: their min
// and max are whole values, which would store a long reply three more
// times (a 50 MB reply made a 944 MB turns.parquet), and no query prunes
// on them.
func textOptions() []parquet.WriterOption {
	var opts []parquet.WriterOption
	for _, path := range [][]string{
		{"gold_response"}, {"predict_response"}, {"gold_args"}, {"predict_args"}, {"reason"},
		{"clauses", "list", "element", "gold"}, {"clauses", "list", "element", "predicted_text"},
		{"clauses", "list", "element", "judge_reason"}, {"field_scores", "list", "element", "judge_reason"},
		{"clauses", "list", "element", "judge_error"}, {"field_scores", "list", "element", "judge_error"},
	} {
		opts = append(opts, parquet.SkipPageBounds(path...), parquet.SkipPageStatistics(path...))
	}
	return opts
}

// rowFile writes a zstd-compressed Parquet file of raw rows atomically.
type rowFile struct {
	t      *tempFile
	w      *parquet.Writer
	stage  []parquet.Row
	rows   int64
	closed bool
}

func createRowFile(path string, schema *parquet.Schema, rowGroupSize int, codec compress.Codec, wrap Wrap) (*rowFile, error) {
	t, err := createTemp(path, wrap)
	if err != nil {
		return nil, err
	}
	w := parquet.NewWriter(t, append(textOptions(), schema,
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(int64(rowGroupSize)),
		parquet.CreatedBy("aem", "1", ""),
	)...)
	return &rowFile{t: t, w: w, stage: make([]parquet.Row, 0, stageRows)}, nil
}

// Write appends rows; the file keeps references to them until they are
// handed to the Parquet writer, so callers must not reuse them.
func (f *rowFile) Write(rows ...parquet.Row) error {
	for _, r := range rows {
		f.stage = append(f.stage, r)
		f.rows++
		if len(f.stage) == stageRows {
			if err := f.flushStage(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *rowFile) flushStage() error {
	if len(f.stage) == 0 {
		return nil
	}
	if _, err := f.w.WriteRows(f.stage); err != nil {
		return fmt.Errorf("writing %s: %w", f.t.Path(), err)
	}
	clear(f.stage)
	f.stage = f.stage[:0]
	return nil
}

// Commit finishes the Parquet file and renames it into place.
func (f *rowFile) Commit() error {
	if err := f.flushStage(); err != nil {
		f.Abort()
		return err
	}
	if err := f.w.Close(); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.t.Path(), err)
	}
	f.closed = true
	return f.t.Commit()
}

// Abort discards the file.
func (f *rowFile) Abort() {
	f.closed = true
	f.t.Abort()
}

// typedFile writes a Parquet file of Go values atomically with parquet-go's
// typed writer, which is much faster than deconstructing values into rows.
type typedFile[T any] struct {
	t      *tempFile
	w      *parquet.GenericWriter[T]
	closed bool
}

func createTypedFile[T any](path string, rowGroupSize int, codec compress.Codec, wrap Wrap) (*typedFile[T], error) {
	t, err := createTemp(path, wrap)
	if err != nil {
		return nil, err
	}
	w := parquet.NewGenericWriter[T](t, append(textOptions(),
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(int64(rowGroupSize)),
		parquet.CreatedBy("aem", "1", ""),
	)...)
	return &typedFile[T]{t: t, w: w}, nil
}

func (f *typedFile[T]) Write(rows []T) error {
	if _, err := f.w.Write(rows); err != nil {
		return fmt.Errorf("writing %s: %w", f.t.Path(), err)
	}
	return nil
}

func (f *typedFile[T]) Commit() error {
	if err := f.w.Close(); err != nil {
		f.Abort()
		return fmt.Errorf("writing %s: %w", f.t.Path(), err)
	}
	f.closed = true
	return f.t.Commit()
}

func (f *typedFile[T]) Abort() {
	f.closed = true
	f.t.Abort()
}

// parquetFile is an open Parquet file.
type parquetFile struct {
	path string
	f    *os.File
	pf   *parquet.File
}

// openParquet opens a Parquet file, turning panics of the decoder on
// corrupt data into errors.
func openParquet(path string) (*parquetFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	var pf *parquet.File
	err = safely(path, noRow, func() error {
		pf, err = parquet.OpenFile(f, st.Size())
		return err
	})
	if err != nil {
		f.Close()
		if !errors.Is(err, ErrCorrupt) {
			err = corrupt(path, noRow, "", "not a readable Parquet file", err)
		}
		return nil, err
	}
	return &parquetFile{path: path, f: f, pf: pf}, nil
}

func (p *parquetFile) Close() error { return p.f.Close() }

// rowIter reads the raw rows of a Parquet file in order.
type rowIter struct {
	p     *parquetFile
	rg    int
	rows  parquet.Rows
	buf   []parquet.Row
	i, n  int
	index int64
}

func newRowIter(p *parquetFile) *rowIter {
	return &rowIter{p: p, buf: make([]parquet.Row, 128)}
}

// Next returns the next row (a copy the caller owns) or io.EOF.
func (it *rowIter) Next() (row parquet.Row, err error) {
	err = safely(it.p.path, it.index, func() error {
		row, err = it.next()
		return err
	})
	return row, err
}

func (it *rowIter) next() (parquet.Row, error) {
	for it.i == it.n {
		if it.rows == nil {
			groups := it.p.pf.RowGroups()
			if it.rg >= len(groups) {
				return nil, io.EOF
			}
			it.rows = groups[it.rg].Rows()
			it.rg++
		}
		n, err := it.rows.ReadRows(it.buf)
		it.i, it.n = 0, n
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return nil, corrupt(it.p.path, it.index, "", "cannot read the row", err)
			}
			it.rows.Close()
			it.rows = nil
		}
	}
	row := it.buf[it.i].Clone()
	it.i++
	it.index++
	return row, nil
}

func (it *rowIter) Close() {
	if it.rows != nil {
		it.rows.Close()
		it.rows = nil
	}
}
