package main

import (
	"context"

	"github.com/aem-dev/aem/rundir"
)

type mergeOptions struct {
	out     string
	workDir string
	force   bool
}

func (o *mergeOptions) addFlags(fs *flagSet) {
	fs.out(&o.out, "merged run directory (local path or URL)")
	fs.own(topicOutput).BoolVar(&o.force, "force", false, "write into an output directory that is not empty and not a run's")
	fs.shared(topicScale).StringVar(&o.workDir, "work-dir", "", workDirHelp)
}

func cmdMerge() *Command {
	return &Command{
		Name:      "merge",
		UsageLine: "merge -o OUTDIR SHARD_DIR...",
		Short:     "combine the run directories of 'aem run --shard i/n' into one run",
		Long: `
Merge combines the outputs of a sharded run (one run directory per shard,
all shards of one run) into the same turns.parquet, dialogs.parquet and
summary.json a single unsharded run would have written, in input order.
It refuses directories that are not one complete set of shards of the same
input and settings.

EXAMPLES
	aem merge -o out/nightly out/shard-0 out/shard-1 out/shard-2 out/shard-3
	aem merge -o s3://bucket/runs/nightly s3://bucket/runs/nightly-shard-{0..7}
`,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o mergeOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) == 0 {
					return usagef(lookup("merge"), "merge needs the shard run directories")
				}
				if o.out == "" {
					return usagef(lookup("merge"), "merge needs an output directory: -o OUTDIR")
				}
				sum, err := rundir.Merge(ctx, rundir.MergeOptions{WorkDir: o.workDir, URLMux: env.blobs(), Force: o.force}, o.out, args...)
				if err != nil {
					return err
				}
				printRunSummary(env, sum, o.out)
				return nil
			}
		},
	}
}
