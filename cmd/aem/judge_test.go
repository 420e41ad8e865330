package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/batch/rundir"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/metrics"
)

const testKey = "sk-test-SECRET-key-0123456789"

// runJudged runs `aem run` on the bundled example with the lexical+judge
// scorer against srv, the key in the environment, and returns the exit
// status the error maps to.
func runJudged(t *testing.T, srv *judgetest.Server, cacheDir, out string, extra ...string) (stdout, stderr string, status int) {
	t.Helper()
	example, err := filepath.Abs("../../datasets/example/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{example, "-o", out, "--scorer", "lexical+judge", "--judge-band", "-1:1",
		"--judge-url", srv.URL(), "--judge-model", "test-model", "--judge-cache-dir", cacheDir, "--quiet"}, extra...)
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Getenv: func(k string) string {
		if k == judge.EnvAPIKey {
			return testKey
		}
		return ""
	}}
	err = runCommand(context.Background(), env, cmdRun(), args)
	status = exitStatus(env, err)
	return o.String(), e.String(), status
}

// assertNoKey fails when the key appears in any file under dir.
func assertNoKey(t *testing.T, dir string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, testKey) {
			t.Errorf("the API key is in the output: %s", s)
		}
	}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte(testKey)) {
			t.Errorf("the API key is in %s", path)
		}
		return nil
	})
}

// A judged run sends the key in the header only, names the judge in the
// scorer ID, and a rerun with the same cache makes no call.
func TestRunWithJudge(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	srv.Answer("revenue", "profit", judge.Answer{Reason: "Revenue is not profit.", Equivalent: false, Score: 0.1})
	cache, dir := t.TempDir(), t.TempDir()
	stdout, stderr, status := runJudged(t, srv, cache, filepath.Join(dir, "first"))
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	if !strings.Contains(stdout, "with lexical+judge:test-model@prompt-1[band -1:1]") {
		t.Errorf("stdout does not name the judge:\n%s", stdout)
	}
	first := srv.Requests()
	if len(first) == 0 {
		t.Fatal("no request reached the judge")
	}
	for _, r := range first {
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			t.Fatalf("Authorization %q", r.Header.Get("Authorization"))
		}
	}
	checkJudgedRun(t, filepath.Join(dir, "first"), len(first))
	stdout2, stderr2, status := runJudged(t, srv, cache, filepath.Join(dir, "second"))
	if status != exitOK {
		t.Fatalf("rerun: status %d\n%s", status, stderr2)
	}
	if n := len(srv.Requests()); n != len(first) {
		t.Errorf("the rerun made %d calls; the cache should have answered all", n-len(first))
	}
	assertNoKey(t, dir, stdout, stderr, stdout2, stderr2)
	assertNoKey(t, cache)
}

// The budget stops the run with exit status 6 and the --resume hint;
// --resume with a larger budget finishes, paying only for what was not
// answered before.
func TestRunJudgeBudgetThenResume(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	cache, out := t.TempDir(), filepath.Join(t.TempDir(), "run")
	// How many distinct comparisons the example needs, from a separate cache.
	if _, stderr, status := runJudged(t, srv, t.TempDir(), filepath.Join(t.TempDir(), "all")); status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	need := len(srv.Requests())
	t.Logf("the example needs %d judge calls", need)
	if need < 3 {
		t.Fatalf("the example needs %d judge calls; the test needs at least 3", need)
	}
	_, stderr, status := runJudged(t, srv, cache, out, "--judge-max-calls", "2")
	if status != exitBudget || !strings.Contains(stderr, "judge budget reached") || !strings.Contains(stderr, "--resume") {
		t.Fatalf("status %d, want %d with the resume hint:\n%s", status, exitBudget, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a stopped run left summary.json: %v", err)
	}
	before := len(srv.Requests())
	if before-need != 2 {
		t.Errorf("%d calls before the stop, want 2", before-need)
	}
	_, stderr, status = runJudged(t, srv, cache, out, "--resume")
	if status != exitOK {
		t.Fatalf("resume: status %d\n%s", status, stderr)
	}
	if paid := len(srv.Requests()) - before; paid != need-2 {
		t.Errorf("the resumed run made %d calls, want %d (the 2 answered before are cached)", paid, need-2)
	}
}

func TestJudgeFlags(t *testing.T) {
	file := judge.Band{Low: 0.2, High: 0.9}
	for _, tc := range []struct {
		kind, band string
		file       *judge.Band
		want       judge.Band
		err        string
	}{
		{kind: scorerEmbedJudge, want: judge.DefaultBand},
		{kind: scorerEmbedJudge, file: &file, want: file},
		{kind: scorerEmbedJudge, band: "0.4:0.7", file: &file, want: judge.Band{Low: 0.4, High: 0.7}},
		{kind: scorerEmbedJudge, band: "0.7", err: "LOW:HIGH"},
		{kind: scorerJudge, file: &file, want: judge.EveryScore},
		{kind: scorerJudge, band: "0.4:0.7", err: "--judge-band applies to --scorer embed+judge"},
	} {
		got, err := judgeOptions{band: tc.band}.bandFor(tc.kind, tc.file)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %q: %v, %v; want error %q", tc.kind, tc.band, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s %q: %v, %v; want %v", tc.kind, tc.band, got, err, tc.want)
		}
	}
	env := &Env{Getenv: func(k string) string { return map[string]string{judge.EnvOpenAIAPIKey: "k"}[k] }}
	o := judgeOptions{url: "http://x/v1", model: "m", retries: 0, format: "auto"}.options(env, "/home", false, true)
	if o.APIKey != "k" || o.MaxRetries != -1 || o.CacheDir != filepath.Join("/home", "judge-cache") || !o.DiscardCorruptCache {
		t.Errorf("options %+v", o)
	}
	if o := (judgeOptions{cacheDir: "/c"}).options(env, "/home", true, false); o.CacheDir != "" {
		t.Errorf("--no-cache kept the judge cache: %q", o.CacheDir)
	}
	if _, err := (scorerOptions{kind: "judge+embed"}).open(context.Background(), env, nil); err == nil || !strings.Contains(err.Error(), "unknown --scorer") {
		t.Errorf("judge+embed: %v", err)
	}
}

// checkJudgedRun checks what a lexical+judge run over the example
// recorded: the judge's decisions, reasons and cosines per field, the
// first scorer's verdict per turn, and the judge block of summary.json.
func checkJudgedRun(t *testing.T, dir string, calls int) {
	t.Helper()
	rd, err := rundir.Open(context.Background(), dir, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var judged, flipped int
	for tr, err := range rundir.ReadTurns[rundir.TurnRow](context.Background(), rd) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.EmbedPass == nil {
			t.Fatalf("turn %s/%d has no embed_pass", tr.DialogID, tr.TurnNo)
		}
		if *tr.EmbedPass != tr.Pass {
			flipped++
		}
		for _, fs := range tr.FieldScores {
			if fs.By == nil || *fs.By != metrics.ByJudge {
				continue
			}
			judged++
			if fs.Cosine == nil || fs.JudgeReason == nil || fs.JudgeError != nil || fs.Threshold != metrics.JudgeThreshold || fs.Pass != (fs.Score >= 0.5) {
				t.Errorf("turn %s/%d field %s: %+v", tr.DialogID, tr.TurnNo, fs.Field, fs)
			}
			if fs.Field == "sales_db.aggregate.metric" && (fs.Pass || *fs.JudgeReason != "Revenue is not profit.") {
				t.Errorf("revenue/profit: %+v reason %q", fs, *fs.JudgeReason)
			}
		}
	}
	j := rd.Summary.Judge
	if judged == 0 || j == nil || j.Decided != judged || j.Escalated != j.Semantic || j.Errors != 0 || j.Usage == nil || j.Usage.Calls != int64(calls) {
		t.Errorf("%d judged fields; summary judge block %+v (usage %+v), %d calls", judged, j, j.Usage, calls)
	}
	t.Logf("%d fields decided by the judge; %d turns whose verdict the judge changed", judged, flipped)
}
