package compareio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
)

const rerunFix = "rerun 'aem run' into this directory"

// ReadRuns reads several run directories, in order. A directory given
// twice gets its position appended to its name ("runs/v1#2") so every run
// has a distinct name.
func ReadRuns(ctx context.Context, dirs []string) ([]compare.Run, error) {
	runs := make([]compare.Run, 0, len(dirs))
	seen := map[string]bool{}
	for i, d := range dirs {
		r, err := ReadRun(ctx, d)
		if err != nil {
			return nil, err
		}
		if seen[r.Name] {
			r.Name = fmt.Sprintf("%s#%d", r.Name, i+1)
		}
		seen[r.Name] = true
		runs = append(runs, r)
	}
	return runs, nil
}

// ReadRun reads a run directory written by `aem run`. Errors are
// *RunError values wrapping ErrNotRunDir, ErrMissingFile or ErrCorruptFile.
func ReadRun(ctx context.Context, dir string) (compare.Run, error) {
	dir = filepath.Clean(dir)
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		cause := ErrNotRunDir
		if err != nil {
			cause = fmt.Errorf("%w: %v", ErrNotRunDir, err)
		}
		return compare.Run{}, &RunError{Dir: dir, Row: -1, Err: cause, Fix: "pass a directory written by 'aem run -o DIR'"}
	}
	for _, f := range []string{batch.SummaryFile, batch.TurnsFile, batch.DialogsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return compare.Run{}, &RunError{Dir: dir, File: f, Row: -1, Err: fmt.Errorf("%w: %v", ErrMissingFile, err),
				Fix: "the run did not finish or the directory is not a run; " + rerunFix}
		}
	}
	sum, err := readSummary(dir)
	if err != nil {
		return compare.Run{}, err
	}
	ident, err := identity(dir, sum)
	if err != nil {
		return compare.Run{}, err
	}
	run := compare.Run{Name: dir, Identity: ident}
	var turnRows, dialogRows int
	err = readParquet(ctx, dir, batch.TurnsFile, func(row int64, tr *batch.TurnRow) error {
		turnRows++
		t, err := turnFromRow(tr)
		if err != nil {
			return &RunError{Dir: dir, File: batch.TurnsFile, Row: row, Column: err.column, Err: fmt.Errorf("%w: %s", ErrCorruptFile, err.problem), Fix: rerunFix}
		}
		run.Turns = append(run.Turns, t)
		return nil
	})
	if err != nil {
		return compare.Run{}, err
	}
	err = readParquet(ctx, dir, batch.DialogsFile, func(row int64, dr *batch.DialogRow) error {
		dialogRows++
		run.Dialogs = append(run.Dialogs, dialogFromRow(dr))
		return nil
	})
	if err != nil {
		return compare.Run{}, err
	}
	if turnRows != sum.Turns || dialogRows != sum.Dialogs {
		return compare.Run{}, &RunError{Dir: dir, File: batch.SummaryFile, Row: -1,
			Err: fmt.Errorf("%w: summary.json counts %d turns and %d dialogs but turns.parquet has %d rows and dialogs.parquet %d",
				ErrCorruptFile, sum.Turns, sum.Dialogs, turnRows, dialogRows),
			Fix: "the files come from different runs; " + rerunFix}
	}
	return run, nil
}

func readSummary(dir string) (*batch.Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, batch.SummaryFile))
	if err != nil {
		return nil, &RunError{Dir: dir, File: batch.SummaryFile, Row: -1, Err: fmt.Errorf("%w: %v", ErrCorruptFile, err), Fix: rerunFix}
	}
	var s batch.Summary
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		col := ""
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			col = te.Field
		}
		return nil, &RunError{Dir: dir, File: batch.SummaryFile, Row: -1, Column: col, Err: fmt.Errorf("%w: invalid JSON: %v", ErrCorruptFile, err), Fix: rerunFix}
	}
	if s.Version == 0 || s.Scorer == "" {
		return nil, &RunError{Dir: dir, File: batch.SummaryFile, Row: -1, Column: "version/scorer",
			Err: fmt.Errorf("%w: not a run summary (no version or scorer)", ErrCorruptFile), Fix: rerunFix}
	}
	return &s, nil
}

// identity derives the comparability identity from a summary.
func identity(dir string, s *batch.Summary) (compare.Identity, error) {
	th := s.Thresholds
	th.Model, th.Source = "", "" // informative only
	b, err := json.Marshal(th)
	if err != nil {
		return compare.Identity{}, &RunError{Dir: dir, File: batch.SummaryFile, Row: -1, Column: "thresholds", Err: fmt.Errorf("%w: %v", ErrCorruptFile, err)}
	}
	return compare.Identity{Dataset: s.Dataset, Scorer: s.Scorer, Thresholds: string(b)}, nil
}

// readParquet decodes a Parquet file row by row into T, turning decoder
// panics on corrupt data into errors.
func readParquet[T any](ctx context.Context, dir, name string, fn func(row int64, v *T) error) (err error) {
	path := filepath.Join(dir, name)
	corrupt := func(row int64, cause any) error {
		return &RunError{Dir: dir, File: name, Row: row, Err: fmt.Errorf("%w: %v", ErrCorruptFile, cause), Fix: rerunFix}
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &RunError{Dir: dir, File: name, Row: -1, Err: fmt.Errorf("%w: %v", ErrMissingFile, err), Fix: rerunFix}
		}
		return corrupt(-1, err)
	}
	defer f.Close()
	var row int64 = -1
	defer func() {
		if r := recover(); r != nil {
			err = corrupt(row, r)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return corrupt(-1, err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return corrupt(-1, err)
	}
	if err := checkColumns[T](pf); err != nil {
		return &RunError{Dir: dir, File: name, Row: -1, Column: err.Error(), Err: fmt.Errorf("%w: required column missing", ErrCorruptFile), Fix: rerunFix}
	}
	r := parquet.NewGenericReader[T](pf)
	defer r.Close()
	buf := make([]T, 256)
	row = 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := r.Read(buf)
		for i := range n {
			if err := fn(row, &buf[i]); err != nil {
				return err
			}
			row++
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				return nil
			}
			return corrupt(row, rerr)
		}
	}
}

// requiredColumns are the columns compare cannot do without.
var requiredColumns = map[string][]string{
	"TurnRow":   {"dialog_id", "turn_no", "kind", "pass", "failure_reason", "structure", "completeness", "truthfulness", "root_cause"},
	"DialogRow": {"dialog_id", "test_pass", "score"},
}

// checkColumns reports the first required column of T missing from the
// file (parquet-go would silently read it as zero).
func checkColumns[T any](pf *parquet.File) error {
	var zero T
	name := fmt.Sprintf("%T", zero)
	name = name[strings.LastIndex(name, ".")+1:]
	for _, c := range requiredColumns[name] {
		if _, ok := pf.Schema().Lookup(c); !ok {
			return errors.New(c)
		}
	}
	return nil
}

type rowProblem struct{ column, problem string }

func turnFromRow(r *batch.TurnRow) (compare.Turn, *rowProblem) {
	t := compare.Turn{
		DialogID: r.DialogID, TurnNo: int(r.TurnNo), Kind: metrics.Kind(r.Kind),
		Pass: r.Pass, FailureReason: metrics.Reason(deref(r.FailureReason)), OwnReason: metrics.Reason(deref(r.OwnReason)),
		ChainBucket: deref(r.ChainBucket), RootCause: r.RootCause, Critical: r.Critical,
	}
	if r.DialogID == "" {
		return t, &rowProblem{"dialog_id", "empty dialog_id"}
	}
	switch t.Kind {
	case metrics.KindAction, metrics.KindResponse:
	default:
		return t, &rowProblem{"kind", fmt.Sprintf("kind %q is neither %q nor %q", r.Kind, metrics.KindAction, metrics.KindResponse)}
	}
	for _, o := range []struct {
		col string
		v   string
		dst *metrics.Outcome
	}{{"structure", r.Structure, &t.Structure}, {"completeness", r.Completeness, &t.Completeness}, {"truthfulness", r.Truthfulness, &t.Truthfulness}} {
		switch metrics.Outcome(o.v) {
		case metrics.OutcomePass, metrics.OutcomeFail, metrics.OutcomeNA:
			*o.dst = metrics.Outcome(o.v)
		case "":
			*o.dst = metrics.OutcomeNA
		default:
			return t, &rowProblem{o.col, fmt.Sprintf("outcome %q is not pass, fail or n/a", o.v)}
		}
	}
	if !r.Pass && t.FailureReason == "" {
		return t, &rowProblem{"failure_reason", "a failed turn has no failure_reason"}
	}
	if r.CascadeFrom != nil {
		t.CascadeFrom = int(*r.CascadeFrom)
	}
	if t.Kind == metrics.KindAction {
		t.Tool = callName(r.GoldToolID, r.GoldAction)
		if t.Tool == "" {
			t.Tool = callName(r.PredictToolID, r.PredictAction)
		}
		t.Gold = callText(r.GoldToolID, r.GoldAction, r.GoldArgs)
		t.Predicted = callText(r.PredictToolID, r.PredictAction, r.PredictArgs)
	} else {
		t.Gold = deref(r.GoldResponse)
		t.Predicted = deref(r.PredictResponse)
	}
	for _, fs := range r.FieldScores {
		t.FieldScores = append(t.FieldScores, compare.FieldScore(fs))
	}
	return t, nil
}

func callName(tool, action *string) string {
	if tool == nil && action == nil {
		return ""
	}
	return deref(tool) + "." + deref(action)
}

func callText(tool, action, args *string) string {
	name := callName(tool, action)
	if name == "" {
		return ""
	}
	if a := deref(args); a != "" {
		return name + " " + a
	}
	return name
}

func dialogFromRow(r *batch.DialogRow) compare.Dialog {
	d := compare.Dialog{ID: r.DialogID, TestPass: r.TestPass, Score: r.Score, SuccessRate: r.SuccessRate,
		RootCause: metrics.Reason(deref(r.RootCause))}
	if r.FirstFailureTurn != nil {
		d.FirstFailureTurn = int(*r.FirstFailureTurn)
	}
	return d
}

func deref[T any](p *T) T {
	var z T
	if p == nil {
		return z
	}
	return *p
}
