package evalevents

import (
	"context"
	"io"
	"iter"
	"time"

	"github.com/aem-dev/aem/input/predictions"
	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/rundir"
)

// WriteRun writes the verdicts of the finished run in runDir as events to
// the local file path (OTLP JSON logs), atomically: one per dialog and
// one per failed turn. version is aem's, for the instrumentation scope.
// sources, when not nil, is a fresh join of the run's inputs (gold and
// predictions, read in the same order as the run read them): it gives
// each prediction's trace and span ids, to which the events are attached.
// It returns the number of events written.
func WriteRun(ctx context.Context, runDir, path, version string, sources *predictions.Joiner) (int, error) {
	rd, err := rundir.Open(ctx, runDir, rundir.OpenOptions{})
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	out, err := safefile.Create(path)
	if err != nil {
		return 0, err
	}
	defer out.Abort()
	w := NewWriter(out, "aem", version, time.Time{})
	nextTurn, stop := iter.Pull2(rd.Turns(ctx))
	defer stop()
	var (
		held   *rundir.TurnRow
		events int
	)
	for dr, err := range rd.Dialogs(ctx) {
		if err != nil {
			return 0, err
		}
		res := dr.Result()
		for {
			if held == nil {
				tr, err, ok := nextTurn()
				if !ok {
					break
				}
				if err != nil {
					return 0, err
				}
				held = &tr
			}
			if held.DialogID != dr.DialogID || !rundir.SameTrial(held.Trial, dr.Trial) {
				break
			}
			res.Turns = append(res.Turns, held.Verdict())
			held = nil
		}
		conv, turn, err := sourcesOf(ctx, sources, dr.DialogID, dr.Trial)
		if err != nil {
			return 0, err
		}
		for _, e := range FromDialog(res, dr.Trial, conv, turn) {
			if err := w.Write(e); err != nil {
				return 0, err
			}
			events++
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return events, out.Commit()
}

// sourcesOf advances the join to the dialog (id, trial) (run outputs keep
// the input order; a shard holds a subset) and returns the trace of its
// conversation and the span of each turn's prediction.
func sourcesOf(ctx context.Context, j *predictions.Joiner, id string, trial *int64) (Source, func(int) (Source, bool), error) {
	none := func(int) (Source, bool) { return Source{}, false }
	if j == nil {
		return Source{}, none, nil
	}
	for {
		d, err := j.Next(ctx)
		if err == io.EOF {
			return Source{}, none, nil
		}
		if err != nil {
			return Source{}, nil, err
		}
		if d.ID != id || !rundir.SameTrial(d.Trial, trial) {
			continue
		}
		c, steps := j.Conversation(), j.Steps()
		byTurn := map[int]Source{}
		conv := Source{TraceID: c.Source.TraceID}
		for i, t := range d.Turns {
			if s := steps[i]; s != nil {
				byTurn[t.TurnNo] = Source{TraceID: s.Source.TraceID, SpanID: s.Source.SpanID}
				if conv.TraceID == "" {
					conv.TraceID = s.Source.TraceID
				}
			}
		}
		return conv, func(n int) (Source, bool) { s, ok := byTurn[n]; return s, ok && s.TraceID != "" }, nil
	}
}
