package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/input/predictions"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/results/evalevents"
	"github.com/aem-dev/aem/results/report"
	"github.com/aem-dev/aem/rundir"
)

type runOptions struct {
	out           string
	input         inputOptions
	metric        metricOptions
	scorer        scorerOptions
	workers       int
	resume        bool
	force         bool
	shard         string
	requireSorted bool
	spillDir      string
	workDir       string
	quiet         bool
	pred          predictionOptions
	otelOut       string
	report        bool
	reportOpts    reportOptions
	strictGold    bool
}

func (o *runOptions) addFlags(fs *flagSet) {
	o.input.addFlags(fs)
	in := fs.own(topicInput)
	in.BoolVar(&o.requireSorted, "require-sorted", false, "fail on input whose dialogs' rows are not contiguous instead of grouping them on disk")
	in.BoolVar(&o.strictGold, "strict-gold", false, "refuse gold calls that break their tool definitions (exit 3, listing all) instead of letting the gold win for those fields")
	o.pred.addFlags(fs)
	o.metric.addFlags(fs)
	o.scorer.addFlags(fs)
	fs.out(&o.out, "output run directory (local path, file://, s3:// or gs:// URL)")
	out := fs.own(topicOutput)
	out.BoolVar(&o.resume, "resume", false, "continue the unfinished run checkpointed in the output directory")
	out.BoolVar(&o.force, "force", false, "write into an output directory that is not empty and not a run's, and remove report.html, review.jsonl and sweep/ left there by an earlier run")
	out.StringVar(&o.otelOut, "otel-out", "", "also write the verdicts as OpenTelemetry gen_ai.evaluation.result events (OTLP JSON logs) to this local file")
	out.BoolVar(&o.report, "report", false, "also write the HTML run report, OUTDIR/report.html (see 'aem help report')")
	o.reportOpts.addFlags(fs, "report-")
	fs.quiet(&o.quiet)
	scale := fs.own(topicScale)
	scale.StringVar(&o.shard, "shard", "", "evaluate only shard I of N (I/N, 0-based); default from JOB_COMPLETION_INDEX/JOB_COMPLETIONS when set")
	scale.StringVar(&o.spillDir, "spill-dir", "", "where unsorted input is grouped on disk (default: the system temp dir)")
	shared := fs.shared(topicScale)
	shared.IntVar(&o.workers, "workers", 0, "scoring workers (0: one per core)")
	shared.StringVar(&o.workDir, "work-dir", "", workDirHelp)
}

func cmdRun() *Command {
	return &Command{
		Name:      "run",
		UsageLine: "run INPUT -o OUTDIR [flags]",
		Short:     "score a golden dataset: per-turn verdicts, dialog scores, summary",
		Long: `
Run scores every turn of a golden dataset and writes the run directory:
OUTDIR/turns.parquet (one verdict per scored turn), OUTDIR/dialogs.parquet
(one composed score per dialog) and OUTDIR/summary.json (run totals).

INPUT is a golden dataset in Parquet (one row per turn) or in the AEM
write-up's JSON (a JSON array of turns, or JSON Lines of dialogs); the
format is detected from the content. Outputs appear only when the run
succeeds; a killed run continues with --resume.

OUTDIR must be new, empty or a run directory; a run there is replaced,
but report.html, review.jsonl or sweep/ made from it are refused, named,
unless --force removes them (--force also writes into a directory that
is not a run's, touching nothing else). No input is ever written over.
One process writes OUTDIR at a time: a second fails at once, naming the
first one's pid.

` + installRootHelp + `

EXAMPLES
	aem run datasets/example/golden.jsonl -o out/example --thresholds datasets/example/thresholds.json
	aem run golden.parquet -o out --threshold 0.6 --workers 2
	aem run theirs.parquet -o out --map gold_args=expected_arguments,turn=role
	aem run golden.parquet -o out --thresholds sweep/thresholds.json
	aem run golden.parquet -o out --precision fp32
	aem run bfcl.parquet -o out --tools tools.json
	aem run golden.parquet -o out --resume
	aem run s3://bucket/golden.parquet -o s3://bucket/runs/nightly --shard 0/8
	aem run gold.jsonl --predictions traces.otlp.jsonl -o out --otel-out out/evals.otlp.jsonl
	aem run gold.parquet --predictions chats.jsonl --match superset --ignore-tools think -o out
` + predictionsHelp,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o runOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef(lookup("run"), "run takes exactly one INPUT, got %d", len(args))
				}
				if o.out == "" {
					return usagef(lookup("run"), "run needs an output directory: -o OUTDIR")
				}
				if o.report && location.IsURL(o.out) {
					return usagef(lookup("run"), "--report writes into a local run directory; for %s run 'aem report %s -o report.html' afterwards", o.out, o.out)
				}
				return runRun(ctx, env, o, args[0])
			}
		},
	}
}

// backgroundGold is what a run learns from the whole gold side of a local
// input (batch.ReadGold: the gold replies' words, the gold calls'
// conflicts with their definitions), read while the scorer opens: a
// model's sessions take a moment to open, and it is needed before scoring
// anyway.
type backgroundGold struct {
	cancel context.CancelFunc
	done   chan *batch.Gold // nil when it could not be read
}

// readGold starts reading input's gold side; a remote input is read by
// batch.Run once it has its local copy.
func readGold(ctx context.Context, input string, opts golden.ReadOptions) *backgroundGold {
	ctx, cancel := context.WithCancel(ctx)
	b := &backgroundGold{cancel: cancel, done: make(chan *batch.Gold, 1)}
	if location.IsURL(input) {
		b.done <- nil
		return b
	}
	go func() {
		g, err := batch.ReadGold(ctx, input, opts)
		if err != nil {
			g = nil // batch.Run reads the input again and says what is wrong with it
		}
		b.done <- g
	}()
	return b
}

// wait returns the Gold, or nil for batch.Run to read.
func (b *backgroundGold) wait() *batch.Gold {
	defer b.cancel()
	return <-b.done
}

// stop abandons the reading and waits for its reader to close.
func (b *backgroundGold) stop() {
	b.cancel()
	<-b.done
}

func runRun(ctx context.Context, env *Env, o runOptions, input string) (err error) {
	o.metric.readOnlyTools = o.input.readOnly()
	thresholdsFile, err := o.metric.readThresholds()
	if err != nil {
		return err
	}
	metric, err := o.metric.metric(thresholdsFile) // flags checked before anything opens
	if err != nil {
		return err
	}
	opts := batch.Options{
		Input:   input,
		OutDir:  o.out,
		Force:   o.force,
		Inputs:  []string{o.metric.thresholdsFile, o.input.tools, o.pred.path},
		Writes:  o.writes(),
		WorkDir: o.workDir,
		URLMux:  env.blobs(),
	}
	// The output directory first: a second run into it fails at once,
	// before a model or a cache is opened.
	if opts.Output, err = batch.ClaimOutput(ctx, opts); err != nil {
		return err
	}
	defer func() { opts.Output.Release(err != nil) }()
	readOpts, err := o.input.readOptions()
	if err != nil {
		return err
	}
	shard, err := o.shardSpec()
	if err != nil {
		return err
	}
	readOpts.RequireSorted, readOpts.SpillDir = o.requireSorted, o.spillDir
	readOpts.Hook = unsortedNotice{env: env, quiet: o.quiet}
	gold := readGold(ctx, input, readOpts)
	sc, err := o.scorer.open(ctx, env, thresholdsFile, o.metric.thresholdsFile, o.metric.calibrate())
	if err != nil {
		gold.stop()
		return err
	}
	if sc.calibration != nil {
		if metric, err = o.metric.metric(sc.calibration); err != nil {
			gold.stop()
			return errors.Join(err, sc.finish(env.Stderr))
		}
	}
	defer func() {
		sc.finish(env.Stderr)
		printCacheUsage(status(env.Stderr, o.quiet), sc.caches)
	}()
	var judgeLine func(batch.Stats, int64) string
	var meter batch.JudgeMeter
	if sc.judge != nil {
		judgeLine, meter = judgeStatus(sc.judge), judgeMeter{sc}
		if w := clauseBandWarning(metric.Config().Thresholds, sc.escalation.Bands()); w != "" {
			fmt.Fprintln(env.Stderr, "aem: warning: "+w)
		}
	}
	progress := &budgetStopped{Progress: newProgress(env, o.quiet, judgeLine)}
	opts.Workers, opts.Metric, opts.Scorer, opts.Resume, opts.Shard = o.workers, metric, sc.Scorer, o.resume, shard
	opts.Progress, opts.CacheStats, opts.Judge = progress, sc.cacheStats, meter
	opts.EmbeddingUsage, opts.ReadOptions, opts.Gold, opts.StrictGold = sc.embedding, readOpts, gold.wait(), o.strictGold
	var join func() (*predictions.Joiner, error) // a fresh join of the same inputs
	if o.pred.enabled() {
		if location.IsURL(input) {
			return usagef(lookup("run"), "--predictions needs a local GOLD file, not %s", input)
		}
		o.pred.tempDir = o.spillDir
		st, ao, err := o.pred.open(ctx, lookup("run"))
		if err != nil {
			return err
		}
		ao.ReadOnlyTools = o.metric.readOnlyTools
		defer st.Close()
		join = func() (*predictions.Joiner, error) {
			r, err := golden.Open(ctx, input, opts.ReadOptions)
			if err != nil {
				return nil, err
			}
			j, err := predictions.NewJoiner(r, st, ao)
			if err != nil {
				r.Close()
			}
			return j, err
		}
		j, err := join()
		if err != nil {
			return err
		}
		opts.Source = j // batch.Run closes it
		if opts.SourceID, err = predictions.Fingerprint(input, st, fmt.Sprintf("%+v", ao)); err != nil {
			return err
		}
		defer func() { reportJoin(env.Stderr, j.Stats()) }()
	}
	sum, err := batch.Run(ctx, opts)
	if errors.Is(err, judge.ErrBudget) {
		return fmt.Errorf("%w\naem: %s", err, progress.budgetMessage(sc.judge.Stats().Calls))
	}
	if err != nil {
		return err
	}
	printRunSummary(env, sum, o.out)
	reportConflicts(env.Stderr, sum.GoldConflicts, o.out)
	if o.report {
		opts, err := o.reportOpts.options()
		if err != nil {
			return usagef(lookup("run"), "%w", err)
		}
		o.reportOpts.out, o.reportOpts.quiet = filepath.Join(o.out, report.HTMLFile), o.quiet
		if err := writeReport(ctx, env, o.out, o.reportOpts, opts); err != nil {
			return err
		}
	}
	if o.otelOut != "" {
		var sources *predictions.Joiner
		if join != nil {
			if sources, err = join(); err != nil {
				return err
			}
			defer sources.Close()
		}
		n, err := evalevents.WriteRun(ctx, o.out, o.otelOut, version(), sources)
		if err != nil {
			return fmt.Errorf("writing evaluation events to %s: %w", o.otelOut, err)
		}
		if !o.quiet {
			fmt.Fprintf(env.Stderr, "aem: wrote %d evaluation events to %s\n", n, o.otelOut)
		}
	}
	return nil
}

// writes are the files the run writes besides the run directory's own.
func (o runOptions) writes() []string {
	var w []string
	if o.report {
		w = append(w, filepath.Join(o.out, report.HTMLFile))
	}
	if o.otelOut != "" {
		w = append(w, o.otelOut)
	}
	return w
}

func (o runOptions) shardSpec() (rundir.Shard, error) {
	if o.shard != "" {
		return rundir.ParseShard(o.shard)
	}
	s, _, err := batch.ShardFromEnv()
	return s, err
}

// unsortedNotice tells the user, once, that the input was grouped on disk.
type unsortedNotice struct {
	env   *Env
	quiet bool
}

func (n unsortedNotice) UnsortedFallback(u golden.UnsortedInfo) {
	if n.quiet {
		return
	}
	fmt.Fprintf(n.env.Stderr, "aem: %s is not grouped by dialog_id (dialog %q appears at row %d and again at row %d); grouping %d rows on disk first. Sort the file by dialog_id to skip this step.\n",
		u.File, u.DialogID, u.FirstRow, u.Row, u.Rows)
}

// maxConflictLines is how many gold conflicts a run lists on stderr;
// summary.json has them all.
const maxConflictLines = 20

// reportConflicts lists, on stderr, the first gold calls that break their
// tool definitions and how many there are.
func reportConflicts(w io.Writer, gc *rundir.GoldConflicts, out string) {
	if gc == nil {
		return
	}
	fmt.Fprintf(w, "aem: %d gold value(s) in %d dialog(s) break their tool definitions; the gold wins for those fields (--strict-gold refuses them):\n",
		gc.Count, gc.Dialogs)
	for _, c := range gc.List[:min(len(gc.List), maxConflictLines)] {
		fmt.Fprintf(w, "  %s\n", c.Message)
	}
	if n := gc.Count - maxConflictLines; n > 0 {
		fmt.Fprintf(w, "  ... and %d more\n", n)
	}
	fmt.Fprintf(w, "  every one is in %s (gold_conflicts)\n", path.Join(strings.TrimSuffix(out, "/"), rundir.SummaryFile))
}

// printRunSummary prints the run's headline figures on stdout.
func printRunSummary(env *Env, s *rundir.Summary, out string) {
	w := env.Stdout
	fmt.Fprintf(w, "scored %d turns in %d dialogs with %s\n", s.Turns, s.Dialogs, s.Scorer)
	fmt.Fprintf(w, "correctness %.3f (%d/%d turns pass); dialogs passing %.3f; mean dialog score %.3f\n",
		s.Correctness, s.Passed, s.Turns, s.DialogPassRate, s.MeanDialogScore)
	for _, k := range []string{"structure", "completeness", "truthfulness"} {
		if v, ok := s.SubMetrics[k]; ok {
			fmt.Fprintf(w, "  %-13s %.3f\n", k, v)
		}
	}
	if len(s.FailureReasons) > 0 {
		fmt.Fprintln(w, "failures (root cause / cascade):")
		for _, r := range sortedReasonKeys(s.FailureReasons) {
			c := s.FailureReasons[r]
			fmt.Fprintf(w, "  %-30s %5d  (%d / %d)\n", r, c.Total, c.RootCause, c.Cascade)
		}
	}
	if s.Trials != nil {
		printTrials(w, s.Trials)
	}
	fmt.Fprintf(w, "wrote %s/{%s,%s,%s}\n", strings.TrimSuffix(out, "/"), rundir.TurnsFile, rundir.DialogsFile, rundir.SummaryFile)
}

func sortedReasonKeys(m map[string]rundir.ReasonCount) []string {
	keys := slices.Collect(maps.Keys(m))
	// Most frequent first, then by name.
	slices.SortFunc(keys, func(a, b string) int {
		if c := cmp.Compare(m[b].Total, m[a].Total); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return keys
}
