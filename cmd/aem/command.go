package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/home"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/rundir"
)

// Exit statuses. They are documented in the README and in `aem help`.
const (
	exitOK          = 0
	exitError       = 1
	exitUsage       = 2
	exitInvalidRows = 3
	exitRegression  = 4
	exitWeak        = 5
	exitBudget      = 6
	exitInterrupted = 130
)

// Command is one subcommand: its help text and how to run it.
type Command struct {
	Name      string
	UsageLine string // after "aem ", e.g. "run INPUT -o OUTDIR [flags]"
	Short     string // one line for the command list
	Long      string // the help text, ending with EXAMPLES where useful

	// Setup registers the command's flags on fs (see flagSet: each under a
	// help topic, with the environment variable it reads) and returns the
	// function that runs it on the positional arguments. Options live in
	// the closure, so no state outlives one invocation.
	Setup func(fs *flagSet, env *Env) func(ctx context.Context, args []string) error
}

// commands lists every subcommand, in the order `aem help` shows them.
func commands() []*Command {
	// Each cmd_<name>.go defines one; add a new command here.
	return []*Command{
		cmdRun(),
		cmdImport(),
		cmdShow(),
		cmdReport(),
		cmdReview(),
		cmdGen(),
		cmdMerge(),
		cmdSweep(),
		cmdCompare(),
		cmdModels(),
		cmdCache(),
	}
}

func lookup(name string) *Command {
	for _, c := range commands() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// usageError is a mistake in how aem was called (a missing argument, an
// unknown flag, a flag value that is not usable); it exits 2 and prints the
// command's usage. It keeps the error it came from, if any.
type usageError struct {
	cmd *Command
	msg string
	err error
}

func (e *usageError) Error() string { return e.msg }

func (e *usageError) Unwrap() error { return e.err }

// usagef formats a usage error; %w keeps the cause reachable.
func usagef(cmd *Command, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &usageError{cmd: cmd, msg: err.Error(), err: err}
}

// dispatch runs the subcommand named by args[0].
func dispatch(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 {
		printMainUsage(env.Stderr)
		return &usageError{msg: "no command given"}
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		return runHelp(env, args[1:])
	case "version", "--version":
		fmt.Fprintln(env.Stdout, "aem", version())
		return nil
	}
	cmd := lookup(name)
	if cmd == nil {
		return &usageError{msg: fmt.Sprintf("unknown command %q", name)}
	}
	return runCommand(ctx, env, cmd, args[1:])
}

func runCommand(ctx context.Context, env *Env, cmd *Command, args []string) error {
	fs := newFlagSet(cmd.Name)
	run := cmd.Setup(fs, env)
	positional, err := parseInterspersed(fs.flags, args)
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(env.Stdout, cmd, fs)
		return nil
	}
	if err != nil {
		return usagef(cmd, "%w", err)
	}
	if err := fs.applyEnv(env.Getenv, env.Stderr); err != nil {
		return usagef(cmd, "%w", err)
	}
	err = run(ctx, positional)
	var ue *usageError
	if err != nil && !errors.As(err, &ue) && isFlagValue(err) {
		return &usageError{cmd: cmd, msg: err.Error(), err: err}
	}
	return err
}

// parseInterspersed parses flags wherever they stand among the positional
// arguments (`aem run in.parquet -o out` and `aem run -o out in.parquet`
// mean the same); everything after "--" is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		consumed := len(args) - len(rest)
		if consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func runHelp(env *Env, args []string) error {
	if len(args) == 0 {
		printMainUsage(env.Stdout)
		return nil
	}
	cmd := lookup(args[0])
	if cmd == nil {
		return &usageError{msg: fmt.Sprintf("unknown help topic %q", args[0])}
	}
	fs := newFlagSet(cmd.Name)
	cmd.Setup(fs, env)
	printCommandHelp(env.Stdout, cmd, fs)
	return nil
}

func printMainUsage(w io.Writer) {
	fmt.Fprint(w, `aem scores multi-turn agent conversations with the Agent Evaluation Metric.

Usage:

	aem <command> [arguments] [flags]

Commands:

`)
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-8s %s\n", c.Name, c.Short)
	}
	fmt.Fprint(w, `
Run 'aem help <command>' for a command's flags, grouped by topic, and
examples. A flag not given falls back to the environment variable its help
shows in brackets: AEM_<FLAG> for a flag that means the same in every
command (--threshold: AEM_THRESHOLD, --ort-lib: AEM_ORT_LIB), and
AEM_<COMMAND>_<FLAG> for a command's own (aem run's -o: AEM_RUN_OUT).

`+installRootHelp+`

EXIT STATUS
	0 success; 1 error (also: another aem writes the output directory);
	2 usage error (also a flag value that cannot be used, or an output
	refused: not a run's directory, files of an earlier run there, an
	input or a run's file in the way); 3 invalid input (a bad row, column
	or file, an input without turns, an incomplete run directory, a
	damaged checkpoint); 4 regression found (compare --fail-on-regression);
	5 calibration no better than a trivial rule, or resting on too few
	labels (sweep, without --accept-weak); 6 stopped at the judge budget
	(--judge-max-calls, --judge-max-tokens; resumable with --resume); 130
	interrupted (rerun with --resume).
`)
}

// installRootHelp says where the model and ONNX Runtime are looked for; the
// main help, run and sweep show it.
var installRootHelp = `INSTALL ROOT
	The embedding scorer needs the ONNX Runtime library
	(lib/<os>-<arch>/libonnxruntime.so.1) and the model (models/use-lite-int8/
	for --precision int8, models/use-lite/ for fp32) from an install root. The
	first of these places that holds them is used:
` + home.Order("\t  ") + `
	When none does, the error lists each place and what it lacked.
	--ort-lib and --model (AEM_ORT_LIB, AEM_MODEL) name the files directly;
	--model also takes an installed model's name (use-lite: the fp32 form).
	The embedding cache goes to embed-cache/ in the root found; when that is
	beside the binary, to ./.aem if it exists, else the user cache directory.`

func printCommandHelp(w io.Writer, cmd *Command, fs *flagSet) {
	fmt.Fprintf(w, "usage: aem %s\n\n%s\n", cmd.UsageLine, strings.TrimSpace(cmd.Long))
	fs.printHelp(w)
}

// exitStatus prints err, when there is one, and maps it to the exit status.
func exitStatus(env *Env, err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(env.Stderr, "aem: interrupted; rerun the same command with --resume to continue where it stopped")
		return exitInterrupted
	}
	if errors.Is(err, judge.ErrBudget) {
		fmt.Fprintf(env.Stderr, "aem: %v\naem: stopped at the judge budget; the answers so far are cached and finished dialogs are checkpointed: raise the budget and rerun the same command with --resume to continue\n", err)
		return exitBudget
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(env.Stderr, "aem: %s\n", ue.msg)
		if ue.cmd != nil {
			fmt.Fprintf(env.Stderr, "usage: aem %s\nRun 'aem help %s' for details.\n", ue.cmd.UsageLine, ue.cmd.Name)
		} else {
			fmt.Fprintln(env.Stderr, "usage: aem <command> [arguments] [flags]\nRun 'aem help' for the commands.")
		}
		return exitUsage
	}
	fmt.Fprintf(env.Stderr, "aem: %v\n", err)
	if hint := exampleHint(err); hint != "" {
		fmt.Fprintf(env.Stderr, "aem: %s\n", hint)
	}
	return errorStatus(err)
}

// inRun is where a command that reads a run writes its file name by
// default: into the run directory, or the working directory for a run
// given as a URL.
func inRun(run, name string) string {
	if location.IsURL(run) {
		return name
	}
	return filepath.Join(run, name)
}

// checkOutput refuses an output file that is a file of a run directory or
// one of inputs (rundir.CheckOutputFile); URLs and "" are not checked.
func checkOutput(out string, inputs ...string) error {
	if out == "" || location.IsURL(out) {
		return nil
	}
	return rundir.CheckOutputFile(out, inputs...)
}

// checkOutputDir refuses an output directory that is a run directory or
// inside a checkpoint (rundir.CheckOutputDir); URLs and "" are not
// checked.
func checkOutputDir(dir string) error {
	if dir == "" || location.IsURL(dir) {
		return nil
	}
	return rundir.CheckOutputDir(dir)
}
