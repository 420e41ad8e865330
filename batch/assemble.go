package batch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/batch/badinput"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/batch/safefile"
)

// bundle is one dialog's rows as stored in a part or shard output.
type bundle struct {
	idx       indexRow
	dialogRaw parquet.Row
	dialog    DialogRow
	turnsRaw  []parquet.Row
}

// dialogStream reads the dialogs of a (turns, dialogs, index) file triple
// in order.
type dialogStream struct {
	files                 []*parquetFile
	turns, dialogs, index *rowIter
	n                     int64
}

func openDialogStream(turnsPath, dialogsPath, indexPath string) (*dialogStream, error) {
	s := &dialogStream{}
	for _, p := range []string{turnsPath, dialogsPath, indexPath} {
		f, err := openParquet(p)
		if err != nil {
			s.Close()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%w: %v", ErrIncompleteRun, err)
			}
			return nil, err
		}
		s.files = append(s.files, f)
	}
	s.turns, s.dialogs, s.index = newRowIter(s.files[0]), newRowIter(s.files[1]), newRowIter(s.files[2])
	return s, nil
}

// Next returns the next dialog or io.EOF.
func (s *dialogStream) Next() (*bundle, error) {
	raw, err := s.index.Next()
	if errors.Is(err, io.EOF) {
		if _, err := s.dialogs.Next(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s has more rows than %s", ErrCorruptOutput, s.files[1].path, s.files[2].path)
		}
		if _, err := s.turns.Next(); !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: %s has more rows than %s lists", ErrCorruptOutput, s.files[0].path, s.files[2].path)
		}
		return nil, io.EOF
	}
	if err != nil {
		return nil, err
	}
	b := &bundle{}
	if err := indexRowSchema.Reconstruct(&b.idx, raw); err != nil {
		return nil, fmt.Errorf("%w: %s row %d: %v", ErrCorruptOutput, s.files[2].path, s.n, err)
	}
	if b.dialogRaw, err = s.dialogs.Next(); err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("%w: %s ends before %s", ErrCorruptOutput, s.files[1].path, s.files[2].path)
		}
		return nil, err
	}
	if err := dialogRowSchema.Reconstruct(&b.dialog, b.dialogRaw); err != nil {
		return nil, fmt.Errorf("%w: %s row %d: %v", ErrCorruptOutput, s.files[1].path, s.n, err)
	}
	if b.dialog.DialogID != b.idx.DialogID {
		return nil, fmt.Errorf("%w: %s row %d is dialog %q, index says %q", ErrCorruptOutput, s.files[1].path, s.n, b.dialog.DialogID, b.idx.DialogID)
	}
	b.turnsRaw = make([]parquet.Row, b.idx.Turns)
	for i := range b.turnsRaw {
		if b.turnsRaw[i], err = s.turns.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("%w: %s ends inside dialog %q", ErrCorruptOutput, s.files[0].path, b.idx.DialogID)
			}
			return nil, err
		}
	}
	s.n++
	return b, nil
}

func (s *dialogStream) Close() {
	for _, it := range []*rowIter{s.turns, s.dialogs, s.index} {
		if it != nil {
			it.Close()
		}
	}
	for _, f := range s.files {
		f.Close()
	}
}

// assembler writes the final files of a run directory from dialogs in
// input order and accumulates the summary.
//
// Without extra input columns turns.parquet is written from TurnRow values
// by parquet-go's typed writer (much faster than raw rows); rows replayed
// from parts or shards are decoded into TurnRow first. Turn rows are handed
// to the Parquet writer in fixed batches of stageRows whatever their source,
// so the bytes depend only on the row sequence.
type assembler struct {
	dir       string
	baseLeafs int
	turns     *rowFile            // with extra columns
	typed     *typedFile[TurnRow] // without
	stage     []TurnRow
	dialogs   *rowFile
	ordinals  *rowFile // sharded runs only
	acc       *summaryAcc
	wrap      writeWrapper
}

func newAssembler(dir string, ts *turnSchema, rowGroupSize int, withOrdinals bool, wrap writeWrapper) (*assembler, error) {
	a := &assembler{dir: dir, baseLeafs: ts.baseLeafs, acc: newSummaryAcc(), wrap: wrap}
	var err error
	if ts.extras {
		a.turns, err = createRowFile(filepath.Join(dir, TurnsFile), ts.schema, rowGroupSize, wrap)
	} else {
		a.typed, err = createTypedFile[TurnRow](filepath.Join(dir, TurnsFile), rowGroupSize, &parquet.Zstd, wrap)
		a.stage = make([]TurnRow, 0, stageRows)
	}
	if err != nil {
		return nil, err
	}
	if a.dialogs, err = createRowFile(filepath.Join(dir, DialogsFile), dialogRowSchema, rowGroupSize, wrap); err != nil {
		a.abort()
		return nil, err
	}
	if withOrdinals {
		if a.ordinals, err = createRowFile(filepath.Join(dir, OrdinalsFile), indexRowSchema, rowGroupSize, wrap); err != nil {
			a.abort()
			return nil, err
		}
	}
	return a, nil
}

func (a *assembler) add(b *bundle) error {
	for _, raw := range b.turnsRaw {
		if a.typed != nil {
			var tr TurnRow
			if err := safely(b.idx.DialogID, badinput.NoRow, func() error { return turnRowSchema.Reconstruct(&tr, raw) }); err != nil {
				return fmt.Errorf("%w: decoding a turn of dialog %q: %w", ErrCorruptOutput, b.idx.DialogID, err)
			}
			if err := a.checkTurn(&tr, b.idx.DialogID); err != nil {
				return err
			}
			a.acc.addTurn(&tr)
			if err := a.stageTurn(tr); err != nil {
				return err
			}
			continue
		}
		tr, err := turnStatOf(raw)
		if err != nil {
			return fmt.Errorf("%w: decoding a turn of dialog %q: %v", ErrCorruptOutput, b.idx.DialogID, err)
		}
		if err := a.checkTurn(&tr, b.idx.DialogID); err != nil {
			return err
		}
		a.acc.addTurn(&tr)
		if err := a.turns.Write(raw); err != nil {
			return err
		}
	}
	return a.addDialog(b.dialogRaw, &b.dialog, &b.idx)
}

// addJudged adds a dialog judged by this run.
func (a *assembler) addJudged(j *judgedDialog) error {
	for i := range j.turns {
		a.acc.addTurn(&j.turns[i])
		if err := a.stageTurn(j.turns[i]); err != nil {
			return err
		}
	}
	for _, raw := range j.turnRows {
		tr, err := turnStatOf(raw)
		if err != nil {
			return err
		}
		a.acc.addTurn(&tr)
		if err := a.turns.Write(raw); err != nil {
			return err
		}
	}
	idx := indexRow{InputOrdinal: j.ordinal, DialogID: j.id, Turns: int64(j.numTurns()), GoldSHA256: j.digest[:]}
	return a.addDialog(j.dialogRow, &j.dialog, &idx)
}

func (a *assembler) checkTurn(tr *TurnRow, dialogID string) error {
	if tr.DialogID != dialogID {
		return fmt.Errorf("%w: turn row of dialog %q found where dialog %q was expected", ErrCorruptOutput, tr.DialogID, dialogID)
	}
	return nil
}

func (a *assembler) stageTurn(tr TurnRow) error {
	a.stage = append(a.stage, tr)
	if len(a.stage) == stageRows {
		return a.flushStage()
	}
	return nil
}

func (a *assembler) flushStage() error {
	if len(a.stage) == 0 {
		return nil
	}
	err := a.typed.Write(a.stage)
	clear(a.stage)
	a.stage = a.stage[:0]
	return err
}

func (a *assembler) addDialog(raw parquet.Row, d *DialogRow, idx *indexRow) error {
	a.acc.addDialog(d, idx.GoldSHA256)
	if err := a.dialogs.Write(raw); err != nil {
		return err
	}
	if a.ordinals != nil {
		if err := a.ordinals.Write(indexRowSchema.Deconstruct(nil, idx)); err != nil {
			return err
		}
	}
	return nil
}

// statColumns are the leaf columns of turns.parquet the summary needs.
var statColumns = func() (c struct{ dialogID, pass, reason, structure, completeness, truthfulness, bucket, rootCause int }) {
	idx := func(name string) int {
		leaf, ok := turnRowSchema.Lookup(name)
		if !ok {
			panic("batch: TurnRow has no column " + name)
		}
		return leaf.ColumnIndex
	}
	c.dialogID, c.pass, c.reason = idx("dialog_id"), idx("pass"), idx("failure_reason")
	c.structure, c.completeness, c.truthfulness = idx("structure"), idx("completeness"), idx("truthfulness")
	c.bucket, c.rootCause = idx("chain_bucket"), idx("root_cause")
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
		default:
			continue
		}
		seen++
	}
	if seen != 8 {
		return TurnRow{}, fmt.Errorf("row has %d of the 8 summary columns", seen)
	}
	return tr, nil
}

// commitData renames the data files into place; the caller writes
// summary.json afterwards.
func (a *assembler) commitData() error {
	if a.typed != nil {
		if err := a.flushStage(); err != nil {
			a.abort()
			return err
		}
		if err := a.typed.Commit(); err != nil {
			a.abort()
			return err
		}
	}
	for _, f := range []*rowFile{a.turns, a.dialogs, a.ordinals} {
		if f == nil {
			continue
		}
		if err := f.Commit(); err != nil {
			a.abort()
			return err
		}
	}
	return nil
}

func (a *assembler) abort() {
	if a.typed != nil && !a.typed.closed {
		a.typed.Abort()
	}
	for _, f := range []*rowFile{a.turns, a.dialogs, a.ordinals} {
		if f != nil && !f.closed {
			f.Abort()
		}
	}
}

// removeTempOutputs deletes the temporary output files a killed run left.
func removeTempOutputs(dir string) error {
	return safefile.RemoveStale(dir, SummaryFile, TurnsFile, DialogsFile, OrdinalsFile)
}

// removeOutputs deletes the files of a previous run in dir, summary.json
// first so that the directory never looks complete with mixed files.
func removeOutputs(dir string) error {
	for _, n := range []string{SummaryFile, TurnsFile, DialogsFile, OrdinalsFile} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing previous output: %w", err)
		}
	}
	return nil
}
