package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/aem-dev/aem/results/report"
	"github.com/aem-dev/aem/rundir"
)

type reportOptions struct {
	out     string
	png     string
	worst   int
	dialogs string
	causes  int
	quiet   bool // -q: no status lines (run passes its own)
}

// addFlags registers the report's flags, each name after prefix (run's
// --report-worst).
func (o *reportOptions) addFlags(fs *flagSet, prefix string) {
	out := fs.own(topicOutput)
	out.IntVar(&o.worst, prefix+"worst", report.DefaultWorst, "dialogs the explorer holds, the lowest scores first")
	out.StringVar(&o.dialogs, prefix+"dialogs", "", "comma-separated dialog ids the explorer holds too")
	out.IntVar(&o.causes, prefix+"causes", report.DefaultCauses, "root-cause classes listed")
	out.StringVar(&o.png, prefix+"png", "", "also write the charts as PNG files into this directory")
}

// options turns the flags into report.Options.
func (o reportOptions) options() (report.Options, error) {
	opts := report.Options{Worst: o.worst, Causes: o.causes}
	for _, id := range strings.Split(o.dialogs, ",") {
		if id = strings.TrimSpace(id); id != "" {
			opts.Dialogs = append(opts.Dialogs, id)
		}
	}
	if o.worst < 1 || o.causes < 1 {
		return opts, fmt.Errorf("%w: --worst and --causes take a number of at least 1", report.ErrOptions)
	}
	return opts, opts.Validate()
}

func cmdReport() *Command {
	c := &Command{
		Name:      "report",
		UsageLine: "report RUN_DIR [-o report.html] [--png DIR] [--worst 50] [--dialogs ID,...]",
		Short:     "write the run's HTML report: headline, breakdowns, root causes, dialog explorer",
		Long: `
Report reads a run directory written by 'aem run' (a local path or an
object-store URL) in one streaming pass and writes one self-contained HTML
page (inline CSS, SVG charts and script; nothing is fetched, so it opens
from disk in any browser and can be mailed or archived):

  - the headline: correctness, test-pass rate, dialogs, turns, root causes
    against cascades, pass^k for repeated trials, model and thresholds,
    when the run finished;
  - correctness by sub-metric, turn kind, action-chain bucket and tool and
    action; the failure reasons split into root causes and cascades;
    latency against correctness when the dataset has latencies;
  - the root causes ranked by the failures they explain (a reason at a
    tool, action and parameter; a root and its cascades count together),
    each linking to example dialogs;
  - how the scorer's decisive scores sit around their thresholds, and how
    many turn verdicts a threshold move of 0.01 to 0.1 would flip;
  - a dialog explorer: the --worst lowest-scoring dialogs, those named with
    --dialogs and the root causes' examples, each turn with gold and
    predicted side by side, the failed checks, every compared field's
    score against its threshold and where that came from, and the arrow
    from a cascade to its root.

Aggregates cover every turn; only the explorer's dialogs keep their rows,
so the page stays small and the memory bounded on runs of millions of
turns. Without -o the page goes to RUN_DIR/report.html (./report.html for a
URL). 'aem run --report' writes the same page when the run ends.

EXIT STATUS
	0 success; 1 error (a named dialog is not in the run, unwritable
	output); 2 usage error; 3 not a complete run directory, or a corrupt
	one.

EXAMPLES
	aem report out/example
	aem report out/example -o example.html --png charts --dialogs sales-report-q3
	aem report s3://bucket/runs/nightly -o nightly.html
`,
	}
	c.Setup = func(fs *flagSet, env *Env) func(context.Context, []string) error {
		var o reportOptions
		fs.out(&o.out, "output HTML file (default RUN_DIR/report.html)")
		fs.quiet(&o.quiet)
		o.addFlags(fs, "")
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return usagef(c, "report takes exactly one RUN_DIR, got %d", len(args))
			}
			opts, err := o.options()
			if err != nil {
				return usagef(c, "%w", err)
			}
			if o.out == "" {
				o.out = inRun(args[0], report.HTMLFile)
			}
			return writeReport(ctx, env, args[0], o, opts)
		}
	}
	return c
}

// writeReport builds the report of the run at dir and writes the page
// (and the charts with --png); run --report calls it too.
func writeReport(ctx context.Context, env *Env, dir string, o reportOptions, opts report.Options) error {
	if err := checkOutput(o.out); err != nil {
		return err
	}
	rd, err := rundir.Open(ctx, dir, rundir.OpenOptions{URLMux: env.blobs()})
	if err != nil {
		return err
	}
	defer rd.Close()
	rep, err := report.Build(ctx, rd, opts)
	if err != nil {
		return err
	}
	if err := report.WriteHTMLFile(o.out, rep, version()); err != nil {
		return err
	}
	fmt.Fprintf(status(env.Stderr, o.quiet), "aem: wrote %s (%d dialogs in the explorer)\n", o.out, len(rep.Explorer))
	if o.png != "" {
		paths, err := report.WritePNGs(o.png, rep)
		if err != nil {
			return err
		}
		fmt.Fprintf(status(env.Stderr, o.quiet), "aem: wrote %d charts into %s\n", len(paths), o.png)
	}
	if len(rep.Missing) > 0 {
		return fmt.Errorf("--dialogs: %s not in %s (the page is written without them; check the ids with 'aem show %s/%s')",
			strings.Join(rep.Missing, ", "), dir, dir, rundir.DialogsFile)
	}
	return nil
}
