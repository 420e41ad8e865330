package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/results/sweepio"
	"github.com/aem-dev/aem/rundir"
)

type sweepOptions struct {
	out, objective, labels, labelsFormat, pairs, pairsFormat string
	folds, bootstrap, minLabels, minPerClass                 int
	seed                                                     uint64
	level                                                    float64
	noCV, ignoreUnmatched, fit, acceptWeak                   bool
	binarizeAt                                               string
	scorer                                                   scorerOptions // used with --pairs only
}

func (o *sweepOptions) addFlags(fs *flagSet) {
	d := sweep.DefaultOptions()
	in := fs.own(topicInput)
	in.StringVar(&o.labels, "labels", "", "labels file: dialog_id, turn_no, optional field, label and/or score (JSONL, CSV, TSV or Parquet), or a review file of aem review")
	in.StringVar(&o.labelsFormat, "labels-format", "auto", "format of --labels: auto, jsonl, csv, tsv, parquet, review")
	in.BoolVar(&o.ignoreUnmatched, "ignore-unmatched", false, "skip labels for turns that are not in the run instead of failing")
	in.StringVar(&o.pairs, "pairs", "", "calibrate on a file of labelled text pairs (text_a, text_b, label and/or score) instead of a run")
	in.StringVar(&o.pairsFormat, "pairs-format", "auto", "format of --pairs: auto, jsonl, csv, tsv, parquet, stsb")
	in.StringVar(&o.binarizeAt, "binarize-at", "", "label a pass where only a graded human score is given and it is >= this (e.g. 4 on STS-B's 0-5)")
	cal := fs.own(topicCalibration)
	cal.StringVar(&o.objective, "objective", "f1", "what the threshold maximises: f1, accuracy, mcc, youden, precision@R, recall@P")
	cal.IntVar(&o.minLabels, "min-labels", d.MinLabels, "labels a field or sub-metric needs for a threshold of its own")
	cal.IntVar(&o.minPerClass, "min-per-class", d.MinPerClass, "of which at least this many of each class")
	cal.BoolVar(&o.fit, "fit", false, "also fit the composite scorer (cosine plus lexical evidence) on the same folds, and choose it")
	cal.BoolVar(&o.acceptWeak, "accept-weak", false, "exit 0 even when the fit is no better than a trivial rule or rests on too few labels (the warning stays)")
	st := fs.own(topicStatistics)
	st.IntVar(&o.folds, "folds", d.Folds, "k of the k-fold cross-validation by dialog")
	st.BoolVar(&o.noCV, "no-cv", false, "fit and score on the same rows (in-sample figures, labelled as such)")
	st.Uint64Var(&o.seed, "seed", d.Seed, "seed of the fold split and the bootstrap")
	st.IntVar(&o.bootstrap, "bootstrap", d.Bootstrap, "bootstrap replicates (resampling dialogs) per confidence interval; 0: none")
	st.Float64Var(&o.level, "level", d.Level, "confidence level of the intervals")
	o.scorer.addFlags(fs)
	fs.out(&o.out, "output directory (default: RUN_DIR/sweep, or ./sweep with --pairs)")
}

// calibration turns the flags into sweep.Options.
func (o sweepOptions) calibration() (sweep.Options, error) {
	opts := sweep.DefaultOptions()
	obj, err := sweep.ParseObjective(o.objective)
	if err != nil {
		return opts, err
	}
	opts.Objective, opts.Folds, opts.Seed, opts.Bootstrap, opts.Level = obj, o.folds, o.seed, o.bootstrap, o.level
	opts.MinLabels, opts.MinPerClass, opts.Fit = o.minLabels, o.minPerClass, o.fit
	if o.noCV {
		opts.Folds = 0
	} else if o.folds < 2 {
		return opts, fmt.Errorf("--folds %d: need at least 2 (or --no-cv)", o.folds)
	}
	if o.binarizeAt != "" {
		v, err := strconv.ParseFloat(o.binarizeAt, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return opts, fmt.Errorf("--binarize-at %q: give a number", o.binarizeAt)
		}
		opts.BinarizeAt = v
	}
	return opts, opts.Validate()
}

func cmdSweep() *Command {
	c := &Command{
		Name:      "sweep",
		UsageLine: "sweep RUN_DIR [-o OUTDIR] [--objective f1] [--folds 5] [--seed 1] [--no-cv] [flags]\n       aem sweep --pairs FILE [-o OUTDIR] [--model DIR] [flags]",
		Short:     "calibrate similarity thresholds against human labels",
		Long: `
Sweep fits the similarity threshold to human judgement. It reads the
per-field similarity scores a run stored (no re-embedding) and the human
labels: human_label (pass/fail) and human_score (graded) of the golden
dataset, a field_labels column, or a --labels file, which may be a review
file that 'aem review' exported and annotators filled (labels matched on
dialog_id, trial, turn_no and field; unjudged items skipped). A label of
the --labels file wins over the dataset's for the same turn or field. It sweeps every midpoint
between distinct scores, picks the threshold that maximises --objective,
cross-validates that choice by dialog (--folds; the figures shown are the
held-out ones) with bootstrap confidence intervals, fits per-sub-metric and
per-field thresholds where there are enough labels, correlates the scores
with graded human scores, and measures the agreement (kappa) of the run's
turn verdicts with the human verdicts.

A turn-level label calibrates the turn's lowest semantic score; a reply's
label calibrates its similarity and its coverage (completeness.response,
the share of the gold reply's required content covered, fitted on its
own): a passing label both, a failing one the check that failed. Turns
whose verdict the scorer did not decide (exact matches, structure or key
failures) are left out of fitting but count in the agreement.

With --fit it also fits the composite scorer: a small logistic regression
over the cosine and lexical evidence of each comparison (word, character
and word-pair overlap, word order, numbers, dates, codes and names that
differ, negation, length), cross-validated on the same folds, and chooses it;
thresholds.json then carries the composites, which 'aem run --thresholds'
applies to value and reply comparisons.
The plain cosine threshold's held-out figures are always shown beside the
chosen scorer's (cosine_only in summary.json).

A fit no better than a trivial rule (held-out MCC at most 0.1, ROC-AUC at
most 0.6, or a threshold at the edge of the scores, so that everything or
nothing passes) is reported on stderr and in summary.json ("warning"), and
sweep exits 5 unless --accept-weak; the files are written either way. So
is a threshold that rests on too few labels: fewer than 30 pass or 30 fail
labels, or a 95% interval of the threshold wider than 0.1 (summary.json
"shortfall"). The warning says about how many more labels of each class
would narrow it, and the 'aem review' command that exports the
comparisons whose scores lie in the interval, where a label narrows it
most.

Samples are grouped by dialog (with --pairs: by the group column, else
the row): a dialog's samples are held out together in cross-validation
and resampled together in the bootstrap, so the figures generalise to new
dialogs, not to new turns of the same ones.

With --pairs FILE it calibrates on labelled text pairs instead, scored with
--scorer (the embedding model by default). STS Benchmark files are read
as they come (--pairs-format stsb, detected automatically).

RUN_DIR may be an object-store URL (s3://, gs://, file://) of a complete
run; OUTDIR is a local directory (./sweep by default for a URL).

Outputs in OUTDIR: sweep.parquet (every threshold with every figure),
thresholds.json (for 'aem run --thresholds'), summary.json, sweep.png and
sweep.svg. A short table goes to stdout.

` + installRootHelp + `

EXIT STATUS
	0 success; 1 error of the environment (a missing file, the model);
	2 usage error; 3 invalid input: a run directory or labels file that
	does not read, or labels that cannot calibrate (none, one class only,
	too few for cross-validation: the message says where they went);
	5 the fit is no better than a trivial rule, or the threshold rests on
	too few labels (files written; --accept-weak exits 0).

EXAMPLES
	aem sweep out
	aem sweep out --fit
	aem sweep out --objective precision@0.95 --labels field-labels.csv
	aem sweep out --labels review-labelled.jsonl
	aem sweep --pairs sts-dev.csv --binarize-at 4 -o stsb-sweep
`,
	}
	c.Setup = func(fs *flagSet, env *Env) func(context.Context, []string) error {
		var o sweepOptions
		o.addFlags(fs)
		return func(ctx context.Context, args []string) error {
			if (o.pairs == "") != (len(args) == 1) || len(args) > 1 {
				return usagef(c, "give one RUN_DIR, or --pairs FILE without RUN_DIR")
			}
			if location.IsURL(o.out) {
				return usagef(c, "-o %s: sweep writes to a local directory; copy it to the object store afterwards", o.out)
			}
			opts, err := o.calibration()
			if err != nil {
				return usagef(c, "%w", err)
			}
			return runSweep(ctx, env, o, opts, args)
		}
	}
	return c
}

func runSweep(ctx context.Context, env *Env, o sweepOptions, opts sweep.Options, args []string) error {
	sum := &sweepio.Summary{Version: 1, Settings: map[string]string{
		"objective": opts.Objective.String(), "folds": strconv.Itoa(opts.Folds), "seed": strconv.FormatUint(opts.Seed, 10),
		"bootstrap": strconv.Itoa(opts.Bootstrap), "level": strconv.FormatFloat(opts.Level, 'g', -1, 64),
		"min_labels": strconv.Itoa(opts.MinLabels), "min_per_class": strconv.Itoa(opts.MinPerClass), "binarize_at": o.binarizeAt,
		"fit": strconv.FormatBool(opts.Fit)}}
	var in sweep.Input
	if o.pairs != "" {
		format, err := sweepio.ParseFormat(o.pairsFormat)
		if err != nil {
			return err
		}
		pairs, format, err := sweepio.ReadPairs(o.pairs, format)
		if err != nil {
			return err
		}
		scorer, err := o.scorer.open(ctx, env, nil, "", false) // raw cosines: no calibration
		if err != nil {
			return fmt.Errorf("opening the scorer for --pairs: %w", err)
		}
		defer scorer.finish(env.Stderr)
		if in, err = sweepio.ScorePairs(ctx, scorer, pairs, 0); err != nil {
			return err
		}
		sum.Mode, sum.Input, sum.Scorer, sum.Settings["pairs_format"] = "pairs", o.pairs, scorer.ID(), string(format)
		if o.out == "" {
			o.out = "sweep"
		}
	} else {
		lf, err := sweepio.ParseFormat(o.labelsFormat)
		if err != nil {
			return err
		}
		var info *sweepio.RunInfo
		in, info, err = sweepio.ReadRun(ctx, args[0], sweepio.RunOptions{LabelsFile: o.labels, LabelsFormat: lf, IgnoreUnmatched: o.ignoreUnmatched, URLMux: env.blobs()})
		if err != nil {
			return err
		}
		sum.Mode, sum.Input, sum.Scorer, sum.Run = "run", args[0], info.Scorer, info
		if o.out == "" {
			o.out = inRun(args[0], rundir.SweepDir)
		}
	}
	if err := checkOutputDir(o.out); err != nil {
		return err
	}
	res, err := sweep.Calibrate(ctx, in, opts)
	if err != nil {
		return err
	}
	sum.Result = res
	files, err := sweepio.Write(ctx, o.out, sum)
	if err != nil {
		return err
	}
	printSweep(env, sum, files)
	if o.acceptWeak {
		return nil
	}
	for _, err := range []error{res.Weak(), res.FewLabels()} {
		if err != nil {
			return fmt.Errorf("%w: see the warning above; the files are written, --accept-weak exits 0", errors.Unwrap(err))
		}
	}
	return nil
}
