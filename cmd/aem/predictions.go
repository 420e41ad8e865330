package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"iter"
	"strings"
	"time"

	"github.com/aem-dev/aem/input/predictions"
	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/align"
	"github.com/aem-dev/aem/results/evalevents"
	"github.com/aem-dev/aem/rundir"
)

// predictionOptions are the flags that take the predicted side from chat
// logs or traces (aem run and aem import).
type predictionOptions struct {
	path        string
	format      string
	match       string
	ignoreTools string
	mapTools    string
	tempDir     string
}

func (o *predictionOptions) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.path, "predictions", "", "take the predicted side from chat logs or traces: a FILE or a DIR of files (see PREDICTIONS)")
	fs.StringVar(&o.format, "predictions-format", "auto", "format of --predictions: auto, chat, otlp (GenAI or OpenInference spans) or phoenix")
	fs.StringVar(&o.match, "match", "strict", "how predictions must follow the gold turns: strict, superset (extra calls allowed), subset (gold calls may be left out) or unordered")
	fs.StringVar(&o.ignoreTools, "ignore-tools", "", "comma-separated function names whose calls are dropped before matching, e.g. think,calculate")
	fs.StringVar(&o.mapTools, "map-tools", "", "function name to tool_id.action: name=tool.action,... (default: see PREDICTIONS)")
}

// predictionsHelp is the PREDICTIONS section of run's and import's help.
const predictionsHelp = `
PREDICTIONS
	With --predictions, GOLD's predicted sides are ignored and taken from
	where agents leave them, detected from the content:
	  chat logs      JSON Lines {"conversation_id", "trial"?, "messages": [...]}
	                 with OpenAI chat-completions messages
	  OTLP JSON      OpenTelemetry GenAI spans (execute_tool, chat,
	                 invoke_agent) or OpenInference spans (TOOL, LLM), grouped
	                 by gen_ai.conversation.id / session.id, else trace id
	  Phoenix        span JSON Lines exported from Arize Phoenix
	A conversation answers the gold dialog with the same id; each repeated
	run (trial) is a dialog of its own, keyed by (dialog_id, trial). Gold
	turns are matched to the
	agent's steps by an optimal alignment (--match). A function name becomes
	tool_id = name, action = call, unless the gold calls use tool.action
	names (sales_db.aggregate) or --map-tools says otherwise. Gold dialogs
	without predictions are scored (every turn missing_turn) and counted;
	conversations without gold are counted and listed on stderr. Each turn
	keeps predict_seq and its source (file, line, trace and span id, message
	index) as extra columns. With trials, summary.json reports pass@k,
	pass^k (all k trials pass) and the share of flaky tasks, dialogs.parquet
	each task's (task_pass_at_k, task_pass_hat_k, task_flaky), and aem
	compare the change in pass^k.
	--otel-out writes each dialog's and each failed turn's verdict as an
	OpenTelemetry gen_ai.evaluation.result event on the span it judges.
`

// enabled reports whether --predictions was given.
func (o *predictionOptions) enabled() bool { return o.path != "" }

// alignOptions resolves --match, --ignore-tools and --map-tools.
func (o *predictionOptions) alignOptions() (align.Options, error) {
	mode, err := align.ParseMode(o.match)
	if err != nil {
		return align.Options{}, err
	}
	naming, err := align.ParseNaming(o.mapTools)
	if err != nil {
		return align.Options{}, err
	}
	var ignore []string
	for _, t := range strings.Split(o.ignoreTools, ",") {
		if t = strings.TrimSpace(t); t != "" {
			ignore = append(ignore, t)
		}
	}
	return align.Options{Mode: mode, IgnoreTools: ignore, Naming: naming}, nil
}

// open reads the predictions into a store; the caller closes it.
func (o *predictionOptions) open(ctx context.Context, cmd *Command) (*predictions.Store, align.Options, error) {
	format, err := predictions.ParseFormat(o.format)
	if err != nil {
		return nil, align.Options{}, usagef(cmd, "%w", err)
	}
	ao, err := o.alignOptions()
	if err != nil {
		return nil, align.Options{}, usagef(cmd, "%w", err)
	}
	st, err := predictions.Open(ctx, o.path, predictions.Options{Format: format, TempDir: o.tempDir})
	return st, ao, err
}

// reportJoin tells the user what the join left unscored or could not place.
func reportJoin(w io.Writer, s predictions.JoinStats) {
	fmt.Fprintf(w, "aem: joined %d gold dialogs with predictions into %d dialogs", s.GoldDialogs, s.Dialogs)
	if s.MalformedArgs > 0 {
		fmt.Fprintf(w, "; %d calls had arguments that are not a JSON object (scored unparseable_arguments; see predict_args_error)", s.MalformedArgs)
	}
	fmt.Fprintln(w)
	if s.NoPredictions > 0 {
		fmt.Fprintf(w, "aem: %d gold dialogs have no predictions (every turn is missing_turn): %s\n", s.NoPredictions, list(s.NoPredictionIDs, s.NoPredictions))
	}
	if s.Unmatched > 0 {
		fmt.Fprintf(w, "aem: %d conversations have no gold dialog and were not scored: %s\n", s.Unmatched, list(s.UnmatchedIDs, s.Unmatched))
	}
	var left []string
	for _, x := range []struct {
		n    int
		what string
	}{{s.Ignored, "calls of --ignore-tools"}, {s.Context, "replies kept as context (the gold dialog has none)"}, {s.Allowed, "extra calls allowed by --match superset"}} {
		if x.n > 0 {
			left = append(left, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	if len(left) > 0 {
		fmt.Fprintf(w, "aem: left out %s\n", strings.Join(left, ", "))
	}
	if s.Unscored > 0 {
		fmt.Fprintf(w, "aem: --match subset left %d gold turns unscored (calls the agent did not make)\n", s.Unscored)
	}
}

func list(ids []string, total int) string {
	s := strings.Join(ids, ", ")
	if total > len(ids) {
		s += fmt.Sprintf(", ... (%d more)", total-len(ids))
	}
	return s
}

// writeOtel writes the verdicts of the run in runDir as OpenTelemetry
// evaluation events to path (OTLP JSON logs), atomically. sources, when
// not nil, is a second join of the same inputs: it gives each dialog's
// trial and each prediction's trace and span ids. It returns the number of
// events.
func writeOtel(ctx context.Context, runDir, path string, sources *predictions.Joiner) (int, error) {
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
	w := evalevents.NewWriter(out, "aem", version(), time.Time{})
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
		res := metrics.DialogResult{DialogID: dr.DialogID, Score: dr.Score, TestPass: dr.TestPass, Reason: dr.Reason, RootCause: metrics.Reason(deref(dr.RootCause))}
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
			res.Turns = append(res.Turns, verdictOf(held))
			held = nil
		}
		conv, turn, err := sourcesOf(ctx, sources, dr.DialogID, dr.Trial)
		if err != nil {
			return 0, err
		}
		for _, e := range evalevents.FromDialog(res, dr.Trial, conv, turn) {
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

// sourcesOf advances the second join to the dialog (id, trial) (run
// outputs keep the input order; a shard holds a subset) and returns its
// sources.
func sourcesOf(ctx context.Context, j *predictions.Joiner, id string, trial *int64) (evalevents.Source, func(int) (evalevents.Source, bool), error) {
	none := func(int) (evalevents.Source, bool) { return evalevents.Source{}, false }
	if j == nil {
		return evalevents.Source{}, none, nil
	}
	for {
		d, err := j.Next(ctx)
		if err == io.EOF {
			return evalevents.Source{}, none, nil
		}
		if err != nil {
			return evalevents.Source{}, nil, err
		}
		if d.ID != id || !rundir.SameTrial(d.Trial, trial) {
			continue
		}
		c, steps := j.Conversation(), j.Steps()
		byTurn := map[int]evalevents.Source{}
		conv := evalevents.Source{TraceID: c.Source.TraceID}
		for i, t := range d.Turns {
			if s := steps[i]; s != nil {
				byTurn[t.TurnNo] = evalevents.Source{TraceID: s.Source.TraceID, SpanID: s.Source.SpanID}
				if conv.TraceID == "" {
					conv.TraceID = s.Source.TraceID
				}
			}
		}
		return conv, func(n int) (evalevents.Source, bool) { s, ok := byTurn[n]; return s, ok && s.TraceID != "" }, nil
	}
}

// verdictOf rebuilds the parts of a verdict the events explain.
func verdictOf(tr *rundir.TurnRow) metrics.Verdict {
	v := metrics.Verdict{DialogID: tr.DialogID, TurnNo: int(tr.TurnNo), PredictTurnNo: int(tr.PredictTurnNo), Pass: tr.Pass,
		FailureReason: metrics.Reason(deref(tr.FailureReason)), OwnReason: metrics.Reason(deref(tr.OwnReason)),
		MissingKeys: tr.MissingKeys, ExtraKeys: tr.ExtraKeys}
	if tr.CascadeFrom != nil {
		v.CascadeFrom = int(*tr.CascadeFrom)
	}
	for _, fs := range tr.FieldScores {
		v.FieldScores = append(v.FieldScores, metrics.FieldScore{Field: fs.Field, Method: fs.Method, Score: fs.Score, Threshold: fs.Threshold, Pass: fs.Pass})
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
