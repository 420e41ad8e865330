package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/longtest"
)

// TestREADMECoversCommands catches stale docs: every command has a section
// in the README and a help text with examples.
func TestREADMECoversCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands() {
		t.Run(c.Name, func(t *testing.T) {
			if !bytes.Contains(readme, []byte("### `aem "+c.Name+"`")) {
				t.Errorf("README.md has no section \"### `aem %s`\"", c.Name)
			}
			if !strings.Contains(c.Long, "EXAMPLES") {
				t.Errorf("help for %s has no EXAMPLES", c.Name)
			}
			var out bytes.Buffer
			env := &Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
			if err := dispatch(context.Background(), env, []string{"help", c.Name}); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(out.String(), "usage: aem "+c.Name) {
				t.Errorf("help %s starts %q", c.Name, firstLine(out.String()))
			}
		})
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestEnvDefaults(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		env       map[string]string
		threshold string
		out       string
		note      string // on stderr
		wantErr   bool
	}{
		{name: "flag wins", args: []string{"--threshold", "0.7"}, env: map[string]string{"AEM_THRESHOLD": "0.9"}, threshold: "0.7"},
		{name: "env fills", env: map[string]string{"AEM_THRESHOLD": "0.9"}, threshold: "0.9"},
		{name: "default", threshold: "0.5"},
		{name: "bad env", env: map[string]string{"AEM_THRESHOLD": "x"}, wantErr: true},
		{name: "short alias wins over env", args: []string{"-o", "cli"}, env: map[string]string{"AEM_T_OUT": "env"}, threshold: "0.5", out: "cli"},
		{name: "command's variable fills alias", env: map[string]string{"AEM_T_OUT": "env", "AEM_O": "ignored"}, threshold: "0.5", out: "env"},
		{name: "another command's variable is not read", env: map[string]string{"AEM_OUT": "run-dir", "AEM_RUN_OUT": "run-dir"}, threshold: "0.5",
			note: "aem: note: AEM_OUT is not read by aem t; its --out reads AEM_T_OUT\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := newFlagSet("t")
			fs.shared(topicThresholds).Float64Var(new(float64), "threshold", 0.5, "")
			var out string
			fs.out(&out, "output")
			if _, err := parseInterspersed(fs.flags, tt.args); err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			err := fs.applyEnv(func(k string) string { return tt.env[k] }, &stderr)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if got := fs.flags.Lookup("threshold").Value.String(); got != tt.threshold {
				t.Errorf("threshold = %s, want %s", got, tt.threshold)
			}
			if out != tt.out || stderr.String() != tt.note {
				t.Errorf("out = %q, stderr %q; want %q, %q", out, stderr.String(), tt.out, tt.note)
			}
		})
	}
}

// TestEachCommandReadsItsOwnVariables is issue 27's repro: AEM_OUT (or
// AEM_RUN_OUT) set for aem run must not make aem gen write there.
func TestEachCommandReadsItsOwnVariables(t *testing.T) {
	dir := t.TempDir()
	runOut := filepath.Join(dir, "run-dir")
	vars := map[string]string{"AEM_OUT": runOut, "AEM_RUN_OUT": runOut}
	var stdout, stderr bytes.Buffer
	env := &Env{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return vars[k] }}
	err := dispatch(context.Background(), env, []string{"gen", "--dialogs", "1"})
	var ue *usageError
	if !errors.As(err, &ue) || !strings.Contains(ue.msg, "gen needs an output file") {
		t.Fatalf("gen with only run's variables set: %v, want the usage error for a missing -o", err)
	}
	if _, err := os.Stat(runOut); !os.IsNotExist(err) {
		t.Errorf("gen wrote %s, run's output directory", runOut)
	}
	if !strings.Contains(stderr.String(), "AEM_OUT is not read by aem gen; its --out reads AEM_GEN_OUT") {
		t.Errorf("stderr does not say which variable gen reads: %q", stderr.String())
	}
	genOut := filepath.Join(dir, "gen.parquet")
	vars["AEM_GEN_OUT"] = genOut
	if err := dispatch(context.Background(), env, []string{"gen", "--dialogs", "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(genOut); err != nil {
		t.Errorf("AEM_GEN_OUT: %v", err)
	}
}

// commandFlags sets up every command's flags.
func commandFlags(t *testing.T) map[string]*flagSet {
	t.Helper()
	sets := map[string]*flagSet{}
	for _, c := range commands() {
		fs := newFlagSet(c.Name)
		c.Setup(fs, &Env{Getenv: func(string) string { return "" }})
		sets[c.Name] = fs
	}
	return sets
}

// TestFlagsHaveTopicsAndVariables: every flag is registered through a
// flagView (so it has a help topic and the right variable), -o comes with
// --out, and a command's own flags read AEM_<COMMAND>_<FLAG>.
func TestFlagsHaveTopicsAndVariables(t *testing.T) {
	for name, fs := range commandFlags(t) {
		fs.flags.VisitAll(func(f *flag.Flag) {
			info, ok := fs.info[f.Name]
			switch {
			case !ok:
				t.Errorf("aem %s %s is registered on the flag.FlagSet directly: register it through fs.own(topic) or fs.shared(topic) (flags.go)", name, flagSpelling(f.Name))
			case len(f.Name) == 1 && info.env != "":
				t.Errorf("aem %s -%s reads %s: one-letter names have no variable", name, f.Name, info.env)
			case len(f.Name) > 1 && info.own && !strings.HasPrefix(info.env, "AEM_"+strings.ToUpper(name)+"_"):
				t.Errorf("aem %s --%s is the command's own but reads %s", name, f.Name, info.env)
			}
		})
		if (fs.flags.Lookup("o") == nil) != (fs.flags.Lookup("out") == nil) {
			t.Errorf("aem %s has one of -o and --out: register both with fs.out", name)
		}
	}
}

// TestSharedFlagsMeanOneThing: a flag that reads AEM_<FLAG> has the same
// help text, default and topic in every command that has it, so one
// variable never means two things.
func TestSharedFlagsMeanOneThing(t *testing.T) {
	type seen struct {
		cmd, usage, def string
		topic           topic
	}
	first := map[string]seen{}
	sets := commandFlags(t)
	for _, c := range commands() {
		fs := sets[c.Name]
		fs.flags.VisitAll(func(f *flag.Flag) {
			if fs.info[f.Name].own || len(f.Name) == 1 {
				return
			}
			s := seen{c.Name, f.Usage, f.DefValue, fs.info[f.Name].topic}
			prev, ok := first[f.Name]
			if !ok {
				first[f.Name] = s
				return
			}
			if prev.usage != s.usage || prev.def != s.def || prev.topic != s.topic {
				t.Errorf("--%s reads AEM_%s in aem %s and aem %s but differs there:\n%+v\n%+v\nregister it in one shared options type, or with fs.own",
					f.Name, strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_")), prev.cmd, c.Name, prev, s)
			}
		})
	}
}

// TestHelpGroupsFlags: aem help run lists its flags under the topics, in
// order, each flag once.
func TestHelpGroupsFlags(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	if err := dispatch(context.Background(), env, []string{"help", "run"}); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	last := -1
	for _, heading := range []string{"INPUT FLAGS", "SCORING FLAGS", "THRESHOLDS FLAGS", "JUDGE FLAGS", "OUTPUT FLAGS", "SCALE FLAGS"} {
		i := strings.Index(help, "\n"+heading+"\n")
		if i < 0 || i < last {
			t.Errorf("help run: %q missing or out of order", heading)
		}
		last = i
	}
	for _, want := range []string{
		"\t-o, --out\n\t\toutput run directory (local path, file://, s3:// or gs:// URL) [AEM_RUN_OUT]\n",
		"\t--threshold\n", "[AEM_THRESHOLD]", "[AEM_JUDGE_URL]", "[AEM_WORKERS]", "[AEM_RUN_SHARD]",
	} {
		if strings.Count(help, want) != 1 {
			t.Errorf("help run has %q %d times, want once", want, strings.Count(help, want))
		}
	}
}

// TestREADMEVariablesExist catches stale docs: every AEM_* variable the
// README names is one a command reads, or one of the variables that are
// not a flag's.
func TestREADMEVariablesExist(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{"AEM_HOME": true, "AEM_JUDGE_API_KEY": true, "AEM_TEST_REQUIRE_INSTALL": true, "AEM_CHROMIUM": true, longtest.Env: true,
		"AEM_FLAG": true, "AEM_COMMAND": true, "AEM_JUDGE": true} // AEM_<FLAG>, AEM_<COMMAND>_<FLAG>, AEM_JUDGE_*
	for _, fs := range commandFlags(t) {
		for _, info := range fs.info {
			known[info.env] = true
		}
	}
	for _, v := range regexp.MustCompile(`AEM_[A-Z0-9_]*[A-Z0-9]`).FindAllString(string(readme), -1) {
		if !known[v] {
			t.Errorf("README names %s, which no command reads (flags.go says how a flag's variable is named)", v)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args []string
		want []string
		o    string
	}{
		{[]string{"in.parquet", "-o", "out"}, []string{"in.parquet"}, "out"},
		{[]string{"-o", "out", "in.parquet"}, []string{"in.parquet"}, "out"},
		{[]string{"a", "-o", "out", "b"}, []string{"a", "b"}, "out"},
		{[]string{"-o", "out", "--", "-weird-name"}, []string{"-weird-name"}, "out"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		o := fs.String("o", "", "")
		got, err := parseInterspersed(fs, tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || *o != tt.o {
			t.Errorf("parseInterspersed(%q) = %q, o=%q; want %q, o=%q", tt.args, got, *o, tt.want, tt.o)
		}
	}
}

// TestHelpFoldsAliases checks that a flag with a short and a long name is
// listed once, "-o, --out", with the long name's environment variable.
func TestHelpFoldsAliases(t *testing.T) {
	fs := newFlagSet("t")
	var out string
	fs.out(&out, "output directory")
	fs.shared(topicOutput).BoolVar(new(bool), "quiet", false, "no progress")
	var b strings.Builder
	printCommandHelp(&b, &Command{Name: "t", UsageLine: "t", Long: "T."}, fs)
	got := b.String()
	for _, want := range []string{"\nOUTPUT FLAGS\n\t-o, --out\n\t\toutput directory [AEM_T_OUT]\n", "\t--quiet\n\t\tno progress [AEM_QUIET]\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("help lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "same as") || strings.Contains(got, "AEM_O]") {
		t.Errorf("help lists the alias separately:\n%s", got)
	}
}
