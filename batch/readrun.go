package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/batch/badinput"

	"github.com/parquet-go/parquet-go"
	"gocloud.dev/blob"
)

// RunDir is a complete run directory opened by ReadRun: its summary and
// iterators over its rows. Close it when done (it may hold downloaded
// copies of remote files).
type RunDir struct {
	// Location is the directory or URL given to ReadRun.
	Location string
	// Summary is summary.json.
	Summary *Summary
	// ExtraColumns names the input's extra columns carried in turns.parquet.
	ExtraColumns []string
	// Shard is set for the output of one shard of a sharded run.
	Shard *Shard

	dir     string
	cleanup func()
}

// ReadRunOptions configures ReadRun; the zero value is fine.
type ReadRunOptions struct {
	// URLMux opens blob URLs; nil means blob.DefaultURLMux().
	URLMux *blob.URLMux
	// WorkDir receives downloaded copies of remote files ("" = os.TempDir()).
	WorkDir string
}

// ReadRun opens the run directory dir (a local path or a blob URL) written
// by Run or Merge. It checks that the directory is complete
// (ErrIncompleteRun otherwise) and that turns.parquet and dialogs.parquet
// decode and hold as many rows as summary.json says (ErrCorruptOutput
// otherwise). Rows are read lazily by Turns and Dialogs.
func ReadRun(ctx context.Context, dir string) (*RunDir, error) {
	return ReadRunWith(ctx, dir, ReadRunOptions{})
}

// ReadRunWith is ReadRun with options.
func ReadRunWith(ctx context.Context, dir string, opts ReadRunOptions) (*RunDir, error) {
	if opts.URLMux == nil {
		opts.URLMux = blob.DefaultURLMux()
	}
	if opts.WorkDir == "" {
		opts.WorkDir = os.TempDir()
	}
	loc, err := parseLocation(dir)
	if err != nil {
		return nil, err
	}
	local, cleanup, err := fetchDir(ctx, opts.URLMux, loc, opts.WorkDir, []string{SummaryFile, TurnsFile, DialogsFile, OrdinalsFile})
	if err != nil {
		return nil, err
	}
	r := &RunDir{Location: dir, dir: local, cleanup: cleanup}
	if err := r.check(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func readSummary(dir string) (*Summary, error) {
	path := filepath.Join(dir, SummaryFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, cerr := os.Stat(filepath.Join(dir, CheckpointDir)); cerr == nil {
			return nil, fmt.Errorf("%w: %s has no %s; it holds an unfinished run (finish it with --resume)", ErrIncompleteRun, dir, SummaryFile)
		}
		return nil, fmt.Errorf("%w: %s has no %s", ErrIncompleteRun, dir, SummaryFile)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var s Summary
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrCorruptOutput, path, err)
	}
	if s.Version != SummaryVersion {
		return nil, fmt.Errorf("%w: %s: version %d, this aem reads version %d", ErrCorruptOutput, path, s.Version, SummaryVersion)
	}
	return &s, nil
}

func (r *RunDir) check() error {
	s, err := readSummary(r.dir)
	if err != nil {
		return err
	}
	r.Summary = s
	if v, ok := s.Settings["shard"]; ok {
		sh, err := ParseShard(v)
		if err != nil {
			return fmt.Errorf("%w: %s: settings.shard: %v", ErrCorruptOutput, SummaryFile, err)
		}
		r.Shard = &sh
	}
	for _, c := range []struct {
		name   string
		rows   int
		schema *parquet.Schema
	}{{TurnsFile, s.Turns, turnRowSchema}, {DialogsFile, s.Dialogs, dialogRowSchema}} {
		p, err := openParquet(filepath.Join(r.dir, c.name))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s has %s but no %s", ErrIncompleteRun, r.Location, SummaryFile, c.name)
		}
		if err != nil {
			return err
		}
		n := p.pf.NumRows()
		fileSchema := p.pf.Schema()
		p.Close()
		if n != int64(c.rows) {
			return fmt.Errorf("%w: %s has %d rows, %s says %d", ErrCorruptOutput, c.name, n, SummaryFile, c.rows)
		}
		if err := schemaPrefix(fileSchema, c.schema); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorruptOutput, c.name, err)
		}
		if c.name == TurnsFile {
			for _, f := range fileSchema.Fields()[len(c.schema.Fields()):] {
				r.ExtraColumns = append(r.ExtraColumns, f.Name())
			}
		}
	}
	return nil
}

// schemaPrefix checks that got starts with want's leaf columns.
func schemaPrefix(got, want *parquet.Schema) error {
	g, w := got.Columns(), want.Columns()
	if len(g) < len(w) {
		return fmt.Errorf("%d columns, want at least %d", len(g), len(w))
	}
	for i := range w {
		if !slicesEqual(g[i], w[i]) {
			return fmt.Errorf("column %d is %v, want %v", i, g[i], w[i])
		}
	}
	return nil
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Dir is the local directory holding the run's files (a temporary copy for
// remote runs, valid until Close).
func (r *RunDir) Dir() string { return r.dir }

// Turns iterates over turns.parquet in file (input) order. The iteration
// stops after the first error, which it yields.
func (r *RunDir) Turns(ctx context.Context) iter.Seq2[TurnRow, error] {
	return readRows[TurnRow](ctx, filepath.Join(r.dir, TurnsFile))
}

// Dialogs iterates over dialogs.parquet in file (input) order.
func (r *RunDir) Dialogs(ctx context.Context) iter.Seq2[DialogRow, error] {
	return readRows[DialogRow](ctx, filepath.Join(r.dir, DialogsFile))
}

// Close releases downloaded copies.
func (r *RunDir) Close() error {
	if r.cleanup != nil {
		r.cleanup()
		r.cleanup = nil
	}
	return nil
}

func readRows[T any](ctx context.Context, path string) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var zero T
		p, err := openParquet(path)
		if err != nil {
			yield(zero, err)
			return
		}
		defer p.Close()
		var rd *parquet.GenericReader[T]
		if err := safely(path, badinput.NoRow, func() error { rd = parquet.NewGenericReader[T](p.pf); return nil }); err != nil {
			yield(zero, err)
			return
		}
		defer rd.Close()
		buf := make([]T, 256)
		var row int64
		for {
			if err := ctx.Err(); err != nil {
				yield(zero, err)
				return
			}
			var n int
			var rerr error
			if err := safely(path, row, func() error { n, rerr = rd.Read(buf); return nil }); err != nil {
				yield(zero, err)
				return
			}
			for i := range n {
				if !yield(buf[i], nil) {
					return
				}
			}
			row += int64(n)
			if errors.Is(rerr, io.EOF) {
				return
			}
			if rerr != nil {
				yield(zero, corruptOutput(path, row, "cannot read the row", rerr))
				return
			}
			clear(buf)
		}
	}
}
