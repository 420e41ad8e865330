package main

import (
	"context"
	"fmt"
	"io"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/input/predictions"
)

type importOptions struct {
	out     string
	input   inputOptions
	from    string
	answers string
	results string
	pred    predictionOptions
	quiet   bool
}

func (o *importOptions) addFlags(fs *flagSet) {
	fs.quiet(&o.quiet)
	o.input.addFlags(fs)
	in := fs.own(topicInput)
	in.StringVar(&o.from, "from", "", "source format: bfcl (the Berkeley Function Calling Leaderboard's question files); default: a golden dataset")
	in.StringVar(&o.answers, "answers", "", "with --from bfcl: the possible-answer file (default: possible_answer/<INPUT's name> beside INPUT)")
	in.StringVar(&o.results, "results", "", "with --from bfcl: a model's result files, comma-separated, as the predictions (default: none)")
	o.pred.addFlags(fs)
	fs.out(&o.out, "output golden dataset (.parquet)")
}

func cmdImport() *Command {
	return &Command{
		Name:      "import",
		UsageLine: "import INPUT -o OUT.parquet [--map canonical=theirs,...] [--tools FILE] | import --from bfcl QUESTIONS... -o OUT.parquet [--results FILE,...]",
		Short:     "convert the write-up's JSON (or a mapped Parquet) into a golden Parquet dataset",
		Long: `
Import converts a golden dataset into aem's Parquet layout, one row per
turn. INPUT is the AEM write-up's JSON: a JSON array of turns (one dialog,
named after the file) or JSON Lines of {"dialog_id": ..., "turns": [...]}.
A Parquet INPUT with other column names is rewritten with the canonical
names (--map). --tools FILE gives the tool definitions of every dialog
that has none; they are stored in the tools column. The output appears
only when the whole input is valid.

With --from bfcl, INPUT is one or more BFCL question files (JSON Lines of
{"id", "question", "function"}); each entry becomes a dialog with its
functions as tool definitions, its possible answer as the gold calls
($any alternatives, "" as $optional) and, with --results, the model's
calls as predictions. Entries whose possible answer BFCL's own checker can
never pass are left out and listed on stderr.

EXAMPLES
	aem import datasets/example/golden.jsonl -o golden.parquet
	aem import theirs.parquet --map gold_args=expected_arguments -o golden.parquet
	aem import golden.jsonl --tools tools.json -o golden.parquet
	aem import --from bfcl BFCL_v4_live_simple.json BFCL_v4_live_multiple.json --results result.json -o bfcl.parquet
	aem import gold.jsonl --predictions traces/ -o golden.parquet
` + predictionsHelp,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o importOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if o.out == "" {
					return usagef(lookup("import"), "import needs an output file: -o OUT.parquet")
				}
				switch o.from {
				case "bfcl":
					if len(args) == 0 || o.input.tools != "" || o.input.mapping != "" {
						return usagef(lookup("import"), "import --from bfcl takes one or more question files, and neither --tools nor --map")
					}
					return runImportBFCL(ctx, env, o, args)
				case "":
				default:
					return usagef(lookup("import"), "unknown --from %q: use bfcl, or leave it out for a golden dataset", o.from)
				}
				if len(args) != 1 || o.answers != "" || o.results != "" {
					return usagef(lookup("import"), "import takes exactly one INPUT (got %d); --answers and --results need --from bfcl", len(args))
				}
				return runImport(ctx, env, o, args[0])
			}
		},
	}
}

func runImport(ctx context.Context, env *Env, o importOptions, input string) error {
	if err := checkOutput(o.out, input, o.input.tools, o.pred.path); err != nil {
		return err
	}
	readOpts, err := o.input.readOptions()
	if err != nil {
		return err
	}
	r, err := golden.Open(ctx, input, readOpts)
	if err != nil {
		return err
	}
	if o.pred.enabled() {
		return importJoined(ctx, env, o, r)
	}
	defer r.Close()
	turns, err := golden.Import(ctx, o.out, r, golden.WriteOptions{})
	if err != nil {
		return fmt.Errorf("importing %s: %w", input, err)
	}
	fmt.Fprintf(status(env.Stdout, o.quiet), "wrote %d turns from %s (%s) to %s\n", turns, input, r.Format(), o.out)
	return nil
}

// importJoined writes GOLD joined with --predictions.
func importJoined(ctx context.Context, env *Env, o importOptions, r *golden.Reader) error {
	st, ao, err := o.pred.open(ctx, lookup("import"))
	if err != nil {
		r.Close()
		return err
	}
	ao.ReadOnlyTools = o.input.readOnly()
	defer st.Close()
	j, err := predictions.NewJoiner(r, st, ao)
	if err != nil {
		r.Close()
		return err
	}
	defer j.Close()
	turns, err := golden.WriteDialogs(ctx, o.out, golden.WriteOptions{Extras: j.Extras()}, func(yield func(golden.Dialog, error) bool) {
		for {
			d, err := j.Next(ctx)
			if err == io.EOF || !yield(d, err) || err != nil {
				return
			}
		}
	})
	if err != nil {
		return fmt.Errorf("importing %s with predictions %s: %w", r.Path(), o.pred.path, err)
	}
	reportJoin(env.Stderr, j.Stats())
	fmt.Fprintf(status(env.Stdout, o.quiet), "wrote %d turns from %s joined with %s to %s\n", turns, r.Path(), o.pred.path, o.out)
	return nil
}
