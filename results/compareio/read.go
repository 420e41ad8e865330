package compareio

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/rundir"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
)

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

// ReadRun reads a run directory written by `aem run` (a local path, or a
// blob URL such as s3:// or gs://) through rundir.Open, so it refuses what
// rundir refuses (errors wrap rundir.ErrNotRun, ErrIncomplete or
// ErrCorrupt), and also a run whose summary names no scorer or whose rows
// hold values compare cannot use (rundir.ErrCorrupt, naming row and
// column). A cancelled context is returned as is.
func ReadRun(ctx context.Context, dir string) (compare.Run, error) {
	if !location.IsURL(dir) {
		dir = filepath.Clean(dir)
	}
	rd, err := rundir.Open(ctx, dir, rundir.OpenOptions{})
	if err != nil {
		return compare.Run{}, err
	}
	defer rd.Close()
	sum := rd.Summary
	if sum.Scorer == "" {
		return compare.Run{}, rd.Corrupt(rundir.SummaryFile, badinput.NoRow, "scorer", "the summary names no scorer")
	}
	ident, err := identity(sum)
	if err != nil {
		return compare.Run{}, rd.Corrupt(rundir.SummaryFile, badinput.NoRow, "thresholds", err.Error())
	}
	run := compare.Run{Name: dir, Identity: ident, Turns: make([]compare.TurnVerdict, 0, sum.Turns), Dialogs: make([]compare.Dialog, 0, sum.Dialogs),
		Trials: sum.Trials}
	var row int64
	for tr, err := range rd.Turns(ctx) {
		if err != nil {
			return compare.Run{}, err
		}
		if tr.Context() { // a read-only call kept as context: not a verdict
			row++
			continue
		}
		t, prob := turnFromRow(&tr)
		if prob != nil {
			return compare.Run{}, rd.Corrupt(rundir.TurnsFile, row, prob.column, prob.problem)
		}
		run.Turns = append(run.Turns, t)
		row++
	}
	for dr, err := range rd.Dialogs(ctx) {
		if err != nil {
			return compare.Run{}, err
		}
		run.Dialogs = append(run.Dialogs, dialogFromRow(&dr))
	}
	return run, nil
}

// identity derives the comparability identity from a summary.
func identity(s *rundir.Summary) (compare.Identity, error) {
	th := s.Thresholds
	th.Source = "" // informative only
	b, err := json.Marshal(th)
	if err != nil {
		return compare.Identity{}, err
	}
	// Metric settings that change verdicts; the column mapping and the
	// shard do not.
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(s.Settings)) {
		if k == "mapping" || k == "shard" {
			continue
		}
		kv = append(kv, k+"="+s.Settings[k])
	}
	return compare.Identity{MetricVersion: s.MetricVersion, Dataset: s.Dataset, Scorer: s.Scorer, Thresholds: string(b), Settings: strings.Join(kv, "; ")}, nil
}

type rowProblem struct{ column, problem string }

func turnFromRow(r *rundir.TurnRow) (compare.TurnVerdict, *rowProblem) {
	t := compare.TurnVerdict{
		DialogID: r.DialogID, Trial: r.Trial, TurnNo: int(r.TurnNo), Kind: metrics.Kind(r.Kind),
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
		t.FieldScores = append(t.FieldScores, compare.FieldScore{Field: fs.Field, Method: fs.Method, Kind: deref(fs.Kind), Score: fs.Score, Threshold: fs.Threshold, ThresholdFrom: fs.ThresholdFrom, Pass: fs.Pass})
	}
	return t, nil
}

// callName is a call's tool.action (metrics.Call.FieldBase), "" for a
// turn without one.
func callName(tool, action *string) string {
	if tool == nil && action == nil {
		return ""
	}
	return metrics.Call{ToolID: deref(tool), Action: deref(action)}.FieldBase()
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

func dialogFromRow(r *rundir.DialogRow) compare.Dialog {
	d := compare.Dialog{ID: r.DialogID, Trial: r.Trial, TestPass: r.TestPass, Score: r.Score, SuccessRate: r.SuccessRate,
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
