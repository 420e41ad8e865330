package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/results/review"
	"github.com/aem-dev/aem/rundir"
)

type reviewOptions struct {
	out, band, tools, html string
	near                   float64
	limit                  int
	quiet                  bool
}

func (o *reviewOptions) addFlags(fs *flagSet) {
	fs.quiet(&o.quiet)
	in := fs.own(topicInput)
	in.StringVar(&o.band, "band", "0.4:0.8", "uncertain band LO:HI of the deciding score")
	in.Float64Var(&o.near, "near", 0, "instead of --band: scores within this distance of their threshold")
	in.IntVar(&o.limit, "limit", review.DefaultLimit, "most items exported")
	in.StringVar(&o.tools, "tools", "", "tool definitions, for the tools' and parameters' descriptions (as for aem run)")
	fs.out(&o.out, "output review file (default RUN_DIR/review.jsonl)")
	fs.own(topicOutput).StringVar(&o.html, "html", "", "also write the labelling page (one HTML file, no server) here")
}

func (o reviewOptions) options(bandGiven bool) (review.Options, error) {
	opts := review.Options{Near: o.near, Limit: o.limit}
	if o.limit < 1 {
		return opts, fmt.Errorf("%w: --limit %d: give at least 1", review.ErrOptions, o.limit)
	}
	if o.near != 0 && bandGiven {
		return opts, fmt.Errorf("%w: give --band or --near, not both", review.ErrOptions)
	}
	if o.near == 0 {
		b, err := review.ParseBand(o.band)
		if err != nil {
			return opts, err
		}
		opts.Band = b
	}
	return opts, opts.Validate()
}

func cmdReview() *Command {
	c := &Command{
		Name:      "review",
		UsageLine: "review RUN_DIR [-o review.jsonl] [--band 0.4:0.8 | --near 0.1] [--limit 200] [--html review.html] [--tools FILE]",
		Short:     "export the uncertain comparisons of a run for annotators to label",
		Long: `
Review exports the comparisons of a run whose deciding score is uncertain,
for people to judge, as review.jsonl: one item per line with what an
annotator needs (dialog id, turn, field, the tool and the descriptions of
the tool and the parameter with --tools, the gold and predicted texts and
their context, the score against its threshold and where the threshold came
from, the verdict) and an empty human_label to fill in with true (the
predicted value means the same as the gold one) or false.

A comparison is uncertain when the scorer decided it and its score (the
first scorer's under a judge) lies in --band, or with --near D within D of
the threshold it was held to. Items are stratified by sub-metric and field,
so that every group is represented before any gets a second item, the
nearest to the threshold first; each (gold, predicted) pair is exported
once (same_pair says how often the run has it); at most --limit items.

--html FILE also writes a labelling page: one self-contained HTML file that
opens from disk, shows the items one card each (the scorer's score hidden
until asked for), keeps the labels in the browser as they are given and
downloads them as JSON Lines in the same format.

Feed the labelled file back with 'aem sweep RUN_DIR --labels FILE': labels
are matched on (dialog_id, trial, turn_no, field); unlabelled items are
skipped.

EXIT STATUS
	0 success; 1 error (unwritable output); 2 usage error; 3 not a
	complete run directory, or a corrupt one.

EXAMPLES
	aem review out/example --html review.html
	aem review out/example -o review.jsonl --near 0.1 --limit 50
	aem sweep out/example --labels review-labelled.jsonl
`,
	}
	c.Setup = func(fs *flagSet, env *Env) func(context.Context, []string) error {
		var o reviewOptions
		o.addFlags(fs)
		return func(ctx context.Context, args []string) error {
			if len(args) != 1 {
				return usagef(c, "review takes exactly one RUN_DIR, got %d", len(args))
			}
			bandGiven := false
			bandGiven = fs.given("band")
			opts, err := o.options(bandGiven)
			if err != nil {
				return usagef(c, "%w", err)
			}
			if opts.Tools, err = readTools(o.tools); err != nil {
				return err
			}
			if o.out == "" {
				o.out = inRun(args[0], review.File)
			}
			return runReview(ctx, env, args[0], o, opts)
		}
	}
	return c
}

func runReview(ctx context.Context, env *Env, dir string, o reviewOptions, opts review.Options) error {
	for _, out := range []string{o.out, o.html} {
		if err := checkOutput(out, o.tools); err != nil {
			return err
		}
	}
	rd, err := rundir.Open(ctx, dir, rundir.OpenOptions{URLMux: env.blobs()})
	if err != nil {
		return err
	}
	defer rd.Close()
	items, st, err := review.Select(ctx, rd, opts)
	if err != nil {
		return err
	}
	if err := review.Write(o.out, items); err != nil {
		return err
	}
	what := fmt.Sprintf("scores in %g:%g", opts.Band[0], opts.Band[1])
	if opts.Near > 0 {
		what = fmt.Sprintf("scores within %g of their threshold", opts.Near)
	}
	say := status(env.Stdout, o.quiet)
	fmt.Fprintf(say, "%d of %d scorer decisions have %s (%d distinct pairs, %d groups of sub-metric and field)\n",
		st.Candidates, st.Compared, what, st.Pairs, st.Strata)
	fmt.Fprintf(say, "wrote %d items to %s, %d of the %d groups represented\n", len(items), o.out, st.Represented, st.Strata)
	if st.Represented < st.Strata {
		fmt.Fprintf(env.Stderr, "aem: --limit %d leaves %d groups without an item; raise it to represent every one\n", opts.Limit, st.Strata-st.Represented)
	}
	if st.NoText > 0 {
		fmt.Fprintf(env.Stderr, "aem: %d candidates left out: their values are not text\n", st.NoText)
	}
	if o.html != "" {
		if err := review.WriteHTML(o.html, o.out, items); err != nil {
			return err
		}
		fmt.Fprintf(say, "wrote the labelling page %s (open it in a browser; it downloads %s)\n", o.html,
			strings.TrimSuffix(filepath.Base(o.out), filepath.Ext(o.out))+"-labelled.jsonl")
	}
	return nil
}
