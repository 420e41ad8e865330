package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/aem-dev/aem/batch/golden"
)

type importOptions struct {
	out     string
	mapping string
}

func (o *importOptions) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.out, "o", "", "output golden dataset (.parquet)")
	fs.StringVar(&o.out, "out", "", "same as -o")
	fs.StringVar(&o.mapping, "map", "", "column mapping when INPUT is Parquet with other column names: canonical=theirs,...")
}

func cmdImport() *Command {
	return &Command{
		Name:      "import",
		UsageLine: "import INPUT -o OUT.parquet [--map canonical=theirs,...]",
		Short:     "convert the write-up's JSON (or a mapped Parquet) into a golden Parquet dataset",
		Long: `
Import converts a golden dataset into aem's Parquet layout, one row per
turn. INPUT is the AEM write-up's JSON: a JSON array of turns (one dialog,
named after the file) or JSON Lines of {"dialog_id": ..., "turns": [...]}.
A Parquet INPUT with other column names is rewritten with the canonical
names (--map). The output appears only when the whole input is valid.

EXAMPLES
	aem import datasets/example/golden.jsonl -o golden.parquet
	aem import theirs.parquet --map gold_args=expected_arguments -o golden.parquet
`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			var o importOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef(lookup("import"), "import takes exactly one INPUT, got %d", len(args))
				}
				if o.out == "" {
					return usagef(lookup("import"), "import needs an output file: -o OUT.parquet")
				}
				return runImport(ctx, env, o, args[0])
			}
		},
	}
}

func runImport(ctx context.Context, env *Env, o importOptions, input string) error {
	mapping, err := golden.ParseMapping(o.mapping)
	if err != nil {
		return err
	}
	r, err := golden.Open(ctx, input, golden.ReadOptions{Mapping: mapping})
	if err != nil {
		return err
	}
	defer r.Close()
	turns, err := golden.Import(ctx, o.out, r, golden.WriteOptions{})
	if err != nil {
		return fmt.Errorf("importing %s: %w", input, err)
	}
	fmt.Fprintf(env.Stdout, "wrote %d turns from %s (%s) to %s\n", turns, input, r.Format(), o.out)
	return nil
}
