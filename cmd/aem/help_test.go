package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
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
		name    string
		args    []string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"flag wins", []string{"--threshold", "0.7"}, map[string]string{"AEM_THRESHOLD": "0.9"}, "0.7", false},
		{"env fills", nil, map[string]string{"AEM_THRESHOLD": "0.9"}, "0.9", false},
		{"default", nil, nil, "0.5", false},
		{"bad env", nil, map[string]string{"AEM_THRESHOLD": "x"}, "", true},
		{"short alias wins over env", []string{"-o", "cli"}, map[string]string{"AEM_OUT": "env"}, "0.5", false},
		{"long name env fills alias", nil, map[string]string{"AEM_OUT": "env", "AEM_O": "ignored"}, "0.5", false},
	}
	wantOut := map[string]string{"short alias wins over env": "cli", "long name env fills alias": "env"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("t", flag.ContinueOnError)
			fs.Float64("threshold", 0.5, "")
			var out string
			fs.StringVar(&out, "o", "", "output")
			fs.StringVar(&out, "out", "", "same as -o")
			if _, err := parseInterspersed(fs, tt.args); err != nil {
				t.Fatal(err)
			}
			err := applyEnvDefaults(fs, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err == nil {
				if got := fs.Lookup("threshold").Value.String(); got != tt.want {
					t.Errorf("threshold = %s, want %s", got, tt.want)
				}
				if out != wantOut[tt.name] {
					t.Errorf("out = %q, want %q", out, wantOut[tt.name])
				}
			}
		})
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
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var out string
	fs.StringVar(&out, "o", "", "output directory")
	fs.StringVar(&out, "out", "", "same as -o")
	fs.Bool("quiet", false, "no progress")
	var b strings.Builder
	printCommandHelp(&b, &Command{Name: "t", UsageLine: "t", Long: "T."}, fs)
	got := b.String()
	for _, want := range []string{"\t-o, --out\n\t\toutput directory [AEM_OUT]\n", "\t--quiet\n\t\tno progress [AEM_QUIET]\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("help lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "same as") || strings.Contains(got, "AEM_O]") {
		t.Errorf("help lists the alias separately:\n%s", got)
	}
}
