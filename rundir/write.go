package rundir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics/trials"
)

// DefaultRowGroupSize is the number of rows per row group of turns.parquet
// and dialogs.parquet unless a writer is told otherwise.
const DefaultRowGroupSize = 50_000

// Dialog is one dialog's rows in a run directory: its ordinals.parquet
// row, its dialogs.parquet row and its turns.parquet rows.
type Dialog struct {
	Ordinal OrdinalRow
	Row     DialogRow
	// RowRaw is Row deconstructed; nil lets the writer deconstruct it.
	RowRaw parquet.Row
	// Turns are the turns of a run without extra columns; TurnsRaw those
	// of a run with extra columns (TurnSchema.Row), or turns read back
	// from a file. A Dialog holds one or the other.
	Turns    []TurnRow
	TurnsRaw []parquet.Row
}

// DeconstructRow sets RowRaw from Row (callers in parallel goroutines do it
// to spare the writer).
func (d *Dialog) DeconstructRow() { d.RowRaw = dialogRowSchema.Deconstruct(nil, &d.Row) }

// NumTurns is the number of turns.parquet rows of the dialog.
func (d *Dialog) NumTurns() int { return len(d.Turns) + len(d.TurnsRaw) }

// WriterOptions configures a Writer; the zero value writes TurnRow
// columns only, zstd, DefaultRowGroupSize rows per group, no ordinals.
type WriterOptions struct {
	Schema       *TurnSchema    // nil: TurnRow's columns only
	RowGroupSize int            // DefaultRowGroupSize if 0
	Codec        compress.Codec // nil: zstd
	Ordinals     bool           // also write Files.Ordinals
	Wrap         Wrap           // tests: fault injection
}

// Writer writes the Parquet files of a run directory (or of a checkpoint
// part) from dialogs in order and accumulates their Summary. Each file is
// written under a temporary name and renamed into place by CommitData;
// WriteSummary comes last and marks the directory complete.
//
// Without extra input columns turns.parquet is written from TurnRow values
// by parquet-go's typed writer (much faster than raw rows); rows read back
// from parts or shards are decoded into TurnRow first. Turn rows reach the
// Parquet writer in fixed batches of stageRows whatever their source, so
// the bytes depend only on the row sequence: a resumed or merged run is
// byte-identical to an uninterrupted single one.
//
// Dialogs with a trial (DialogRow.Trial) get their task's figures
// (DialogRow.TaskTrials and the rest) when the data is committed: they
// depend on every trial of the task, so CommitData rewrites
// dialogs.parquet with them, whatever the rows said before (a resumed or
// merged run recomputes them from the trials' verdicts).
//
// A Writer is for use by one goroutine.
type Writer struct {
	opts     WriterOptions
	files    Files
	schema   *TurnSchema
	turns    *rowFile            // with extra columns
	typed    *typedFile[TurnRow] // without
	stage    []TurnRow
	dialogs  *rowFile
	ordinals *rowFile
	acc      *summaryAcc
}

// Create starts writing files.
func Create(files Files, opts WriterOptions) (*Writer, error) {
	if opts.Schema == nil {
		opts.Schema, _ = NewTurnSchema(nil)
	}
	if opts.RowGroupSize <= 0 {
		opts.RowGroupSize = DefaultRowGroupSize
	}
	if opts.Codec == nil {
		opts.Codec = &parquet.Zstd
	}
	w := &Writer{opts: opts, files: files, schema: opts.Schema, acc: newSummaryAcc()}
	var err error
	if opts.Schema.extras {
		w.turns, err = createRowFile(files.Turns, opts.Schema.schema, opts.RowGroupSize, opts.Codec, opts.Wrap)
	} else {
		w.typed, err = createTypedFile[TurnRow](files.Turns, opts.RowGroupSize, opts.Codec, opts.Wrap)
		w.stage = make([]TurnRow, 0, stageRows)
	}
	if err != nil {
		return nil, err
	}
	if w.dialogs, err = createRowFile(files.Dialogs, dialogRowSchema, opts.RowGroupSize, opts.Codec, opts.Wrap); err != nil {
		w.Abort()
		return nil, err
	}
	if opts.Ordinals {
		if w.ordinals, err = createRowFile(files.Ordinals, ordinalRowSchema, opts.RowGroupSize, opts.Codec, opts.Wrap); err != nil {
			w.Abort()
			return nil, err
		}
	}
	return w, nil
}

// Add appends one dialog.
func (w *Writer) Add(d *Dialog) error {
	if len(d.Turns) > 0 && w.typed == nil {
		return fmt.Errorf("dialog %q: TurnRow values given to a writer with extra columns (use TurnSchema.Row)", d.Ordinal.DialogID)
	}
	for i := range d.Turns {
		if err := w.addTurn(d.Turns[i], &d.Row); err != nil {
			return err
		}
	}
	for _, raw := range d.TurnsRaw {
		if w.typed != nil {
			var tr TurnRow
			if err := safely(w.typed.t.Path(), noRow, func() error { return turnRowSchema.Reconstruct(&tr, raw) }); err != nil {
				return fmt.Errorf("decoding a turn of dialog %q: %w", d.Ordinal.DialogID, err)
			}
			if err := w.addTurn(tr, &d.Row); err != nil {
				return err
			}
			continue
		}
		tr, err := turnStatOf(raw)
		if err != nil {
			return corrupt(w.turns.t.Path(), noRow, "", fmt.Sprintf("decoding a turn of dialog %q", d.Ordinal.DialogID), err)
		}
		if err := checkTurn(&tr, &d.Row); err != nil {
			return err
		}
		w.acc.addTurn(&tr)
		if err := w.turns.Write(raw); err != nil {
			return err
		}
	}
	raw := d.RowRaw
	if raw == nil {
		raw = dialogRowSchema.Deconstruct(nil, &d.Row)
	}
	if err := w.acc.addDialog(&d.Row, d.Ordinal.GoldSHA256); err != nil {
		return err
	}
	if err := w.dialogs.Write(raw); err != nil {
		return err
	}
	if w.ordinals != nil {
		if err := w.ordinals.Write(ordinalRowSchema.Deconstruct(nil, &d.Ordinal)); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) addTurn(tr TurnRow, d *DialogRow) error {
	if err := checkTurn(&tr, d); err != nil {
		return err
	}
	w.acc.addTurn(&tr)
	w.stage = append(w.stage, tr)
	if len(w.stage) == stageRows {
		return w.flushStage()
	}
	return nil
}

// checkTurn checks that a turn belongs to dialog d: the same dialog_id
// and trial.
func checkTurn(tr *TurnRow, d *DialogRow) error {
	if tr.DialogID != d.DialogID {
		return corrupt(TurnsFile, noRow, "dialog_id", fmt.Sprintf("turn row of dialog %q found where dialog %q was expected", tr.DialogID, d.DialogID), nil)
	}
	if !SameTrial(tr.Trial, d.Trial) {
		return corrupt(TurnsFile, noRow, "trial", fmt.Sprintf("turn row of dialog %q trial %s found where trial %s was expected", tr.DialogID, trialText(tr.Trial), trialText(d.Trial)), nil)
	}
	return nil
}

// sameDialog reports whether two turns belong to the same dialog.
func sameDialog(a, b *TurnRow) bool { return a.DialogID == b.DialogID && SameTrial(a.Trial, b.Trial) }

// SameTrial reports whether two trials (DialogRow.Trial, TurnRow.Trial)
// are the same: both none, or equal.
func SameTrial(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// dialogKey identifies a dialog of a run: (dialog_id, trial).
type dialogKey struct {
	id       string
	trial    int64
	hasTrial bool
}

func keyOf(id string, trial *int64) dialogKey {
	if trial == nil {
		return dialogKey{id: id}
	}
	return dialogKey{id, *trial, true}
}

// trialText writes a trial for messages ("none" when not set).
func trialText(t *int64) string {
	if t == nil {
		return "none"
	}
	return strconv.FormatInt(*t, 10)
}

func (w *Writer) flushStage() error {
	if len(w.stage) == 0 {
		return nil
	}
	err := w.typed.Write(w.stage)
	clear(w.stage)
	w.stage = w.stage[:0]
	return err
}

// Summary returns the totals of the dialogs added so far; the header
// fields (Input, Scorer, Thresholds, Settings, Timings) are the caller's.
func (w *Writer) Summary() *Summary { return w.acc.summary() }

// CommitData finishes the Parquet files and renames them into place. The
// caller writes summary.json afterwards (WriteSummary).
func (w *Writer) CommitData() error {
	if w.typed != nil {
		if err := w.flushStage(); err != nil {
			w.Abort()
			return err
		}
		if err := w.typed.Commit(); err != nil {
			w.Abort()
			return err
		}
	}
	for _, f := range []*rowFile{w.turns, w.dialogs, w.ordinals} {
		if f == nil {
			continue
		}
		if err := f.Commit(); err != nil {
			w.Abort()
			return err
		}
	}
	if len(w.acc.outcomes) > 0 {
		return w.fillTasks()
	}
	return nil
}

// fillTasks rewrites the committed dialogs file with each trial's task
// figures (and none on the other dialogs). The file is replaced
// atomically; summary.json, written after, still marks the run complete.
func (w *Writer) fillTasks() error {
	tasks := map[string]*trials.Task{}
	perTask := trials.PerTask(w.acc.outcomes)
	for i := range perTask {
		tasks[perTask[i].Task] = &perTask[i]
	}
	src, err := openParquet(w.files.Dialogs)
	if err != nil {
		return err
	}
	defer src.Close()
	it := newRowIter(src)
	defer it.Close()
	dst, err := createRowFile(w.files.Dialogs, dialogRowSchema, w.opts.RowGroupSize, w.opts.Codec, w.opts.Wrap)
	if err != nil {
		return err
	}
	for row := int64(0); ; row++ {
		raw, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			dst.Abort()
			return err
		}
		var d DialogRow
		if err := safely(w.files.Dialogs, row, func() error { return dialogRowSchema.Reconstruct(&d, raw) }); err != nil {
			dst.Abort()
			return err
		}
		setTask(&d, tasks[d.DialogID])
		if err := dst.Write(dialogRowSchema.Deconstruct(nil, &d)); err != nil {
			dst.Abort()
			return err
		}
	}
	return dst.Commit()
}

// setTask sets the task figures of a dialog: t's when the dialog has a
// trial, none otherwise.
func setTask(d *DialogRow, t *trials.Task) {
	d.TaskTrials, d.TaskPassed, d.TaskPassAtK, d.TaskPassHatK, d.TaskFlaky = nil, nil, nil, nil, nil
	if d.Trial == nil || t == nil {
		return
	}
	n, p, flaky := int64(t.Trials), int64(t.Passed), t.Flaky
	d.TaskTrials, d.TaskPassed, d.TaskFlaky = &n, &p, &flaky
	d.TaskPassAtK, d.TaskPassHatK = t.PassAt, t.PassHat
}

// Abort discards the files not yet committed. It is a no-op after
// CommitData.
func (w *Writer) Abort() {
	if w.typed != nil && !w.typed.closed {
		w.typed.Abort()
	}
	for _, f := range []*rowFile{w.turns, w.dialogs, w.ordinals} {
		if f != nil && !f.closed {
			f.Abort()
		}
	}
}

// statColumns are the leaf columns of turns.parquet the summary and
// checkTurn need.
var statColumns = func() (c struct {
	dialogID, pass, reason, structure, completeness, truthfulness, bucket, rootCause, trial int
	readOnly, goldAction, predictAction                                                     int
}) {
	idx := func(name string) int {
		leaf, ok := turnRowSchema.Lookup(name)
		if !ok {
			panic("rundir: TurnRow has no column " + name)
		}
		return leaf.ColumnIndex
	}
	c.dialogID, c.pass, c.reason = idx("dialog_id"), idx("pass"), idx("failure_reason")
	c.structure, c.completeness, c.truthfulness = idx("structure"), idx("completeness"), idx("truthfulness")
	c.bucket, c.rootCause, c.trial = idx("chain_bucket"), idx("root_cause"), idx("trial")
	c.readOnly, c.goldAction, c.predictAction = idx("read_only"), idx("gold_action"), idx("predict_action")
	return c
}()

// turnStatOf decodes the few columns of a turns.parquet row that the
// summary needs, without decoding the rest (they are all top-level
// non-repeated columns: one value each).
func turnStatOf(row parquet.Row) (TurnRow, error) {
	var tr TurnRow
	seen := 0
	optional := func(v parquet.Value) *string {
		if v.IsNull() {
			return nil
		}
		s := string(v.ByteArray())
		return &s
	}
	for _, v := range row {
		switch v.Column() {
		case statColumns.dialogID:
			tr.DialogID = string(v.ByteArray())
		case statColumns.pass:
			tr.Pass = v.Boolean()
		case statColumns.reason:
			tr.FailureReason = optional(v)
		case statColumns.structure:
			tr.Structure = string(v.ByteArray())
		case statColumns.completeness:
			tr.Completeness = string(v.ByteArray())
		case statColumns.truthfulness:
			tr.Truthfulness = string(v.ByteArray())
		case statColumns.bucket:
			tr.ChainBucket = optional(v)
		case statColumns.rootCause:
			tr.RootCause = v.Boolean()
		case statColumns.trial:
			if !v.IsNull() {
				n := v.Int64()
				tr.Trial = &n
			}
		case statColumns.readOnly:
			if !v.IsNull() {
				b := v.Boolean()
				tr.ReadOnly = &b
			}
		case statColumns.goldAction:
			tr.GoldAction = optional(v)
		case statColumns.predictAction:
			tr.PredictAction = optional(v)
		default:
			continue
		}
		seen++
	}
	if seen != 12 {
		return TurnRow{}, fmt.Errorf("row has %d of the 12 summary columns", seen)
	}
	return tr, nil
}

// RemoveOutputs deletes the files of a previous run in the local
// directory dir, summary.json first so that the directory never looks
// complete with mixed files, and the temporary files a killed writer left.
func RemoveOutputs(dir string) error {
	names := []string{SummaryFile, TurnsFile, DialogsFile, OrdinalsFile}
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing previous output: %w", err)
		}
	}
	return safefile.RemoveStale(dir, names...)
}

// WriteRows writes a complete run directory dir from rows, for tools and
// tests that make a run without the pipeline: turns in order, the turns of
// one dialog (dialog_id and trial) consecutive; dialogs (nil: one
// DialogRow per run of turns with the same dialog_id and trial, with only
// DialogID and Trial set) in the same order, each (dialog_id, trial) once.
// The summary's totals come from the rows; header's Input, Scorer,
// Thresholds and Settings are kept.
func WriteRows(dir string, header Summary, turns []TurnRow, dialogs []DialogRow) (*Summary, error) {
	if dialogs == nil {
		for i, tr := range turns {
			if i == 0 || !sameDialog(&turns[i-1], &tr) {
				dialogs = append(dialogs, DialogRow{DialogID: tr.DialogID, Trial: tr.Trial})
			}
		}
	}
	w, err := Create(FilesIn(dir), WriterOptions{})
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	next := 0
	seen := map[dialogKey]bool{}
	for i := range dialogs {
		key := keyOf(dialogs[i].DialogID, dialogs[i].Trial)
		if seen[key] {
			return nil, fmt.Errorf("writing %s: dialog %q trial %s appears twice", dir, dialogs[i].DialogID, trialText(dialogs[i].Trial))
		}
		seen[key] = true
		d := &Dialog{Row: dialogs[i], Ordinal: OrdinalRow{InputOrdinal: int64(i), DialogID: dialogs[i].DialogID}}
		for next < len(turns) && turns[next].DialogID == d.Row.DialogID && SameTrial(turns[next].Trial, d.Row.Trial) {
			d.Turns = append(d.Turns, turns[next])
			next++
		}
		d.Ordinal.Turns = int64(len(d.Turns))
		if err := w.Add(d); err != nil {
			return nil, err
		}
	}
	if next != len(turns) {
		return nil, fmt.Errorf("writing %s: turn %d (dialog %q) is not in the order of the dialogs", dir, next, turns[next].DialogID)
	}
	s := w.Summary()
	s.Input, s.Scorer, s.Thresholds = header.Input, header.Scorer, header.Thresholds
	if header.Settings != nil {
		s.Settings = header.Settings
	}
	if err := w.CommitData(); err != nil {
		return nil, err
	}
	return s, WriteSummary(dir, s, nil)
}
