package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/gcstest"
	"github.com/aem-dev/aem/internal/s3test"
)

// TestGCSCommandLine runs aem as a user would against a GCS emulator
// behind a proxy that fails some requests: shards from a gs:// golden
// dataset into the bucket, a merge there, show of the merged run. The
// retries are on stderr; the merged files are a local run's. Without the
// emulator, gs:// takes Google's credentials: none is an error that says
// how to provide them, with nothing on stdout, and a key file's private key
// never appears in any output, log or object.
func TestGCSCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs aem eight times")
	}
	srv := gcstest.Start(t)
	proxy := s3test.NewProxy(t, srv.Endpoint)
	srv.Bucket(t, "evals")
	dir := t.TempDir()
	env := append(srv.Env(proxy.URL), "AEM_SCORER=lexical", "AEM_WORK_DIR="+filepath.Join(dir, "work"))
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	var outputs []string // everything aem printed
	run := func(env []string, want int, args ...string) (stdout, stderr string) {
		t.Helper()
		cmd, errBuf := aemCmd(t, dir, env, args...)
		var outBuf bytes.Buffer
		cmd.Stdout = &outBuf
		code := exitCode(t, cmd.Run())
		outputs = append(outputs, outBuf.String(), errBuf.String())
		if code != want {
			t.Fatalf("aem %s: exit %d, want %d\n%s", strings.Join(args, " "), code, want, errBuf)
		}
		return outBuf.String(), errBuf.String()
	}
	run(env, 0, "gen", "--dialogs", "80", "--seed", "5", "-o", "golden.parquet")
	golden, err := os.ReadFile(filepath.Join(dir, "golden.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Put(t, "evals", "golden/nightly.parquet", golden)
	run(env, 0, "run", "golden.parquet", "-o", "local", "--quiet")

	proxy.Add(s3test.Fault{Method: "POST", Query: "shards%2F0%2Fturns.parquet", Reset: true, After: 10_000, Times: 1})
	proxy.Add(s3test.Fault{Method: "POST", Query: "shards%2F0%2Fsummary.json", Status: 503, Times: 1})
	proxy.Add(s3test.Fault{Method: "GET", Path: "/golden/nightly.parquet", Reset: true, After: 10_000, Times: 1})
	_, stderr := run(env, 0, "run", "gs://evals/golden/nightly.parquet", "-o", "gs://evals/runs/x/shards/0", "--shard", "0/2", "--quiet")
	for _, want := range []string{
		"aem: object store: WriteObject gs://evals/runs/x/shards/0/turns.parquet failed, retrying",
		"aem: object store: WriteObject gs://evals failed, retrying (at most 5 attempts): googleapi: got HTTP response code 503",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if n := len(proxy.Injected()); n != 3 {
		t.Errorf("%d faults injected, want 3: %v", n, proxy.Injected())
	}
	run(env, 0, "run", "gs://evals/golden/nightly.parquet", "-o", "gs://evals/runs/x/shards/1", "--shard", "1/2", "--quiet")
	run(env, 0, "merge", "-o", "gs://evals/runs/x/merged", "gs://evals/runs/x/shards/0", "gs://evals/runs/x/shards/1")
	if stdout, _ := run(env, 0, "show", "gs://evals/runs/x/merged"); !strings.Contains(stdout, "dialogs") {
		t.Errorf("show of the merged run printed:\n%s", stdout)
	}
	for _, f := range []string{"turns.parquet", "dialogs.parquet"} {
		want, _ := os.ReadFile(filepath.Join(dir, "local", f))
		if got, ok := srv.Get(t, "evals", "runs/x/merged/"+f); !ok || !bytes.Equal(got, want) {
			t.Errorf("merged %s in the bucket (%d bytes) differs from the local run's (%d bytes)", f, len(got), len(want))
		}
	}

	// Google itself, not the emulator: credentials that fail before any
	// request is sent, so nothing leaves the machine.
	google := append(env, gcstest.EmulatorEnv+"=")
	missing := filepath.Join(dir, "no-such-key.json")
	stdout, stderr := run(append(google, "GOOGLE_APPLICATION_CREDENTIALS="+missing), 1, "show", "gs://evals/runs/x/merged")
	for _, want := range []string{"gs://evals", "no Google credentials", "GOOGLE_APPLICATION_CREDENTIALS", missing} {
		if !strings.Contains(stderr, want) {
			t.Errorf("without credentials, stderr lacks %q:\n%s", want, stderr)
		}
	}
	if stdout != "" {
		t.Errorf("without credentials, stdout is not empty:\n%s", stdout)
	}
	_, stderr = run(append(google, "GOOGLE_APPLICATION_CREDENTIALS="+srv.KeyFile), 1, "run", "gs://evals/golden/nightly.parquet", "-o", "out2", "--quiet")
	if !strings.Contains(stderr, "gs://evals/golden/nightly.parquet") {
		t.Errorf("with an unusable key, the error does not name the object:\n%s", stderr)
	}

	// No key, and no upload session's id, anywhere: what aem printed, the
	// objects, the work directory.
	noSecret(t, outputs, srv, "gs", dir, regexp.MustCompile(regexp.QuoteMeta(srv.Secret)+`|upload_id=[0-9a-f]`))
}
