package rundir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/location"
)

// Run is a complete run directory opened by Open: its summary and
// iterators over its rows. Close it when done (it may hold downloaded
// copies of remote files).
type Run struct {
	// Location is the directory or URL given to Open.
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

// OpenOptions configures Open; the zero value is fine.
type OpenOptions struct {
	// URLMux opens blob URLs; nil means location.NewURLMux with aem's
	// retry policy and no log.
	URLMux *blob.URLMux
	// WorkDir receives downloaded copies of remote files ("" = os.TempDir()).
	WorkDir string
}

// Open opens the run directory loc (a local path or a blob URL) and checks
// that it is complete. The rule, the same for local and remote runs:
//
//   - loc exists and is a directory (else ErrNotRun);
//   - summary.json exists (else ErrIncomplete, naming the checkpoint of an
//     unfinished run when there is one), decodes and has this version;
//   - turns.parquet and dialogs.parquet exist (else ErrIncomplete), decode,
//     start with the columns of TurnRow and DialogRow, or of an earlier
//     version of them (see layout), and hold as many rows as summary.json
//     says (else ErrCorrupt);
//   - a shard's output (settings.shard in summary.json) also has
//     ordinals.parquet with a row per dialog.
//
// Rows are read lazily by Turns, Dialogs and ReadTurns.
func Open(ctx context.Context, loc string, opts OpenOptions) (*Run, error) {
	if opts.URLMux == nil {
		opts.URLMux = location.NewURLMux(location.MuxOptions{})
	}
	if opts.WorkDir == "" {
		opts.WorkDir = os.TempDir()
	}
	l, err := location.Parse(loc)
	if err != nil {
		return nil, err
	}
	if !l.Remote() {
		info, err := os.Stat(l.Local)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notRun(loc, "not a run directory: it does not exist", err)
		}
		if err != nil {
			return nil, fmt.Errorf("opening run %s: %w", loc, err)
		}
		if !info.IsDir() {
			return nil, notRun(loc, "not a run directory: a file, not a directory", nil)
		}
	}
	local, cleanup, err := location.FetchDir(ctx, opts.URLMux, l, opts.WorkDir, []string{SummaryFile, TurnsFile, DialogsFile, OrdinalsFile})
	if err != nil {
		return nil, err
	}
	r := &Run{Location: loc, dir: local, cleanup: cleanup}
	if err := r.check(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// path is the local path of a run file; name is how messages name it.
func (r *Run) path(file string) string { return filepath.Join(r.dir, file) }
func (r *Run) name(file string) string { return joinFile(r.Location, file) }

// relocate makes an error about the local copy of file name the file as
// the user gave it.
func (r *Run) relocate(err error, file string) error {
	var re *badinput.RowError
	if errors.As(err, &re) && re.File == r.path(file) {
		re.File = r.name(file)
	}
	return err
}

func (r *Run) check() error {
	s, err := ReadSummary(r.dir)
	if err != nil {
		var re *badinput.RowError
		if errors.As(err, &re) {
			re.File = r.name(SummaryFile)
		}
		return err
	}
	r.Summary = s
	if v, ok := s.Settings["shard"]; ok {
		sh, err := ParseShard(v)
		if err != nil {
			return corrupt(r.name(SummaryFile), noRow, "settings.shard", "not a shard", err)
		}
		r.Shard = &sh
	}
	files := []struct {
		name   string
		rows   int
		layout *layout
	}{{TurnsFile, s.Turns + s.ReadOnly.Rows(), &turnLayout}, {DialogsFile, s.Dialogs, &dialogLayout}}
	if r.Shard != nil {
		files = append(files, struct {
			name   string
			rows   int
			layout *layout
		}{OrdinalsFile, s.Dialogs, &ordinalLayout})
	}
	for _, c := range files {
		p, err := openParquet(r.path(c.name))
		if errors.Is(err, fs.ErrNotExist) {
			return incomplete(r.Location, c.name, "missing although summary.json is there", "rerun 'aem run' into this directory", err)
		}
		if err != nil {
			return r.relocate(err, c.name)
		}
		n := p.pf.NumRows()
		fileSchema := p.pf.Schema()
		p.Close()
		if n != int64(c.rows) {
			return corrupt(r.name(c.name), noRow, "", fmt.Sprintf("%d rows, %s says %d", n, SummaryFile, c.rows), nil)
		}
		fl, err := c.layout.of(fileSchema)
		if err != nil {
			return corrupt(r.name(c.name), noRow, "", "not the schema of "+c.name, err)
		}
		if c.name == TurnsFile {
			for _, f := range fileSchema.Fields()[fl.fields:] {
				r.ExtraColumns = append(r.ExtraColumns, f.Name())
			}
		}
	}
	return nil
}

// Dir is the local directory holding the run's files (a temporary copy for
// remote runs, valid until Close).
func (r *Run) Dir() string { return r.dir }

// Turns iterates over turns.parquet in file (input) order. The iteration
// stops after the first error, which it yields.
func (r *Run) Turns(ctx context.Context) iter.Seq2[TurnRow, error] {
	return ReadTurns[TurnRow](ctx, r)
}

// Dialogs iterates over dialogs.parquet in file (input) order.
func (r *Run) Dialogs(ctx context.Context) iter.Seq2[DialogRow, error] {
	return readRows[DialogRow](ctx, r, DialogsFile)
}

// ReadTurns iterates over turns.parquet decoding only the columns of T:
// a struct whose parquet tags name TurnRow columns or extra columns (an
// extra column the run lacks reads as its zero value). Reading few columns
// skips decoding the texts. Rows of runs written before the naming rule
// convert to it (names.go); T must then read a side's tool_id and action
// together, and gold's with field_scores.
func ReadTurns[T any](ctx context.Context, r *Run) iter.Seq2[T, error] {
	return readRows[T](ctx, r, TurnsFile)
}

// Corrupt is the error for a value of a run file that its reader refuses
// (row: 0-based, or badinput.NoRow; field: the column).
func (r *Run) Corrupt(file string, row int64, field, problem string) error {
	return corrupt(r.name(file), row, field, problem, nil)
}

// Close releases downloaded copies.
func (r *Run) Close() error {
	if r.cleanup != nil {
		r.cleanup()
		r.cleanup = nil
	}
	return nil
}

func readRows[T any](ctx context.Context, r *Run, file string) iter.Seq2[T, error] {
	path := r.path(file)
	return func(yield func(T, error) bool) {
		var zero T
		p, err := openParquet(path)
		if err != nil {
			yield(zero, r.relocate(err, file))
			return
		}
		defer p.Close()
		var (
			names   namesPlan
			convert bool
		)
		if file == TurnsFile {
			names, convert, err = planNames(reflect.TypeFor[T]())
			if err != nil {
				yield(zero, err)
				return
			}
		}
		var rd *parquet.GenericReader[T]
		if err := safely(r.name(file), noRow, func() error { rd = parquet.NewGenericReader[T](p.pf); return nil }); err != nil {
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
			if err := safely(r.name(file), row, func() error { n, rerr = rd.Read(buf); return nil }); err != nil {
				yield(zero, err)
				return
			}
			for i := range n {
				if convert {
					names.upgrade(reflect.ValueOf(&buf[i]).Elem())
				}
				if !yield(buf[i], nil) {
					return
				}
			}
			row += int64(n)
			if errors.Is(rerr, io.EOF) {
				return
			}
			if rerr != nil {
				yield(zero, corrupt(r.name(file), row, "", "cannot read the row", rerr))
				return
			}
			clear(buf)
		}
	}
}
