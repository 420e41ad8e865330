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
