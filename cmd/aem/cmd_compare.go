package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/results/compareio"
)

type compareOptions struct {
	out              string
	allowMismatch    bool
	failOnRegression bool
	margin           float64
	alpha            float64
	seed             uint64
	bootstrap        int
	permutations     int
	quiet            bool
}

func (o *compareOptions) addFlags(fs *flagSet) {
	d := compare.DefaultOptions()
	fs.quiet(&o.quiet)
	fs.own(topicInput).BoolVar(&o.allowMismatch, "allow-mismatch", false, "compare runs scored with different scorers, thresholds, metric settings or golden datasets (recorded in the report)")
	st := fs.own(topicStatistics)
	st.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit with status 4 when a candidate is significantly worse overall or on any sub-metric")
	st.Float64Var(&o.margin, "margin", d.Margin, "tolerated drop in correctness as a share (0.01 = one point) before the gate fails")
	st.Float64Var(&o.alpha, "alpha", d.Alpha, "significance level of the tests; confidence intervals are at 1-alpha")
	st.Uint64Var(&o.seed, "seed", d.Seed, "seed of the bootstrap and permutation streams")
	st.IntVar(&o.bootstrap, "bootstrap", d.Bootstrap, "bootstrap resamples (by dialog) per confidence interval")
	st.IntVar(&o.permutations, "permutations", d.Permutations, "sign-flip permutations of the failure-reason shift test")
	fs.out(&o.out, "also write compare.json, compare.parquet, compare.md and compare.html into this directory")
}

func (o compareOptions) options() compare.Options {
	return compare.Options{
		Alpha: o.alpha, Margin: o.margin, Bootstrap: o.bootstrap, Permutations: o.permutations,
		Seed: o.seed, AllowMismatch: o.allowMismatch,
	}
}

func cmdCompare() *Command {
	c := &Command{
		Name:      "compare",
		UsageLine: "compare BASE_RUN CANDIDATE_RUN [MORE_RUNS...] [-o OUTDIR] [--fail-on-regression] [flags]",
		Short:     "compare runs of two or more releases and gate on regressions",
		Long: `
Compare pairs the turns of run directories written by 'aem run' on the same
golden dataset, on (dialog_id, turn_no), and reports for each candidate
against BASE_RUN: correctness overall, per sub-metric, per action-chain
bucket, per tool/action and per failure reason, each with the difference, a
bootstrap confidence interval resampled by dialog and an exact McNemar test;
the regressed and fixed turns, root causes first and counted apart from
cascades; the dialogs whose test_pass flipped; and a test for a shift in the
failure-reason distribution. With more than two runs it adds a trend table.

The Markdown report goes to stdout. With -o, compare.json (everything),
compare.parquet (paired turns with both verdicts), compare.md and
compare.html (with plots) are written into OUTDIR.

Runs scored with a different scorer or model, thresholds, metric settings
(cascade policy, composition, numeric tolerance) or golden dataset are
refused unless --allow-mismatch is given; the differences are then written
into the report. Turns present in only one run
are listed and left out of the figures.

The gate fails when, overall or on any sub-metric, the Holm-adjusted McNemar
p-value is below --alpha and the upper end of the confidence interval of the
difference is below -margin. The report always shows the decision;
--fail-on-regression makes it the exit status.

EXIT STATUS
	0 no regression (or --fail-on-regression not given); 1 error (unreadable
	or incomparable runs); 2 usage error; 4 regression found with
	--fail-on-regression.

EXAMPLES
	aem compare runs/v1 runs/v2 > report.md
	aem compare runs/v1 runs/v2 -o cmp --fail-on-regression --margin 0.01
	aem compare runs/v1 runs/v2 runs/v3 -o trend
`,
	}
	c.Setup = func(fs *flagSet, env *Env) func(context.Context, []string) error {
		var o compareOptions
		o.addFlags(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) < 2 {
				return usagef(c, "compare needs a base run and at least one candidate run, got %d", len(args))
			}
			if err := o.options().Validate(); err != nil {
				return usagef(c, "%w", err)
			}
			return runCompare(ctx, env, o, args)
		}
	}
	return c
}

func runCompare(ctx context.Context, env *Env, o compareOptions, dirs []string) error {
	if err := checkOutputDir(o.out); err != nil {
		return err
	}
	runs, err := compareio.ReadRuns(ctx, dirs)
	if err != nil {
		return err
	}
	rep, err := compare.CompareRuns(ctx, runs, o.options())
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := compareio.WriteReport(ctx, o.out, rep); err != nil {
			return err
		}
		fmt.Fprintf(status(env.Stderr, o.quiet), "aem: wrote %s, %s, %s and %s\n", filepath.Join(o.out, compareio.JSONFile),
			compareio.ParquetFile, compareio.MarkdownFile, compareio.HTMLFile)
	}
	if err := compareio.WriteMarkdown(env.Stdout, rep); err != nil {
		return fmt.Errorf("writing the report: %w", err)
	}
	if o.failOnRegression {
		return rep.GateError()
	}
	return nil
}
