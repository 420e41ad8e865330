package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/metrics"
)

// TestSecondWriterFailsAtOnce is issue 28's repro: two `aem run ... -o D
// --resume` started while the first still runs. Both used to exit 1 and
// the checkpoint was deleted. The second now fails at once, naming the
// first's pid, touching nothing; the first finishes as if alone. The
// judge server holds the first run's requests, so it is mid-run, its
// checkpoint in place, while the second starts.
func TestSecondWriterFailsAtOnce(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	aemGen(t, dir, 6)
	release := srv.Hold()
	defer release()
	first, firstErr := judgedRun(t, srv, dir, "out", "--resume")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	deadline := time.Now().Add(2 * time.Minute)
	for len(srv.Requests()) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no judge request arrived\n%s", firstErr)
		}
		time.Sleep(10 * time.Millisecond)
	}
	manifest := filepath.Join(dir, "out", ".aem-run", "manifest.json")
	before, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatalf("the first run has no checkpoint: %v", err)
	}
	for _, extra := range [][]string{{"--resume"}, nil, {"--force"}} {
		// The same judge cache too, whose lock the first run holds: the
		// output directory's is taken first, before any cache is opened.
		second, stderr := judgedRun(t, srv, dir, "out", extra...)
		start := time.Now()
		code := exitCode(t, second.Run())
		want := fmt.Sprintf("out is being written by another aem process (pid %d)", first.Process.Pid)
		if code != exitError || !strings.Contains(stderr.String(), want) {
			t.Errorf("second run %v: exit %d, want %d with %q:\n%s", extra, code, exitError, want, stderr)
		}
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("second run %v took %v to fail; it must not wait", extra, d)
		}
		if after, err := os.ReadFile(manifest); err != nil || string(after) != string(before) {
			t.Errorf("second run %v changed the checkpoint: %v", extra, err)
		}
	}
	release()
	if code := exitCode(t, first.Wait()); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, firstErr)
	}
	for _, gone := range []string{".aem-run", ".aem-lock"} {
		if _, err := os.Stat(filepath.Join(dir, "out", gone)); err == nil {
			t.Errorf("the finished run left %s", gone)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "summary.json")); err != nil {
		t.Errorf("the first run did not finish: %v", err)
	}
}

// TestDamagedCheckpointsAlike: a checkpoint damaged in any of its files is
// invalid input, exit 3, with the fix (it was 1 for the manifest or a
// missing part, 3 for a part that does not decode), and it is kept as it
// is for the user to look at.
func TestDamagedCheckpointsAlike(t *testing.T) {
	if testing.Short() {
		t.Skip("runs aem six times")
	}
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	aemGen(t, dir, 250)
	// Stopped at a judge budget after the first part was committed.
	stop, stderr := judgedRun(t, srv, dir, "stopped", "--judge-max-calls", "1500", "--workers", "1")
	if code := exitCode(t, stop.Run()); code != exitBudget {
		t.Fatalf("exit %d, want %d\n%s", code, exitBudget, stderr)
	}
	part := filepath.Join(".aem-run", "part-00001")
	if _, err := os.Stat(filepath.Join(dir, "stopped", part+".turns.parquet")); err != nil {
		t.Fatalf("the stopped run committed no part: %v", err)
	}
	damage := map[string]func(ckpt string) error{
		"manifest not JSON": func(d string) error {
			return os.WriteFile(filepath.Join(d, ".aem-run", "manifest.json"), []byte("{\"version\": 1, \"parts\": ["), 0o644)
		},
		"part missing": func(d string) error { return os.Remove(filepath.Join(d, part+".dialogs.parquet")) },
		"part truncated": func(d string) error {
			return os.Truncate(filepath.Join(d, part+".turns.parquet"), 100)
		},
		"part bytes flipped": func(d string) error {
			p := filepath.Join(d, part+".index.parquet")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for i := 8; i < len(b)-8; i++ {
				b[i] ^= 0x5a
			}
			return os.WriteFile(p, b, 0o644)
		},
	}
	for name, spoil := range damage {
		t.Run(name, func(t *testing.T) {
			out := strings.ReplaceAll(name, " ", "-")
			if err := os.CopyFS(filepath.Join(dir, out), os.DirFS(filepath.Join(dir, "stopped"))); err != nil {
				t.Fatal(err)
			}
			if err := spoil(filepath.Join(dir, out)); err != nil {
				t.Fatal(err)
			}
			kept := snapshot(t, filepath.Join(dir, out))
			cmd, stderr := judgedRun(t, srv, dir, out, "--resume")
			if code := exitCode(t, cmd.Run()); code != exitInvalidRows {
				t.Errorf("exit %d, want %d\n%s", code, exitInvalidRows, stderr)
			}
			for _, want := range []string{"corrupt checkpoint", "to start over"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr)
				}
			}
			if now := snapshot(t, filepath.Join(dir, out)); now != kept {
				t.Errorf("the damaged checkpoint was changed:\nbefore %s\nafter  %s", kept, now)
			}
		})
	}
}

// aemGen writes dir/golden.parquet with `aem gen` (seed 3).
func aemGen(t *testing.T, dir string, dialogs int) {
	t.Helper()
	gen, stderr := aemCmd(t, dir, nil, "gen", "--dialogs", fmt.Sprint(dialogs), "--seed", "3", "-o", "golden.parquet")
	if code := exitCode(t, gen.Run()); code != 0 {
		t.Fatalf("aem gen: exit %d\n%s", code, stderr)
	}
}

// snapshot lists the files under dir with their sizes.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			fmt.Fprintf(&b, "%s:%d ", strings.TrimPrefix(p, dir), info.Size())
		}
		return nil
	})
	return b.String()
}

// TestEmptyInputsAlike: an input without turns is invalid input in every
// form, exit 3, naming the file (empty JSON Lines exited 0, an empty
// Parquet file 3), and no output directory is left behind.
func TestEmptyInputsAlike(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty.jsonl":   "",
		"empty.parquet": "",
		"blank.jsonl":   "\n \n\t\n",
		"array.json":    "[]\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noRows := filepath.Join(dir, "no-rows.parquet")
	none := func(func(metrics.Dialog, error) bool) {}
	if _, err := golden.Write(context.Background(), noRows, none, golden.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	files["no-rows.parquet"] = ""
	for name := range files {
		t.Run(name, func(t *testing.T) {
			out := "out-" + name
			cmd, stderr := aemCmd(t, dir, nil, "run", name, "-o", out, "--scorer", "lexical", "--quiet")
			if code := exitCode(t, cmd.Run()); code != exitInvalidRows || !strings.Contains(stderr.String(), name+": holds no turns") {
				t.Errorf("exit %d, want %d naming %s and saying it holds no turns:\n%s", code, exitInvalidRows, name, stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, out)); err == nil {
				t.Errorf("the failed run left %s behind", out)
			}
		})
	}
}
