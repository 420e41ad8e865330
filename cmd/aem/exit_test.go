package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
)

// aemCmd runs the test binary as `aem` (TestMain put it on PATH under that
// name) in dir with extra environment variables.
func aemCmd(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command("aem", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

func exitCode(t *testing.T, err error) int {
	t.Helper()
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("running aem: %v", err)
	}
	return ee.ExitCode()
}

// TestInterruptDuringUpload interrupts `aem run` (SIGINT, as Ctrl-C) while
// it uploads its output to an object store: it must exit 130 with the
// --resume hint, leave nothing that looks like a complete run in the
// store, and a rerun with --resume must finish from the checkpoint and
// upload the same bytes a local run writes.
func TestInterruptDuringUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("runs aem three times")
	}
	dir := t.TempDir()
	blobs := filepath.Join(dir, "blobs")
	mark := filepath.Join(dir, "uploading")
	env := []string{"AEM_TEST_BLOB_ROOT=" + blobs, "AEM_SCORER=lexical"}
	run := func(extraEnv []string, args ...string) (int, string) {
		cmd, stderr := aemCmd(t, dir, append(env, extraEnv...), args...)
		return exitCode(t, cmd.Run()), stderr.String()
	}
	if code, stderr := run(nil, "gen", "--dialogs", "40", "--seed", "2", "-o", "golden.parquet"); code != 0 {
		t.Fatalf("aem gen: exit %d\n%s", code, stderr)
	}
	if code, stderr := run(nil, "run", "golden.parquet", "-o", "local", "--quiet"); code != 0 {
		t.Fatalf("local run: exit %d\n%s", code, stderr)
	}

	remote := []string{"run", "golden.parquet", "-o", slowScheme + "://bucket/runs/nightly", "--work-dir", filepath.Join(dir, "work"), "--quiet"}
	cmd, stderr := aemCmd(t, dir, append(env, "AEM_TEST_BLOCK_UPLOAD="+mark), remote...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the upload never started\n%s", stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := exitCode(t, cmd.Wait()); code != exitInterrupted {
		t.Fatalf("interrupted upload: exit %d, want %d\n%s", code, exitInterrupted, stderr)
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "--resume") {
		t.Errorf("stderr does not give the --resume hint:\n%s", stderr)
	}
	stored := filepath.Join(blobs, "bucket", "runs", "nightly")
	if _, err := os.Stat(filepath.Join(stored, "summary.json")); err == nil {
		t.Fatal("the store holds a summary.json after an interrupted upload")
	}

	if code, stderr := run(nil, append(remote, "--resume")...); code != 0 {
		t.Fatalf("resumed run: exit %d\n%s", code, stderr)
	}
	for _, f := range []string{"turns.parquet", "dialogs.parquet"} {
		want, err := os.ReadFile(filepath.Join(dir, "local", f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(stored, f))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s in the store (%d bytes, %v) differs from the local run's (%d bytes)", f, len(got), err, len(want))
		}
	}
	if _, err := os.Stat(filepath.Join(stored, "summary.json")); err != nil {
		t.Errorf("no summary.json in the store after the resumed run: %v", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "work")); len(entries) != 0 {
		t.Errorf("the staging directory was not cleaned up: %v", entries)
	}
}

// judgedRun is `aem run` of golden.parquet in dir with every comparison
// sent to srv's judge (lexical+judge, band -1:1), its own judge cache, and
// the key in the environment.
func judgedRun(t *testing.T, srv *judgetest.Server, dir, out string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	args := append([]string{"run", "golden.parquet", "-o", out, "--scorer", "lexical+judge", "--judge-band", "-1:1",
		"--judge-url", srv.URL(), "--judge-model", "test-model", "--judge-cache-dir", filepath.Join(dir, out+"-cache"), "--quiet"}, extra...)
	return aemCmd(t, dir, []string{judge.EnvAPIKey + "=" + testKey}, args...)
}

// sameOutputs fails unless the run directories hold the same
// turns.parquet and dialogs.parquet bytes, and got has its summary.json.
func sameOutputs(t *testing.T, want, got string) {
	t.Helper()
	for _, f := range []string{"turns.parquet", "dialogs.parquet"} {
		a, err := os.ReadFile(filepath.Join(want, f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(got, f))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s of %s (%d bytes, %v) differs from the uninterrupted run's (%d bytes)", f, got, len(b), err, len(a))
		}
	}
	if _, err := os.Stat(filepath.Join(got, "summary.json")); err != nil {
		t.Errorf("no summary.json: %v", err)
	}
}

// TestStopDuringScoringThenResume: a run stopped while it scores, by
// SIGINT (Ctrl-C), by SIGTERM (what a scheduler sends) or by the judge
// budget, exits with the documented status (130, 130, 6) and the --resume
// hint, leaves no summary.json, and --resume then writes the bytes of an
// uninterrupted run. The judge server holds its requests, so each signal
// arrives while scoring waits on the judge, on every run.
func TestStopDuringScoringThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs aem nine times")
	}
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	gen, stderr := aemCmd(t, dir, nil, "gen", "--dialogs", "12", "--seed", "3", "-o", "golden.parquet")
	if code := exitCode(t, gen.Run()); code != 0 {
		t.Fatalf("aem gen: exit %d\n%s", code, stderr)
	}
	whole, stderr := judgedRun(t, srv, dir, "whole")
	if code := exitCode(t, whole.Run()); code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, stderr)
	}
	if len(srv.Requests()) < 3 {
		t.Fatalf("the run made %d judge calls; the test needs some", len(srv.Requests()))
	}

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := "stopped-" + strings.ReplaceAll(sig.String(), " ", "-")
			release := srv.Hold()
			defer release()
			before := len(srv.Requests())
			cmd, stderr := judgedRun(t, srv, dir, out)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(2 * time.Minute)
			for len(srv.Requests()) == before {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no judge request arrived\n%s", stderr)
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := exitCode(t, cmd.Wait()); code != exitInterrupted {
				t.Fatalf("exit %d, want %d\n%s", code, exitInterrupted, stderr)
			}
			if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "--resume") {
				t.Errorf("stderr does not give the --resume hint:\n%s", stderr)
			}
			if _, err := os.Stat(filepath.Join(dir, out, "summary.json")); err == nil {
				t.Fatal("an interrupted run wrote summary.json")
			}
			release()
			resumed, stderr := judgedRun(t, srv, dir, out, "--resume")
			if code := exitCode(t, resumed.Run()); code != 0 {
				t.Fatalf("resumed run: exit %d\n%s", code, stderr)
			}
			sameOutputs(t, filepath.Join(dir, "whole"), filepath.Join(dir, out))
		})
	}

	t.Run("judge budget", func(t *testing.T) {
		cmd, stderr := judgedRun(t, srv, dir, "budget", "--judge-max-calls", "2")
		if code := exitCode(t, cmd.Run()); code != exitBudget {
			t.Fatalf("exit %d, want %d\n%s", code, exitBudget, stderr)
		}
		if !strings.Contains(stderr.String(), "judge budget reached") || !strings.Contains(stderr.String(), "--resume") {
			t.Errorf("stderr does not give the budget and the --resume hint:\n%s", stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "budget", "summary.json")); err == nil {
			t.Fatal("a run stopped at its budget wrote summary.json")
		}
		resumed, stderr := judgedRun(t, srv, dir, "budget", "--resume")
		if code := exitCode(t, resumed.Run()); code != 0 {
			t.Fatalf("resumed run: exit %d\n%s", code, stderr)
		}
		sameOutputs(t, filepath.Join(dir, "whole"), filepath.Join(dir, "budget"))
	})
}
