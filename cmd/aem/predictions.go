package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/aem-dev/aem/input/predictions"
	"github.com/aem-dev/aem/metrics/align"
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

func (o *predictionOptions) addFlags(fs *flagSet) {
	in := fs.shared(topicInput)
	in.StringVar(&o.path, "predictions", "", "take the predicted side from chat logs or traces: a FILE or a DIR of files (see PREDICTIONS)")
	in.StringVar(&o.format, "predictions-format", "auto", "format of --predictions: auto, chat, otlp (GenAI or OpenInference spans) or phoenix")
	in.StringVar(&o.match, "match", "strict", "how predictions must follow the gold turns: strict, superset (extra calls allowed), subset (gold calls may be left out) or unordered")
	in.StringVar(&o.ignoreTools, "ignore-tools", "", "comma-separated function names whose calls are dropped before matching, e.g. think,calculate")
	in.StringVar(&o.mapTools, "map-tools", "", "function name to tool_id.action: name=tool.action,... (default: see PREDICTIONS)")
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
	if s.ReadOnly > 0 {
		fmt.Fprintf(w, "aem: kept %d predicted read-only calls as context (listed in turns.parquet, read_only, never scored)\n", s.ReadOnly)
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
