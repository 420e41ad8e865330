package golden

import (
	"context"
	"errors"
	"fmt"
	"iter"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics"
	"github.com/parquet-go/parquet-go"
)

// Row is one row of a golden Parquet file as the writer stores it: the
// canonical schema with real Parquet types (optional strings for the two
// sides, lists for tags and depends_on, optional numbers).
type Row struct {
	DialogID        string   `parquet:"dialog_id"`
	TurnNo          int64    `parquet:"turn_no"`
	Turn            string   `parquet:"turn"`
	GoldResponse    *string  `parquet:"gold_response,optional"`
	PredictResponse *string  `parquet:"predict_response,optional"`
	GoldToolID      *string  `parquet:"gold_tool_id,optional"`
	GoldAction      *string  `parquet:"gold_action,optional"`
	GoldArgs        *string  `parquet:"gold_args,optional"`
	PredictToolID   *string  `parquet:"predict_tool_id,optional"`
	PredictAction   *string  `parquet:"predict_action,optional"`
	PredictArgs     *string  `parquet:"predict_args,optional"`
	Tags            []string `parquet:"tags,list"`
	DependsOn       []int64  `parquet:"depends_on,optional,list"`
	HumanLabel      *bool    `parquet:"human_label,optional"`
	HumanScore      *float64 `parquet:"human_score,optional"`
	Weight          *float64 `parquet:"weight,optional"`
	Critical        bool     `parquet:"critical"`
	LatencyMS       *float64 `parquet:"latency_ms,optional"`
	GoldNoCall      *bool    `parquet:"gold_no_call,optional"`
	// Tools is the dialog's tool definitions (a JSON array), on its first
	// row only.
	Tools *string `parquet:"tools,optional"`
	// Trial numbers one of repeated trials of the dialog (Dialog.Trial).
	Trial *int64 `parquet:"trial,optional"`
	// UserTurn is metrics.Turn.UserTurn: the turn_no of the User turn the
	// row answers, 0 for none; null to take the last User turn before it.
	UserTurn *int64 `parquet:"user_turn,optional"`
}

// RowOf converts a turn to its golden row. Args are stored as EncodeArgs
// text; a side that is absent is all nulls.
func RowOf(t metrics.Turn) (Row, error) {
	r := Row{
		DialogID: t.DialogID, TurnNo: int64(t.TurnNo), Turn: string(t.Role),
		Tags: t.Tags, HumanLabel: t.HumanLabel, HumanScore: t.HumanScore,
		Weight: t.Weight, Critical: t.Critical, LatencyMS: t.LatencyMS,
	}
	if t.UserTurn != 0 {
		n := int64(max(t.UserTurn, 0))
		r.UserTurn = &n
	}
	if t.DependsOn != nil {
		deps := make([]int64, len(t.DependsOn))
		for i, d := range t.DependsOn {
			deps[i] = int64(d)
		}
		r.DependsOn = deps
	}
	if t.Role == metrics.RoleTool {
		if t.GoldNoCall {
			r.GoldNoCall = ptr(true)
		} else if t.HasGold {
			args, err := EncodeArgs(t.Gold.Args)
			if err != nil {
				return Row{}, fmt.Errorf("encoding gold args of turn %d of dialog %q: %w", t.TurnNo, t.DialogID, err)
			}
			r.GoldToolID, r.GoldAction, r.GoldArgs = ptr(t.Gold.ToolID), ptr(t.Gold.Action), &args
		}
		if t.HasPredict {
			args := t.Predict.UnparsedArgs // the agent's malformed output, kept as it was
			if args == "" {
				var err error
				if args, err = EncodeArgs(t.Predict.Args); err != nil {
					return Row{}, fmt.Errorf("encoding predicted args of turn %d of dialog %q: %w", t.TurnNo, t.DialogID, err)
				}
			}
			r.PredictToolID, r.PredictAction, r.PredictArgs = ptr(t.Predict.ToolID), ptr(t.Predict.Action), &args
		}
	} else {
		if t.HasGold {
			r.GoldResponse = ptr(t.GoldResponse)
		}
		if t.HasPredict {
			r.PredictResponse = ptr(t.PredictResponse)
		}
	}
	return r, nil
}

func ptr[T any](v T) *T { return &v }

// WriteOptions configures a golden Parquet writer.
type WriteOptions struct {
	// RowGroupRows caps the rows per row group; 0 means 64Ki, which keeps
	// a reader's row group in the tens of MiB for typical turns.
	RowGroupRows int64
	// Extras are extra columns (a Reader's Extras) written after the
	// canonical ones; WriteDialog takes their values from Dialog.Extra.
	Extras []ExtraColumn
}

// rowSchema is the schema of Row.
var rowSchema = parquet.SchemaOf(Row{})

// Writer writes a golden Parquet file atomically: rows go to a temporary
// file next to the destination, which Commit syncs and renames into place.
// Until Commit returns nil, no file exists at the destination path (a
// previous file there is left untouched). Not safe for concurrent use.
type Writer struct {
	path string
	tmp  *safefile.File
	// Without extra columns rows go through the (faster) typed writer gw;
	// with them, through w with the extended schema.
	gw     *parquet.GenericWriter[Row]
	w      *parquet.Writer
	schema *parquet.Schema
	rows   []Row
	buf    []parquet.Row
	turns  int64
	done   bool
}

// Create starts writing a golden Parquet file at path. Call Commit to
// finish or Abort to give up; Abort after Commit is a no-op, so
// `defer w.Abort()` is the usual pattern.
func Create(path string, opts WriteOptions) (*Writer, error) {
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = 64 << 10
	}
	tmp, err := safefile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("creating golden dataset: %w", err)
	}
	w := &Writer{path: path, tmp: tmp}
	config := []parquet.WriterOption{
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(opts.RowGroupRows),
		parquet.CreatedBy("aem", "", ""),
		parquet.KeyValueMetadata("aem.golden.version", "1"),
	}
	// The free-text columns stay out of the statistics, whose min and max
	// would hold whole values (three more copies of a long reply), and
	// which no query prunes on.
	for _, col := range []string{ColGoldResponse, ColPredictResponse, ColGoldArgs, ColPredictArgs, ColTools} {
		config = append(config, parquet.SkipPageBounds(col), parquet.SkipPageStatistics(col))
	}
	if len(opts.Extras) == 0 {
		w.gw = parquet.NewGenericWriter[Row](tmp, config...)
	} else {
		w.schema = ExtendSchema("golden", rowSchema, opts.Extras)
		w.w = parquet.NewWriter(tmp, append(config, w.schema)...)
	}
	return w, nil
}

// Write appends one dialog's turns, in the order given, with null extra
// columns.
func (w *Writer) Write(d metrics.Dialog) error {
	return w.WriteDialog(Dialog{Dialog: d})
}

// WriteDialog appends one dialog's turns, in the order given, with their
// extra values (d.Extra, numbered as the Reader's ExtraSchema; nil for
// nulls).
func (w *Writer) WriteDialog(d Dialog) error {
	if w.done {
		return errors.New("golden: write after Commit or Abort")
	}
	w.rows, w.buf = w.rows[:0], w.buf[:0]
	for _, t := range d.Turns {
		if t.DialogID == "" {
			t.DialogID = d.ID
		}
		if t.DialogID != d.ID {
			return fmt.Errorf("writing dialog %q: turn %d has dialog_id %q", d.ID, t.TurnNo, t.DialogID)
		}
		r, err := RowOf(t)
		if err != nil {
			return err
		}
		if len(w.rows) == 0 && d.Tools != nil {
			r.Tools = ptr(string(d.Tools.JSON()))
		}
		r.Trial = d.Trial
		w.rows = append(w.rows, r)
	}
	if err := w.writeRows(d.Extra); err != nil {
		return fmt.Errorf("writing dialog %q to %s: %w", d.ID, w.path, err)
	}
	w.turns += int64(len(w.rows))
	return nil
}

// writeRows writes w.rows, with the extra values extra (parallel to them;
// nil for nulls) when the file has extra columns.
func (w *Writer) writeRows(extra []parquet.Row) error {
	if w.gw != nil {
		_, err := w.gw.Write(w.rows)
		return err
	}
	base := len(rowSchema.Columns())
	for i := range w.rows {
		row := rowSchema.Deconstruct(nil, &w.rows[i])
		if extra != nil {
			row = AppendExtra(row, base, extra[i])
		} else {
			for c := base; c < len(w.schema.Columns()); c++ {
				row = append(row, parquet.NullValue().Level(0, 0, c))
			}
		}
		w.buf = append(w.buf, row)
	}
	_, err := w.w.WriteRows(w.buf)
	return err
}

// Turns returns how many turns have been written.
func (w *Writer) Turns() int64 { return w.turns }

// Commit finishes the file (footer) and puts it in place atomically
// (package safefile: fsync, rename, fsync the directory).
func (w *Writer) Commit() error {
	if w.done {
		return errors.New("golden: Commit after Commit or Abort")
	}
	var err error
	if w.gw != nil {
		err = w.gw.Close()
	} else {
		err = w.w.Close()
	}
	if err != nil {
		w.Abort()
		return fmt.Errorf("finishing golden dataset %s: %w", w.path, err)
	}
	w.done = true
	if err := w.tmp.Commit(); err != nil {
		return fmt.Errorf("finishing golden dataset: %w", err)
	}
	return nil
}

// Abort removes the temporary file. It is a no-op after Commit.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.tmp.Abort()
}

// Write writes every dialog of seq to a golden Parquet file at path,
// atomically, and returns the number of turns written. It stops at the
// first error from seq or from writing, or when ctx is cancelled, leaving
// no file at path.
func Write(ctx context.Context, path string, seq iter.Seq2[metrics.Dialog, error], opts WriteOptions) (int64, error) {
	return WriteDialogs(ctx, path, opts, func(yield func(Dialog, error) bool) {
		for d, err := range seq {
			if !yield(Dialog{Dialog: d}, err) {
				return
			}
		}
	})
}

// Import writes every dialog of r to a golden Parquet file at path, with
// r's extra columns, as Write does.
func Import(ctx context.Context, path string, r *Reader, opts WriteOptions) (int64, error) {
	opts.Extras = r.Extras()
	return WriteDialogs(ctx, path, opts, r.All(ctx))
}

// WriteDialogs writes dialogs with their extra values (numbered as
// opts.Extras, whose FirstLeaf/Leaves place them) to a golden Parquet file
// at path, atomically, as Write does. Write and Import call it.
func WriteDialogs(ctx context.Context, path string, opts WriteOptions, seq iter.Seq2[Dialog, error]) (int64, error) {
	w, err := Create(path, opts)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	for d, err := range seq {
		if err != nil {
			return 0, err
		}
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if err := w.WriteDialog(d); err != nil {
			return 0, err
		}
	}
	if err := w.Commit(); err != nil {
		return 0, err
	}
	return w.turns, nil
}

// Seq adapts a plain dialog sequence (such as datasets.Generate's) to the
// sequence Write takes.
func Seq(seq iter.Seq[metrics.Dialog]) iter.Seq2[metrics.Dialog, error] {
	return func(yield func(metrics.Dialog, error) bool) {
		for d := range seq {
			if !yield(d, nil) {
				return
			}
		}
	}
}

// Slice adapts a slice of dialogs to the sequence Write takes.
func Slice(ds []metrics.Dialog) iter.Seq2[metrics.Dialog, error] {
	return func(yield func(metrics.Dialog, error) bool) {
		for _, d := range ds {
			if !yield(d, nil) {
				return
			}
		}
	}
}
