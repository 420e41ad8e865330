package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home/hometest"
)

// TestMain lets the txtar scripts under testdata/script (and the
// exit-status tests) run `aem` as a command, in a process of its own, the
// way a user would: the test binary, copied under the name aem, runs Main
// (with the test-only slowfile:// object store, blobtest_test.go).
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"aem": func() {
			registerTestBuckets()
			os.Exit(Main())
		},
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script. Each
// script runs in its own temporary directory; $REPO is the repository root
// so scripts can reach the bundled example.
func TestScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("REPO", repo)
			e.Setenv("AEM_HOME", filepath.Join(repo, ".aem"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitCode,
			"mdsafe":   cmdMarkdownSafe,
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "model":
				// Both forms of the default model and ONNX Runtime, as scripts/setup installs them.
				for _, m := range []string{embed.ModelInt8, embed.ModelFP32} {
					if _, err := os.Stat(filepath.Join(repo, ".aem", "models", m, "model.onnx")); err != nil {
						if hometest.Required() {
							return false, fmt.Errorf("[model]: %w (%s=1: the install is required; run scripts/setup)", err, hometest.RequireEnv)
						}
						return false, nil
					}
				}
				return true, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

// cmdExitCode is the script command "exitcode STATUS PROG [ARGS...]": it
// runs PROG like exec (stdout and stderr are then checked as usual) and
// fails unless PROG exits with exactly STATUS. `! exec` accepts any
// failure; the exit statuses are part of aem's interface.
func cmdExitCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode STATUS PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: status %q is not a number", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exitcode: running %s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// markdownTags are the elements Markdown itself produces (GitHub's
// flavour); an element outside them in a rendered file came from raw
// HTML in it.
var markdownTags = map[string]bool{"p": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"ul": true, "ol": true, "li": true, "code": true, "pre": true, "blockquote": true, "hr": true, "br": true,
	"table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true, "strong": true, "em": true, "del": true}

var htmlTag = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9]*)`)

// cmdMarkdownSafe is the script command "mdsafe FILE": it renders the
// Markdown FILE as GitHub does, raw HTML allowed as the laxest viewers
// allow it, and fails when the page holds an element Markdown does not
// make (raw HTML that reached the file) or a link.
func cmdMarkdownSafe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mdsafe FILE")
	}
	var page bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert([]byte(ts.ReadFile(args[0])), &page); err != nil {
		ts.Fatalf("mdsafe: %v", err)
	}
	for _, m := range htmlTag.FindAllStringSubmatch(page.String(), -1) {
		if !markdownTags[strings.ToLower(m[1])] {
			ts.Fatalf("mdsafe: %s renders a <%s> element", args[0], m[1])
		}
	}
}
