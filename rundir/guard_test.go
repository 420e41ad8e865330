package rundir

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"

	"github.com/aem-dev/aem/internal/location"
)

// aemSummary is a summary.json as aem run writes it, for ClaimDir's test
// of whose a directory is.
const aemSummary = `{"version": 1, "scorer": "lexical", "dialogs": 1, "turns": 2}`

// makeFiles creates files (a trailing "/" makes a directory) under dir.
func makeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClaimDir(t *testing.T) {
	run := map[string]string{SummaryFile: aemSummary, TurnsFile: "t", DialogsFile: "d"}
	with := func(m map[string]string, more map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range m {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		files   map[string]string // nil: the directory does not exist
		opts    func(dir string) ClaimOptions
		wantErr error
		errText string
		removed []string // removed by the claim
		kept    []string
	}{
		{name: "missing"},
		{name: "empty", files: map[string]string{}},
		{name: "a run", files: run},
		{name: "a checkpoint", files: map[string]string{".aem-run/manifest.json": "{}"}},
		{name: "leftovers of a killed run", files: map[string]string{LockFile: "123\n", ".tmp-turns.parquet-abc": "x", ".aem-run/": ""}},
		{name: "not a run", files: map[string]string{"notes.txt": "mine", "data/": ""},
			wantErr: ErrOutput, errText: "is not empty and not a run directory: it holds data/, notes.txt (fix:"},
		{name: "a run's names, not aem's summary", files: map[string]string{SummaryFile: `{"total": 3}`, TurnsFile: "theirs"},
			wantErr: ErrOutput, errText: "it holds summary.json, turns.parquet", kept: []string{TurnsFile}},
		{name: "not a run, forced", files: map[string]string{"notes.txt": "mine"},
			opts: func(string) ClaimOptions { return ClaimOptions{Force: true} }, kept: []string{"notes.txt"}},
		{name: "many entries", files: map[string]string{"a": "", "b": "", "c": "", "d": "", "e": "", "f": "", "g": ""},
			wantErr: ErrOutput, errText: "it holds a, b, c, d, e and 2 more"},
		{name: "derived files", files: with(run, map[string]string{ReportFile: "r", ReviewFile: "l", "sweep/thresholds.json": "{}"}),
			wantErr: ErrOutput, errText: "holds report.html, review.jsonl, sweep/, made from the run there before", kept: []string{ReportFile, ReviewFile, SweepDir}},
		{name: "derived files, forced", files: with(run, map[string]string{ReportFile: "r", ReviewFile: "l", "sweep/thresholds.json": "{}", "notes.txt": "mine"}),
			opts:    func(string) ClaimOptions { return ClaimOptions{Force: true} },
			removed: []string{ReportFile, ReviewFile, SweepDir}, kept: []string{"notes.txt", TurnsFile}},
		{name: "a report the writer rewrites", files: with(run, map[string]string{ReportFile: "r"}),
			opts: func(dir string) ClaimOptions {
				return ClaimOptions{Writes: []string{filepath.Join(dir, ReportFile)}}
			}, kept: []string{ReportFile}},
		{name: "input is a run file", files: run,
			opts: func(dir string) ClaimOptions {
				return ClaimOptions{Force: true, Inputs: []string{filepath.Join(dir, TurnsFile)}}
			}, wantErr: ErrOutput, errText: "turns.parquet would be written over or removed"},
		{name: "input through a link", files: with(run, map[string]string{"../golden.parquet": "g"}),
			opts: func(dir string) ClaimOptions {
				link := filepath.Join(filepath.Dir(dir), "link.parquet")
				if err := os.Symlink(filepath.Join(dir, TurnsFile), link); err != nil {
					panic(err)
				}
				return ClaimOptions{Inputs: []string{filepath.Join(filepath.Dir(dir), "golden.parquet"), link}}
			}, wantErr: ErrOutput, errText: "link.parquet (" + "OUT/turns.parquet) would be written over or removed"},
		{name: "input inside a derived directory, forced", files: with(run, map[string]string{"sweep/thresholds.json": "{}"}),
			opts: func(dir string) ClaimOptions {
				return ClaimOptions{Force: true, Inputs: []string{filepath.Join(dir, "sweep", "thresholds.json")}}
			}, wantErr: ErrOutput, errText: "thresholds.json (OUT/sweep) would be written over or removed", kept: []string{SweepDir}},
		{name: "input directory holding the output", files: map[string]string{},
			opts:    func(dir string) ClaimOptions { return ClaimOptions{Inputs: []string{filepath.Dir(dir)}} },
			wantErr: ErrOutput, errText: "would be written over or removed"},
		{name: "a write onto a run file", files: run,
			opts: func(dir string) ClaimOptions {
				return ClaimOptions{Writes: []string{filepath.Join(dir, SummaryFile)}}
			}, wantErr: ErrOutput, errText: "summary.json is a file of the run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "OUT")
			if c.files != nil {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				makeFiles(t, dir, c.files)
			}
			var opts ClaimOptions
			if c.opts != nil {
				opts = c.opts(dir)
			}
			claim, err := ClaimDir(dir, opts)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || !strings.Contains(strings.ReplaceAll(err.Error(), dir, "OUT"), c.errText) {
					t.Fatalf("err = %v, want %v saying %q", err, c.wantErr, c.errText)
				}
				if _, err := os.Stat(filepath.Join(dir, LockFile)); c.files != nil && c.files[LockFile] == "" && err == nil {
					t.Error("a refused claim left a lock file")
				}
			} else if err != nil {
				t.Fatalf("err = %v", err)
			} else {
				if b, err := os.ReadFile(filepath.Join(dir, LockFile)); err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
					t.Errorf("lock file %q, %v: want this pid", b, err)
				}
				claim.Release(false)
				if _, err := os.Stat(filepath.Join(dir, LockFile)); err == nil {
					t.Error("Release left the lock file")
				}
			}
			for _, n := range c.removed {
				if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
					t.Errorf("%s is still there", n)
				}
			}
			for _, n := range c.kept {
				if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
					t.Errorf("%s is gone: %v", n, err)
				}
			}
		})
	}
}

// TestClaimLock: a second claim of a claimed directory fails at once with
// ErrBusy naming the holder's pid (flock excludes another open file of
// the same process as it does another process), and succeeds once the
// first is released.
func TestClaimLock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	first, err := ClaimDir(dir, ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ClaimDir(dir, ClaimOptions{})
	want := fmt.Sprintf("%s is being written by another aem process (pid %d)", dir, os.Getpid())
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second claim: %v, want ErrBusy saying %q", err, want)
	}
	first.Release(false)
	second, err := ClaimDir(dir, ClaimOptions{})
	if err != nil {
		t.Fatalf("claim after release: %v", err)
	}
	second.Release(false)
}

// TestReleaseAfterFailure: a failed writer leaves no directory it created
// empty behind, and removes nothing else.
func TestReleaseAfterFailure(t *testing.T) {
	base := t.TempDir()
	created := filepath.Join(base, "new")
	c, err := ClaimDir(created, ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Release(true)
	if _, err := os.Stat(created); err == nil {
		t.Error("the directory the claim created is still there")
	}

	existed := filepath.Join(base, "existed")
	os.Mkdir(existed, 0o755)
	c, err = ClaimDir(existed, ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Release(true)
	if entries, err := os.ReadDir(existed); err != nil || len(entries) != 0 {
		t.Errorf("a directory that was there: %v, %v; want it there, empty", entries, err)
	}

	kept := filepath.Join(base, "kept")
	c, err = ClaimDir(kept, ClaimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	makeFiles(t, kept, map[string]string{".aem-run/manifest.json": "{}"})
	c.Release(true)
	if _, err := os.Stat(filepath.Join(kept, ".aem-run", "manifest.json")); err != nil {
		t.Errorf("the checkpoint is gone: %v", err)
	}
}

func TestCheckOutputFile(t *testing.T) {
	dir := t.TempDir()
	makeFiles(t, dir, map[string]string{"run/" + SummaryFile: aemSummary, "run/.aem-run/manifest.json": "{}",
		"plain/" + TurnsFile: "not a run", "in.jsonl": "{}"})
	for _, c := range []struct {
		path, input, err string
	}{
		{path: "run/" + TurnsFile, err: "is a file of the run in"},
		{path: "run/" + SummaryFile, err: "is a file of the run in"},
		{path: "run/.aem-run/part-00001.turns.parquet", err: "inside the checkpoint of a run"},
		{path: "run/" + ReportFile},
		{path: "plain/" + TurnsFile},
		{path: "in.jsonl", input: "in.jsonl", err: "in.jsonl would be written over"},
	} {
		var inputs []string
		if c.input != "" {
			inputs = []string{filepath.Join(dir, c.input)}
		}
		err := CheckOutputFile(filepath.Join(dir, c.path), inputs...)
		if c.err == "" && err != nil || c.err != "" && (!errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckOutputFile(%s) = %v, want %q", c.path, err, c.err)
		}
	}
	if err := CheckOutputDir(filepath.Join(dir, "run")); !errors.Is(err, ErrOutput) {
		t.Errorf("CheckOutputDir(run) = %v, want ErrOutput", err)
	}
	if err := CheckOutputDir(filepath.Join(dir, "plain")); err != nil {
		t.Errorf("CheckOutputDir(plain) = %v", err)
	}
}

func TestCheckRemote(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	mux := new(blob.URLMux)
	mux.RegisterBucket("memtest", bucketDir{root})
	for key, body := range map[string]string{
		"foreign/notes.txt":              "mine",
		"run/" + SummaryFile:             aemSummary,
		"run/" + TurnsFile:               "t",
		"run/report.html":                "r",
		"stopped/" + TurnsFile:           "t",
		"stopped/" + DialogsFile:         "d",
		"deeper/only/" + TurnsFile:       "t",
		"golden/golden.parquet":          "g",
		"nested/sub/" + SummaryFile:      aemSummary,
		"nested/" + SummaryFile + ".bak": "x",
		"ckpt/.aem-run/manifest.json":    "{}",
	} {
		makeFiles(t, filepath.Join(root, "b"), map[string]string{key: body})
	}
	for _, c := range []struct {
		prefix, input string
		force         bool
		err           string
	}{
		{prefix: "fresh"},
		{prefix: "run"},
		{prefix: "stopped"},
		{prefix: "ckpt"},
		{prefix: "foreign", err: "memtest://b/foreign is not empty and not a run: it holds notes.txt"},
		{prefix: "foreign", force: true},
		{prefix: "nested", err: "it holds summary.json.bak (fix"},
		{prefix: "deeper"},
		{prefix: "run", input: "memtest://b/run/turns.parquet", force: true, err: "is a file of the run written to"},
		{prefix: "run", input: "memtest://b/golden/golden.parquet"},
	} {
		out, err := location.Parse("memtest://b/" + c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckRemote(ctx, mux, out, c.input, c.force)
		if c.err == "" && err != nil || c.err != "" && (!errors.Is(err, ErrOutput) || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("CheckRemote(%s, input %q, force %v) = %v, want %q", c.prefix, c.input, c.force, err, c.err)
		}
	}
}

// bucketDir opens scheme://BUCKET as the directory root/BUCKET (fileblob).
type bucketDir struct{ root string }

func (d bucketDir) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return fileblob.OpenBucket(filepath.Join(d.root, u.Host), &fileblob.Options{NoTempDir: true})
}
