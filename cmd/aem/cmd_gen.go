package main

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/datasets"
	"github.com/aem-dev/aem/input/golden"
)

type genOptions struct {
	out   string
	cfg   datasets.GenConfig
	quiet bool
}

func (o *genOptions) addFlags(fs *flagSet) {
	fs.quiet(&o.quiet)
	def := datasets.DefaultGenConfig()
	o.cfg = def
	fs.out(&o.out, "output golden dataset (.parquet)")
	d := fs.own(topicDataset)
	d.IntVar(&o.cfg.Dialogs, "dialogs", def.Dialogs, "number of dialogs (3-12 turns each)")
	d.Uint64Var(&o.cfg.Seed, "seed", def.Seed, "random seed; the same seed and flags give the same file")
	d.Float64Var(&o.cfg.WrongRate, "wrong-rate", def.WrongRate, "share of predicted values or replies that are wrong")
	d.Float64Var(&o.cfg.ParaphraseRate, "paraphrase-rate", def.ParaphraseRate, "share of predicted tool values that are paraphrases of gold (replies are reworded separately)")
	d.BoolVar(&o.cfg.DependsOn, "depends-on", def.DependsOn, "record depends_on for chained calls (without it attribution must infer cascades from evidence)")
	d.BoolVar(&o.cfg.HumanLabels, "human-labels", def.HumanLabels, "add human_label and human_score, as a careful annotator would (the rubric: go doc ./datasets)")
	d.Float64Var(&o.cfg.LabelNoise, "label-noise", def.LabelNoise, "share of human labels flipped, as annotators disagree")
	d.BoolVar(&o.cfg.Latency, "latency", def.Latency, "add latency_ms")
}

func cmdGen() *Command {
	return &Command{
		Name:      "gen",
		UsageLine: "gen --dialogs N -o FILE.parquet [--seed S]",
		Short:     "write a synthetic golden dataset for benchmarks and tests",
		Long: `
Gen writes a seeded, deterministic synthetic golden dataset of realistic
shape: 3-12 turns per dialog, replies and tool calls, chains of one to four
calls, repeated gold values, paraphrased and wrong predictions, cascades,
order-invariant blocks, human labels and latencies (--human-labels=false and
--latency=false leave them out). It streams, so millions of turns need
little memory.

EXAMPLES
	aem gen --dialogs 15000 -o bench-100k.parquet
	aem gen --dialogs 1000 --human-labels --seed 7 -o labelled.parquet
`,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o genOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 0 {
					return usagef(lookup("gen"), "gen takes no arguments, got %q", args)
				}
				if o.out == "" {
					return usagef(lookup("gen"), "gen needs an output file: -o FILE.parquet")
				}
				if o.cfg.Dialogs < 1 {
					return usagef(lookup("gen"), "--dialogs must be at least 1")
				}
				if err := o.cfg.Validate(); err != nil {
					return usagef(lookup("gen"), "%w", err)
				}
				return runGen(ctx, env, o)
			}
		},
	}
}

func runGen(ctx context.Context, env *Env, o genOptions) error {
	if err := checkOutput(o.out); err != nil {
		return err
	}
	turns, err := golden.Write(ctx, o.out, golden.Seq(datasets.Generate(o.cfg)), golden.WriteOptions{})
	if err != nil {
		return fmt.Errorf("generating %s: %w", o.out, err)
	}
	fmt.Fprintf(status(env.Stdout, o.quiet), "wrote %d dialogs, %d turns to %s\n", o.cfg.Dialogs, turns, o.out)
	return nil
}
