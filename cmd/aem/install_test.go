package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/home"
)

// installEnv is an Env whose binary is tmp/prefix/bin/aem and whose user
// cache directory is tmp/cache, with the given variables.
func installEnv(tmp string, vars map[string]string) *Env {
	var out bytes.Buffer
	return &Env{
		Stdout: &out, Stderr: &out,
		Getenv:       func(k string) string { return vars[k] },
		Executable:   func() (string, error) { return filepath.Join(tmp, "prefix", "bin", "aem"), nil },
		UserCacheDir: func() (string, error) { return filepath.Join(tmp, "cache"), nil },
	}
}

var (
	modelRel = filepath.Join("models", embed.DefaultModelName, "model.onnx")
	libRel   = filepath.Join("lib", embed.PlatformDir(), "libonnxruntime.so.1")
)

// fill makes an install root at dir holding the given files (empty).
func fill(t *testing.T, dir string, rels ...string) {
	t.Helper()
	for _, rel := range rels {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInstallRoot checks which install root the embedding scorer takes its
// model and library from, and where its cache goes, for each layout.
func TestInstallRoot(t *testing.T) {
	tests := []struct {
		name      string
		roots     map[string][]string // install roots (relative to tmp) and what they hold
		vars      map[string]string
		backend   string
		model     string
		wantRoot  string // relative to tmp; ".aem" is the working directory's
		wantCache string
	}{
		{name: "make install: share/aem beside the binary; cache in the user cache",
			roots:    map[string][]string{"prefix/share/aem": {modelRel, libRel}, "cache/aem": {modelRel, libRel}},
			wantRoot: "prefix/share/aem", wantCache: "cache/aem"},
		{name: "make build: the checkout's .aem beside bin/",
			roots:    map[string][]string{"prefix/.aem": {modelRel, libRel}},
			wantRoot: "prefix/.aem", wantCache: "cache/aem"},
		{name: "./.aem before the user cache; cache in it",
			roots:    map[string][]string{".aem": {modelRel, libRel}, "cache/aem": {modelRel, libRel}},
			wantRoot: ".aem", wantCache: ".aem"},
		{name: "scripts/setup --user",
			roots:    map[string][]string{"cache/aem": {modelRel, libRel}},
			wantRoot: "cache/aem", wantCache: "cache/aem"},
		{name: "a place with the library only is passed over",
			roots:    map[string][]string{"prefix/share/aem": {libRel}, "cache/aem": {modelRel, libRel}},
			wantRoot: "cache/aem", wantCache: "cache/aem"},
		{name: "--backend go needs no library",
			roots:    map[string][]string{"prefix/share/aem": {modelRel}, "cache/aem": {modelRel, libRel}},
			backend:  embed.BackendGo,
			wantRoot: "prefix/share/aem", wantCache: "cache/aem"},
		{name: "--model names the model: the library decides",
			roots:    map[string][]string{".aem": {modelRel}, "cache/aem": {libRel}},
			model:    "somewhere/else",
			wantRoot: "cache/aem", wantCache: "cache/aem"},
		{name: "AEM_HOME is the only place",
			roots:    map[string][]string{"mine": {modelRel, libRel}, "prefix/share/aem": {modelRel, libRel}},
			vars:     map[string]string{"AEM_HOME": "mine"},
			wantRoot: "mine", wantCache: "mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Chdir(tmp) // ./.aem and relative AEM_HOME are tmp's
			for dir, rels := range tt.roots {
				fill(t, dir, rels...)
			}
			env := installEnv(tmp, tt.vars)
			eo := embed.Options{Backend: cmpOr(tt.backend, embed.BackendORT), ModelDir: tt.model, Getenv: env.Getenv}
			roots := env.homeRoots()
			root, err := home.Find(roots, func(dir string) []string { return needs(eo, dir) })
			if err != nil {
				t.Fatal(err)
			}
			if got := rel(t, tmp, root.Dir); got != tt.wantRoot {
				t.Errorf("install root = %s, want %s", got, tt.wantRoot)
			}
			if got := rel(t, tmp, cacheRoot(roots, root).Dir); got != tt.wantCache {
				t.Errorf("cache root = %s, want %s", got, tt.wantCache)
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func rel(t *testing.T, base, p string) string {
	t.Helper()
	if !filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	r, err := filepath.Rel(base, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestInstallRootMissing runs `aem run` with no install anywhere: the error
// names every place searched, in order, what each lacked, and the fixes.
func TestInstallRootMissing(t *testing.T) {
	tmp := t.TempDir()
	t.Chdir(tmp)
	fill(t, "prefix/share/aem", libRel) // a partial install: the model is missing
	var out bytes.Buffer
	env := installEnv(tmp, nil)
	env.Stdout, env.Stderr = &out, &out
	golden := filepath.Join(repoRoot(t), "datasets", "example", "golden.jsonl")
	err := dispatch(context.Background(), env, []string{"run", golden, "-o", "out", "--quiet"})
	if !errors.Is(err, home.ErrNotFound) {
		t.Fatalf("err = %v, want home.ErrNotFound", err)
	}
	msg := err.Error()
	share := filepath.Join(tmp, "prefix", "share", "aem")
	wants := []string{
		share + " (beside the binary " + filepath.Join(tmp, "prefix", "bin", "aem") + "): no " + filepath.Join(share, "models", embed.DefaultModelName),
		filepath.Join(tmp, "prefix", ".aem") + " (beside the binary",
		".aem (working directory): does not exist",
		filepath.Join(tmp, "cache", "aem") + " (user cache directory): does not exist",
		"make install", "scripts/setup --user", "AEM_HOME", "--scorer lexical",
	}
	last := -1
	for _, w := range wants {
		i := strings.Index(msg, w)
		if i < 0 {
			t.Errorf("error lacks %q:\n%s", w, msg)
		} else if i < last {
			t.Errorf("error lists %q out of order:\n%s", w, msg)
		} else {
			last = i
		}
	}
	if _, err := os.Stat("out"); err == nil {
		t.Error("a failed run left an output directory")
	}
	if got := exitStatus(env, err); got != exitError {
		t.Errorf("exit status %d, want %d", got, exitError)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(testDir, "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// testDir is this package's directory, captured before any test changes
// the working directory.
var testDir, _ = os.Getwd()

// TestHelpShowsInstallRoot: the main help and run's help give the search
// order, the same text Search follows.
func TestHelpShowsInstallRoot(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "run"}, {"help", "sweep"}} {
		var out bytes.Buffer
		env := &Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
		if err := dispatch(context.Background(), env, args); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), home.Order("\t  ")) {
			t.Errorf("aem %s does not give the install root's search order:\n%s", strings.Join(args, " "), out.String())
		}
	}
}

// TestExamplesParse catches stale examples: every `aem COMMAND ...` line in
// the commands' EXAMPLES and in the README's sh blocks names a command that
// exists and only flags it has, with valid values.
func TestExamplesParse(t *testing.T) {
	var lines []string
	for _, c := range commands() {
		_, ex, _ := strings.Cut(c.Long, "EXAMPLES")
		for _, l := range strings.Split(ex, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "aem ") {
				lines = append(lines, "help "+c.Name+": "+l)
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range readmeCommands(readme) {
		lines = append(lines, "README: "+l)
	}
	if len(lines) < 30 {
		t.Fatalf("found only %d examples; is the README's ```sh fencing intact?", len(lines))
	}
	for _, line := range lines {
		where, cmdline, _ := strings.Cut(line, ": ")
		args := shellWords(cmdline)[1:]
		t.Run(where+"/"+strings.Join(args, "_"), func(t *testing.T) {
			cmd := lookup(args[0])
			if cmd == nil {
				t.Fatalf("%s: %q: no command %q", where, cmdline, args[0])
			}
			fs := newFlagSet(cmd.Name)
			cmd.Setup(fs, &Env{Getenv: func(string) string { return "" }})
			if _, err := parseInterspersed(fs.flags, args[1:]); err != nil {
				t.Errorf("%s: %q: %v", where, cmdline, err)
			}
		})
	}
}

// TestHelpRunLeadsWithREADME: `aem help run`'s first example is the
// README's first (the example with its thresholds, the headline result).
func TestHelpRunLeadsWithREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for _, l := range readmeCommands(readme) {
		if strings.HasPrefix(l, "aem run ") {
			first = l
			break
		}
	}
	_, ex, _ := strings.Cut(cmdRun().Long, "EXAMPLES")
	got := strings.TrimSpace(strings.SplitN(strings.TrimSpace(ex), "\n", 2)[0])
	if first == "" || got != first {
		t.Errorf("aem help run's first example is %q, the README's is %q", got, first)
	}
}

// readmeCommands returns the `aem ...` commands of the README's sh blocks,
// lines continued with a backslash joined, without trailing comments.
func readmeCommands(readme []byte) []string {
	var out []string
	in, cont := false, false
	var cmd string
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
		case strings.HasPrefix(l, "```"):
			in = false
		case in && (cont || strings.HasPrefix(l, "aem ")):
			if i := strings.Index(l, " #"); i >= 0 {
				l = l[:i]
			}
			l = strings.TrimSpace(l)
			l, cont = strings.CutSuffix(l, "\\")
			cmd += l
			if !cont {
				out = append(out, strings.TrimSpace(cmd))
				cmd = ""
			}
		}
	}
	return out
}

// shellWords splits a command line the way sh would for the simple lines in
// examples: words separated by blanks, single and double quotes grouping,
// output redirections dropped.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for i, w := range words {
		if w == ">" || w == "2>" || strings.HasPrefix(w, ">") {
			return words[:i]
		}
	}
	return words
}
