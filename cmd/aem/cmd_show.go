package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/rundir"
)

type showOptions struct {
	dialog string
	limit  int
	json   bool
}

func (o *showOptions) addFlags(fs *flagSet) {
	out := fs.own(topicOutput)
	out.StringVar(&o.dialog, "dialog", "", "print only this dialog (on a run directory: its compact summary, then its turns as a table)")
	out.IntVar(&o.limit, "limit", 0, "print at most this many rows (0: all)")
	out.BoolVar(&o.json, "json", false, "with --dialog on a run directory: the compact summary alone, without the table")
}

func cmdShow() *Command {
	return &Command{
		Name:      "show",
		UsageLine: "show PATH [--dialog ID] [--limit N]",
		Short:     "print a Parquet file or a run as JSON Lines",
		Long: `
Show prints any Parquet file (a golden dataset, turns.parquet, dialogs.parquet,
sweep.parquet, compare.parquet) as JSON Lines on stdout, one object per row
with the columns in file order, so it can be read without other tools.

PATH may also be a run directory written by 'aem run' (a local directory or
a URL such as s3://bucket/runs/nightly): without --dialog it prints
summary.json; with --dialog it prints that dialog's summary in the compact
form of the AEM write-up on its first line (one line per trial, with the
trial and its task's pass^k, when the run has trials), then its turns:
turn, role, pass or FAIL (a cascade says from which turn), the reason, and
for a failed turn each comparison that failed: the field, the gold and
predicted values (quoted, control characters escaped), the score against
its threshold and what decided it. On a terminal the turns are an aligned
table with long values cut; piped, tab-separated values with a header
line, nothing cut. --json prints the summary line(s) alone. An incomplete
run is refused (exit status 3).

EXAMPLES
	aem show out/turns.parquet --limit 5
	aem show out --dialog sales-report
	aem show out --dialog sales-report --json | jq .root_cause
	aem show out/turns.parquet --dialog sales-report | jq .failure_reason
`,
		Setup: func(fs *flagSet, env *Env) func(context.Context, []string) error {
			var o showOptions
			o.addFlags(fs)
			return func(ctx context.Context, args []string) error {
				if len(args) != 1 {
					return usagef(lookup("show"), "show takes exactly one PATH, got %d", len(args))
				}
				return runShow(ctx, env, o, args[0])
			}
		},
	}
}

// compactColumns are the dialog fields of the write-up's compact form.
var compactColumns = []string{"success_rate", "test_pass", "first_failure_turn", "root_cause", "root_cause_count", "cascading_count"}

func runShow(ctx context.Context, env *Env, o showOptions, path string) error {
	opts := batch.ShowOptions{DialogID: o.dialog, Limit: o.limit}
	file := path
	var rd *rundir.Run
	if info, err := os.Stat(path); location.IsURL(path) || err == nil && info.IsDir() {
		// A run directory: read through rundir, which refuses an incomplete run.
		if rd, err = rundir.Open(ctx, path, rundir.OpenOptions{URLMux: env.blobs()}); err != nil {
			return err
		}
		defer rd.Close()
		if o.dialog == "" {
			return printSummary(env, filepath.Join(rd.Dir(), rundir.SummaryFile))
		}
		file = filepath.Join(rd.Dir(), rundir.DialogsFile)
		opts.Columns = compactColumns
		if rd.Summary.Trials != nil {
			// One line per trial: say which, and how reliable the task is.
			opts.Columns = append([]string{"trial"}, append(compactColumns, "task_pass_hat_k", "task_flaky")...)
		}
	} else if o.dialog != "" && filepath.Base(path) == rundir.DialogsFile {
		opts.Columns = compactColumns
	}
	n, err := batch.WriteJSONLines(ctx, file, env.Stdout, opts)
	if err != nil {
		return err
	}
	if n == 0 && o.dialog != "" {
		return fmt.Errorf("no dialog %q in %s", o.dialog, path)
	}
	if rd == nil || o.json {
		return nil
	}
	return printTurns(ctx, env, rd, o.dialog)
}

// printTurns prints the turns of one dialog of a run as a table (see
// verdictTable), after a blank line.
func printTurns(ctx context.Context, env *Env, rd *rundir.Run, dialog string) error {
	v := verdictTable{tty: env.StdoutTTY, trials: rd.Summary.Trials != nil}
	for row, err := range rd.Turns(ctx) {
		if err != nil {
			return err
		}
		if row.DialogID == dialog {
			v.add(&row)
		}
	}
	fmt.Fprintln(env.Stdout)
	return v.write(env.Stdout)
}

func printSummary(env *Env, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the run summary: %w (is this a directory written by 'aem run'?)", err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("%s is not valid JSON: %w", path, err)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	fmt.Fprintln(env.Stdout, string(out))
	return nil
}
