package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
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
			"damage":   cmdDamage,
			"tmpfs":    cmdTmpfs,
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
			case "tmpfs":
				return canMountTmpfs(), nil
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

// cmdDamage is the script command "damage truncate|flip|head DIR
// [PATTERN]": it damages every regular file under DIR (whose name matches
// PATTERN, if given), whatever the format of the files (so the same
// script damaged a bbolt cache and damages its successor):
// truncate cuts each file to half its size; flip inverts 2,000 bytes at
// random places past the first 64 KiB (seeded: the same places every
// run), or past the first tenth of a smaller file; head overwrites the
// first 64 bytes. Files named *.corrupt-* (moved aside already) are left
// alone.
func cmdDamage(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: damage truncate|flip|head DIR [PATTERN]")
	}
	how, dir, pattern := args[0], ts.MkAbs(args[1]), "*"
	if len(args) == 3 {
		pattern = args[2]
	}
	rng := rand.New(rand.NewPCG(1, 2))
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.Contains(d.Name(), ".corrupt-") {
			return err
		}
		if ok, err := filepath.Match(pattern, d.Name()); !ok || err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		switch how {
		case "truncate":
			b = b[:len(b)/2]
		case "flip":
			from := min(64<<10, len(b)/10)
			for range 2000 {
				if len(b) > from {
					b[from+rng.IntN(len(b)-from)] ^= 0xff
				}
			}
		case "head":
			for i := range min(64, len(b)) {
				b[i] = 'X'
			}
		default:
			ts.Fatalf("damage: unknown kind %q (truncate, flip or head)", how)
		}
		n++
		return os.WriteFile(path, b, 0o644)
	})
	if err != nil {
		ts.Fatalf("damage: %v", err)
	}
	if n == 0 {
		ts.Fatalf("damage: no file under %s", dir)
	}
}

// cmdTmpfs is the script command "tmpfs DIR SIZE": it mounts a tmpfs of
// SIZE (as mount's size= option: 256k) on DIR, created, for the rest of
// the script: a disk that fills up. Guard it with [tmpfs].
func cmdTmpfs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: tmpfs DIR SIZE")
	}
	dir := ts.MkAbs(args[0])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("tmpfs: %v", err)
	}
	if err := mountTmpfs(dir, args[1]); err != nil {
		ts.Fatalf("tmpfs: mounting on %s: %v", dir, err)
	}
	ts.Defer(func() { unmount(dir) })
}

// canMountTmpfs reports whether this process may mount a tmpfs (root, or
// CAP_SYS_ADMIN, on Linux), by mounting one.
func canMountTmpfs() bool {
	dir, err := os.MkdirTemp("", "aem-tmpfs-probe-")
	if err != nil {
		return false
	}
	defer os.Remove(dir)
	if mountTmpfs(dir, "16k") != nil {
		return false
	}
	unmount(dir)
	return true
}
