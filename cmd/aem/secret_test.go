package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/rundir"
)

// keyPart returns the first part of testKey of 8 bytes or more found in
// s, "" when none is.
func keyPart(s string) string {
	for i := 0; i+8 <= len(testKey); i++ {
		if p := testKey[i : i+8]; strings.Contains(s, p) {
			return p
		}
	}
	return ""
}

// TestJudgeKeyPartsStayOut runs aem (the binary) against a judge that
// quotes parts of the API key: a reason with a piece of the key's middle,
// then a 400 whose message quotes its first 13 characters (issue 28: they
// reached stderr, turns.parquet and the judge cache). No part of 8 bytes
// or more may reach any of them.
func TestJudgeKeyPartsStayOut(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	aemGen(t, dir, 4)
	middle := testKey[5:19]
	srv.SetContent(func(judgetest.Request) string {
		b, _ := json.Marshal(map[string]any{"equivalent": false, "score": 0.1, "reason": "The key " + middle + " does not match."})
		return string(b)
	})
	cmd, stderr := judgedRun(t, srv, dir, "echo")
	if code := exitCode(t, cmd.Run()); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if p := keyPart(stderr.String()); p != "" {
		t.Errorf("stderr holds %q of the key:\n%s", p, stderr)
	}
	rd, err := rundir.Open(context.Background(), filepath.Join(dir, "echo"), rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reasons := 0
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr)
		if p := keyPart(string(b)); p != "" {
			t.Fatalf("turns.parquet holds %q of the key: %s", p, b)
		}
		reasons += strings.Count(string(b), "The key [redacted] does not match.")
	}
	rd.Close()
	if reasons == 0 {
		t.Error("no judge reason in turns.parquet: the test shows nothing")
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".parquet") {
			return err
		}
		b, err := os.ReadFile(path)
		if p := keyPart(string(b)); err == nil && p != "" {
			t.Errorf("%s holds %q of the key", path, p)
		}
		return err
	})

	srv.SetContent(nil)
	srv.Fail(judgetest.Fault{Status: 400, Body: judgetest.ErrorBody("Invalid request for key "+testKey[:13]+"...: bad model", "invalid_request_error", "", "")})
	cmd, stderr = judgedRun(t, srv, dir, "refused")
	if code := exitCode(t, cmd.Run()); code != 1 || !strings.Contains(stderr.String(), "HTTP 400") {
		t.Fatalf("exit %d, want 1 with the 400 reported:\n%s", code, stderr)
	}
	if p := keyPart(stderr.String()); p != "" {
		t.Errorf("stderr holds %q of the key:\n%s", p, stderr)
	}
}
