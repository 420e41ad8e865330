package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/home/hometest"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/rundir"
	"github.com/aem-dev/aem/thresholds"
	"github.com/google/go-cmp/cmp"
)

const testKey = "sk-test-SECRET-key-0123456789"

// runJudged runs `aem run` on the bundled example with the lexical+judge
// scorer, every score in the band, against srv, the key in the
// environment, and returns the exit status the error maps to.
func runJudged(t *testing.T, srv *judgetest.Server, cacheDir, out string, extra ...string) (stdout, stderr string, status int) {
	t.Helper()
	return runJudgedBand(t, srv, cacheDir, out, append([]string{"--judge-band", "-1:1"}, extra...)...)
}

// runJudgedBand is runJudged with the band left to the flags in extra.
func runJudgedBand(t *testing.T, srv *judgetest.Server, cacheDir, out string, extra ...string) (stdout, stderr string, status int) {
	t.Helper()
	example, err := filepath.Abs("../../datasets/example/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{example, "-o", out, "--scorer", "lexical+judge",
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
	// Revenue is not profit; the rest is answered by facts, so that some
	// gold clauses are covered and their other alternatives spared.
	srv.SetContent(func(r judgetest.Request) string {
		if g, a, _ := r.Pair(); g == "revenue" && a == "profit" {
			return `{"reason": "Revenue is not profit.", "equivalent": false, "score": 0.1}`
		}
		return judgetest.Facts(r)
	})
	cache, dir := t.TempDir(), t.TempDir()
	stdout, stderr, status := runJudged(t, srv, cache, filepath.Join(dir, "first"))
	if status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	if !strings.Contains(stdout, "with lexical+judge:test-model@prompt-2[band -1:1]") {
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

// The budget stops the run with exit status 6 and the --resume hint. The
// budget is the run's: --resume under the same budget stops again without
// a call; with a larger one it finishes, paying only for what was not
// answered before, and summary.json counts what every invocation paid.
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

	_, stderr, status = runJudged(t, srv, cache, out, "--resume", "--judge-max-calls", "2")
	if status != exitBudget || !strings.Contains(stderr, "2 calls made") {
		t.Fatalf("resume under the same budget: status %d, want %d, naming the 2 calls made:\n%s", status, exitBudget, stderr)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Errorf("resuming under a spent budget made %d calls", n)
	}

	_, stderr, status = runJudged(t, srv, cache, out, "--resume", "--judge-max-calls", fmt.Sprint(need))
	if status != exitOK {
		t.Fatalf("resume: status %d\n%s", status, stderr)
	}
	if paid := len(srv.Requests()) - before; paid != need-2 {
		t.Errorf("the resumed run made %d calls, want %d (the 2 answered before are cached)", paid, need-2)
	}
	sum, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Judge == nil || sum.Judge.Usage == nil {
		t.Fatalf("summary.json has no judge usage: %+v", sum.Judge)
	}
	if u := sum.Judge.Usage; u.Calls != int64(need) || u.Invocations != 3 || u.PromptTokens == 0 {
		t.Errorf("summary.json judge usage %+v, want the %d calls of 3 invocations, with their tokens", *u, need)
	}
}

// The thresholds file's judge_band is the band, unless --judge-band says
// otherwise: exactly the comparisons whose first score lies in it reach
// the judge.
func TestRunJudgeBandFromThresholdsFile(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "thresholds.json")
	if err := thresholds.Write(file, thresholds.File{Version: thresholds.Version, JudgeBand: &thresholds.JudgeBand{Low: 0.7, High: 0.8}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		flags    []string
		low, hig float64
	}{
		{"the file's band", []string{"--thresholds", file}, 0.7, 0.8},
		{"--judge-band over the file's", []string{"--thresholds", file, "--judge-band", "0.1:0.2"}, 0.1, 0.2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			stdout, stderr, status := runJudgedBand(t, srv, t.TempDir(), out, tc.flags...)
			if status != exitOK {
				t.Fatalf("status %d\n%s", status, stderr)
			}
			if want := fmt.Sprintf("[band %g:%g]", tc.low, tc.hig); !strings.Contains(stdout, want) {
				t.Errorf("stdout does not name the band %s:\n%s", want, stdout)
			}
			rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			var in, outside int
			for tr, err := range rundir.ReadTurns[rundir.TurnRow](context.Background(), rd) {
				if err != nil {
					t.Fatal(err)
				}
				for _, fs := range tr.AllScores() {
					switch {
					case fs.By == nil:
					case fs.Cosine != nil:
						in++
						if *fs.Cosine < tc.low || *fs.Cosine > tc.hig || *fs.By != metrics.ByJudge {
							t.Errorf("%s/%d %s: escalated with first score %v outside the band", tr.DialogID, tr.TurnNo, fs.Field, *fs.Cosine)
						}
					default:
						outside++
						if fs.Score >= tc.low && fs.Score <= tc.hig {
							t.Errorf("%s/%d %s: score %v in the band, not escalated", tr.DialogID, tr.TurnNo, fs.Field, fs.Score)
						}
					}
				}
			}
			if in == 0 || outside == 0 {
				t.Errorf("%d comparisons escalated, %d not: the test needs both", in, outside)
			}
		})
	}
}

func TestJudgeFlags(t *testing.T) {
	file := &thresholds.JudgeBand{Low: 0.2, High: 0.9}
	fileProb := &thresholds.JudgeBand{Low: 0.2, High: 0.9, Composite: &thresholds.Band{Low: 0.3, High: 0.6}}
	band := func(lo, hi float64) *judge.Band { return &judge.Band{Low: lo, High: hi} }
	every := judge.EveryScore
	for _, tc := range []struct {
		name, kind, band, prob string
		file                   *thresholds.JudgeBand
		probabilities          bool
		want                   judge.Bands
		err                    string
	}{
		{name: "default", kind: scorerEmbedJudge, want: judge.Bands{Similarity: judge.DefaultBand}},
		{name: "the file's", kind: scorerEmbedJudge, file: file, want: judge.Bands{Similarity: judge.Band{Low: 0.2, High: 0.9}}},
		{name: "the flag over the file's", kind: scorerEmbedJudge, band: "0.4:0.7", file: file, want: judge.Bands{Similarity: judge.Band{Low: 0.4, High: 0.7}}},
		{name: "a bad flag", kind: scorerEmbedJudge, band: "0.7", err: "LOW:HIGH"},
		{name: "composites: default probability band", kind: scorerEmbedJudge, probabilities: true,
			want: judge.Bands{Similarity: judge.DefaultBand, Probability: &judge.DefaultProbabilityBand}},
		{name: "composites: the file's bands", kind: scorerEmbedJudge, file: fileProb, probabilities: true,
			want: judge.Bands{Similarity: judge.Band{Low: 0.2, High: 0.9}, Probability: band(0.3, 0.6)}},
		{name: "composites: the file's similarity band, the default probability band", kind: scorerEmbedJudge, file: file, probabilities: true,
			want: judge.Bands{Similarity: judge.Band{Low: 0.2, High: 0.9}, Probability: &judge.DefaultProbabilityBand}},
		{name: "composites: both flags over the file's", kind: scorerEmbedJudge, band: "0.5:0.6", prob: "0.1:0.9", file: fileProb, probabilities: true,
			want: judge.Bands{Similarity: judge.Band{Low: 0.5, High: 0.6}, Probability: band(0.1, 0.9)}},
		{name: "composites: a probability band out of range", kind: scorerEmbedJudge, prob: "-0.5:0.5", probabilities: true, err: "[0, 1]"},
		{name: "a probability band without composites", kind: scorerEmbedJudge, prob: "0.1:0.9", err: "--judge-band-composite applies when the thresholds file carries fitted composites"},
		{name: "a file's probability band without composites is not used", kind: scorerEmbedJudge, file: fileProb, want: judge.Bands{Similarity: judge.Band{Low: 0.2, High: 0.9}}},
		{name: "judge: every score", kind: scorerJudge, file: file, want: judge.Bands{Similarity: judge.EveryScore}},
		{name: "judge with composites: every score", kind: scorerJudge, file: fileProb, probabilities: true, want: judge.Bands{Similarity: judge.EveryScore, Probability: &every}},
		{name: "judge refuses a band", kind: scorerJudge, band: "0.4:0.7", err: "--judge-band and --judge-band-composite apply to --scorer embed+judge"},
		{name: "judge refuses a probability band", kind: scorerJudge, prob: "0.4:0.7", probabilities: true, err: "apply to --scorer embed+judge"},
	} {
		got, err := judgeOptions{band: tc.band, bandProb: tc.prob}.bandFor(tc.kind, tc.file, tc.probabilities)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, %v; want error %q", tc.name, got, err, tc.err)
			}
			continue
		}
		if d := cmp.Diff(tc.want, got); err != nil || d != "" {
			t.Errorf("%s: %v; -want +got:\n%s", tc.name, err, d)
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
	if _, err := (scorerOptions{kind: "judge+embed"}).open(context.Background(), env, nil, "", false); err == nil || !strings.Contains(err.Error(), "unknown --scorer") {
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
	var judged, flipped, moot int
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
		// A clause missing an anchor or a name is moot: the embedding decides it.
		for _, c := range tr.Clauses {
			if c.By != nil && (len(c.MissingAnchors) > 0 || len(c.MissingNames) > 0) {
				moot++
				if *c.By == metrics.ByJudge || c.JudgeReason != nil {
					t.Errorf("turn %s/%d %s: a moot clause was judged: %+v", tr.DialogID, tr.TurnNo, c.Field, c)
				}
			}
		}
		for _, fs := range tr.AllScores() {
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
	if judged == 0 || j == nil || j.Decided != judged || j.Escalated != j.Semantic-moot || j.Errors != 0 || j.Usage == nil || j.Usage.Calls != int64(calls) {
		t.Errorf("%d judged fields, %d moot; summary judge block %+v (usage %+v), %d calls", judged, moot, j, j.Usage, calls)
	}
	// Every score lies in the band -1:1: each comparison was sent, spared
	// (another alternative of its gold clause was equivalent) or moot.
	if u := j.Usage; u == nil || u.Escalated+u.Spared+u.Moot != u.Compared || u.Spared == 0 {
		t.Errorf("usage %+v: escalated + spared + moot should be every comparison, some spared", u)
	}
	t.Logf("%d fields decided by the judge; %d turns whose verdict the judge changed", judged, flipped)
}

// aem sweep on a judged run: the run's verdicts beside the embedding's
// alone, against the human labels of the same turns, on stdout and in
// summary.json; and the judge band it reports is the one it writes.
func TestSweepJudgedRun(t *testing.T) {
	dir := t.TempDir()
	golden := genGolden(t, dir, 40, 3)
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
	srv := judgetest.NewServer()
	defer srv.Close()
	// The judge calls equal what differs only in case and punctuation.
	srv.SetContent(func(r judgetest.Request) string {
		g, a, _ := r.Pair()
		norm := func(s string) string { return strings.ToLower(strings.Trim(s, ".!? ")) }
		if norm(g) == norm(a) {
			return `{"reason": "The same words.", "equivalent": true, "score": 0.9}`
		}
		return `{"reason": "The words differ.", "equivalent": false, "score": 0.1}`
	})
	run := filepath.Join(dir, "run")
	o.Reset()
	e.Reset()
	if err := runCommand(context.Background(), env, cmdRun(), []string{golden, "-o", run, "--scorer", "lexical+judge", "--judge-band", "0.3:0.7",
		"--judge-url", srv.URL(), "--judge-model", "m", "--judge-cache-dir", t.TempDir(), "--quiet"}); err != nil {
		t.Fatalf("run: %v\n%s", err, e.String())
	}
	stdout, stderr, err := runSweepCmd(t, run, "--bootstrap", "50", "--accept-weak")
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stderr)
	}
	for _, want := range []string{"judged verdicts beside the embedding's alone (embed_pass)", "accuracy gain", "exact McNemar p", "judge band (thresholds.json judge_band"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	var sum struct {
		JudgeAgreement *struct {
			Turns             int
			Judged, Embedding struct{ Accuracy, F1, MCC, Kappa *struct{ Value float64 } }
		} `json:"judge_agreement"`
		JudgeBand *struct{ Similarity struct{ Low, High float64 } } `json:"judge_band"`
	}
	b, err := os.ReadFile(filepath.Join(run, "sweep", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	// Recount from turns.parquet: the same turns, both verdicts.
	rd, err := rundir.Open(context.Background(), run, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var turns, judgedRight, embedRight, changed int
	for tr, err := range rundir.ReadTurns[rundir.TurnRow](context.Background(), rd) {
		if err != nil {
			t.Fatal(err)
		}
		if tr.HumanLabel == nil || tr.Kind == "" || tr.EmbedPass == nil {
			continue
		}
		turns++
		if tr.Pass == *tr.HumanLabel {
			judgedRight++
		}
		if *tr.EmbedPass == *tr.HumanLabel {
			embedRight++
		}
		if tr.Pass != *tr.EmbedPass {
			changed++
		}
	}
	j := sum.JudgeAgreement
	if j == nil || j.Turns != turns || j.Judged.Accuracy == nil || j.Judged.F1 == nil || j.Judged.MCC == nil || j.Judged.Kappa == nil ||
		j.Embedding.Kappa == nil || math.Abs(j.Judged.Accuracy.Value-float64(judgedRight)/float64(turns)) > 1e-12 ||
		math.Abs(j.Embedding.Accuracy.Value-float64(embedRight)/float64(turns)) > 1e-12 {
		t.Fatalf("judge_agreement %s; recounted %d turns, %d and %d right", b, turns, judgedRight, embedRight)
	}
	if changed == 0 {
		t.Error("the judge changed no verdict: the test shows nothing")
	}
	file, err := thresholds.Read(filepath.Join(run, "sweep", "thresholds.json"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.JudgeBand == nil || file.JudgeBand == nil || file.JudgeBand.Low != sum.JudgeBand.Similarity.Low || file.JudgeBand.High != sum.JudgeBand.Similarity.High {
		t.Errorf("thresholds.json judge_band %+v, summary.json %+v", file.JudgeBand, sum.JudgeBand)
	}
	t.Logf("%d turns, the judge changed %d\n%s", turns, changed, stdout)
}

// A run stopped at its budget says about how many calls the rest of the
// input needs: at least what the resumed run pays (the calls of dialogs in
// flight count in the rate), and not far above it.
func TestRunJudgeBudgetEstimate(t *testing.T) {
	dir := t.TempDir()
	golden := genGolden(t, dir, 200, 5)
	srv := judgetest.NewServer()
	defer srv.Close()
	run := func(cache, out string, extra ...string) (string, int) {
		var o, e bytes.Buffer
		env := &Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
		args := append([]string{golden, "-o", out, "--scorer", "lexical+judge", "--judge-band", "0.2:0.7", "--workers", "1",
			"--judge-url", srv.URL(), "--judge-model", "m", "--judge-cache-dir", cache, "--quiet"}, extra...)
		status := exitStatus(env, runCommand(context.Background(), env, cmdRun(), args))
		return e.String(), status
	}
	if stderr, status := run(t.TempDir(), filepath.Join(dir, "all")); status != exitOK {
		t.Fatalf("status %d\n%s", status, stderr)
	}
	need := len(srv.Requests())
	cache, out := t.TempDir(), filepath.Join(dir, "run")
	stderr, status := run(cache, out, "--judge-max-calls", fmt.Sprint(need/2))
	if status != exitBudget {
		t.Fatalf("status %d, want %d\n%s", status, exitBudget, stderr)
	}
	var from, to, total, left, more int
	i := strings.Index(stderr, "for input rows ")
	if i < 0 {
		t.Fatalf("no estimate:\n%s", stderr)
	}
	if _, err := fmt.Sscanf(stderr[i:], "for input rows %d to %d of %d; at that rate the remaining %d rows need about %d more calls", &from, &to, &total, &left, &more); err != nil {
		t.Fatalf("%v in %q", err, stderr[i:])
	}
	paid := len(srv.Requests()) - need
	before := len(srv.Requests())
	if _, status := run(cache, out, "--resume"); status != exitOK {
		t.Fatal("resume failed")
	}
	rest := len(srv.Requests()) - before
	t.Logf("%d calls in all; stopped after %d at rows %d-%d of %d; estimated %d more, the resume paid %d", need, paid, from, to, total, more, rest)
	if from != 1 || to <= 0 || to >= total || left != total-to || more < rest || more > 3*rest {
		t.Errorf("estimate %d more calls for rows %d-%d of %d (%d left); the resume paid %d", more, from, to, total, left, rest)
	}
}

// aem compare refuses a judged run against an embedding run of the same
// data (their scorer ids differ), naming both, unless --allow-mismatch.
func TestCompareRefusesJudgedAgainstEmbedding(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	judged := filepath.Join(dir, "judged")
	if _, stderr, status := runJudged(t, srv, t.TempDir(), judged); status != exitOK {
		t.Fatalf("judged run: status %d\n%s", status, stderr)
	}
	example, err := filepath.Abs("../../datasets/example/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain")
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
	if err := runCommand(context.Background(), env, cmdRun(), []string{example, "-o", plain, "--scorer", "lexical", "--quiet"}); err != nil {
		t.Fatalf("plain run: %v\n%s", err, e.String())
	}
	_, _, err = runCompareArgs(t, plain, judged, "-o", filepath.Join(dir, "cmp"))
	if !errors.Is(err, compare.ErrMismatch) || !strings.Contains(err.Error(), "lexical+judge:test-model@prompt-2") || !strings.Contains(err.Error(), "--allow-mismatch") {
		t.Fatalf("compare: %v; want the scorer mismatch named, with the --allow-mismatch hint", err)
	}
	if stdout, _, err := runCompareArgs(t, plain, judged, "-o", filepath.Join(dir, "cmp"), "--allow-mismatch"); err != nil || !strings.Contains(stdout, "--allow-mismatch") {
		t.Errorf("--allow-mismatch: %v\n%s", err, stdout)
	}
}

// The key never reaches stderr (progress lines and error messages) or the
// run directory, even when the endpoint quotes it in an answer (a judge
// error recorded in turns.parquet) or in a 401's message.
func TestJudgeKeyNotInLogsOrErrors(t *testing.T) {
	srv := judgetest.NewServer()
	defer srv.Close()
	srv.SetContent(func(r judgetest.Request) string { return "I cannot grade this; your key is " + testKey })
	example, err := filepath.Abs("../../datasets/example/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir, cache := t.TempDir(), t.TempDir()
	run := func(out string) (string, int) {
		var o, e bytes.Buffer
		env := &Env{Stdout: &o, Stderr: &e, Now: time.Now, Getenv: func(k string) string {
			return map[string]string{judge.EnvOpenAIAPIKey: testKey}[k]
		}}
		err := runCommand(context.Background(), env, cmdRun(), []string{example, "-o", out, "--scorer", "lexical+judge", "--judge-band", "-1:1",
			"--judge-url", srv.URL(), "--judge-model", "m", "--judge-cache-dir", cache})
		status := exitStatus(env, err)
		return o.String() + e.String(), status
	}
	logs, status := run(filepath.Join(dir, "errors"))
	if status != exitOK || !strings.Contains(logs, "; judge ") || !strings.Contains(logs, "errors") {
		t.Fatalf("status %d; want a finished run whose progress line counts judge errors:\n%s", status, logs)
	}
	// turns.parquet is zstd-compressed: search its decoded rows, not its bytes.
	rd, err := rundir.Open(context.Background(), filepath.Join(dir, "errors"), rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows strings.Builder
	recorded := 0
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tr)
		rows.Write(b)
		for _, fs := range tr.AllScores() {
			if fs.JudgeError != nil && strings.Contains(*fs.JudgeError, "malformed judge answer") {
				recorded++
			}
		}
	}
	rd.Close()
	if recorded == 0 || rd.Summary.Judge == nil || rd.Summary.Judge.Errors != recorded {
		t.Errorf("%d judge errors in the rows, summary %+v", recorded, rd.Summary.Judge)
	}
	srv.SetContent(nil)
	srv.Fail(judgetest.Fault{Status: 401, Body: judgetest.ErrorBody("Incorrect API key provided: "+testKey, "invalid_request_error", "invalid_api_key", "")})
	logs401, status := run(filepath.Join(dir, "refused"))
	if status == exitOK || !strings.Contains(logs401, "HTTP 401") {
		t.Fatalf("status %d; want the 401 reported:\n%s", status, logs401)
	}
	assertNoKey(t, dir, logs, logs401, rows.String())
	assertNoKey(t, cache)
}

// genGolden writes `aem gen` dialogs to dir/golden.parquet and returns its path.
func genGolden(t *testing.T, dir string, dialogs, seed int) string {
	t.Helper()
	golden := filepath.Join(dir, "golden.parquet")
	var o, e bytes.Buffer
	env := &Env{Stdout: &o, Stderr: &e, Getenv: func(string) string { return "" }}
	if err := runCommand(context.Background(), env, cmdGen(), []string{"--dialogs", fmt.Sprint(dialogs), "--seed", fmt.Sprint(seed), "-o", golden}); err != nil {
		t.Fatalf("gen: %v\n%s", err, e.String())
	}
	return golden
}

// A band that ends below the clause threshold is warned about: an
// alternative above the band settles a gold clause as the embedding
// decides it, which then fails it without asking the judge.
func TestClauseBandWarning(t *testing.T) {
	for _, tc := range []struct {
		name string
		th   metrics.Thresholds
		band judge.Band
		want string
	}{
		{"default band, default threshold", metrics.Thresholds{Threshold: 0.5}, judge.DefaultBand, ""},
		{"the threshold at the band's top", metrics.Thresholds{Threshold: 0.8}, judge.DefaultBand, ""},
		{"every score", metrics.Thresholds{Threshold: 0.9}, judge.EveryScore, ""},
		{"a clause threshold above the band", metrics.Thresholds{Threshold: 0.5, SubMetrics: map[string]float64{metrics.SubCompleteClause: 0.85}},
			judge.DefaultBand, "the judge band 0.35:0.8 ends below the clause threshold 0.85 (sub_metrics.completeness.clause)"},
		{"the global threshold above the band", metrics.Thresholds{Threshold: 0.7}, judge.Band{Low: 0.2, High: 0.6},
			"the judge band 0.2:0.6 ends below the clause threshold 0.7 (threshold)"},
	} {
		got := clauseBandWarning(tc.th, judge.Bands{Similarity: tc.band})
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// --scorer judge and embed+judge with the installed default model: the
// scorer id names the model, the judge and the band; the judge alone is
// asked about every comparison a verdict turns on, the escalation only
// about those whose cosine lies in the default band.
func TestRunWithTheModelAndAJudge(t *testing.T) {
	root, err := filepath.Abs("../../.aem")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "models", "use-lite-int8", "model.onnx")); err != nil {
		hometest.Missing(t, "the default model is not installed (run scripts/setup): %v", err)
	}
	srv := judgetest.NewServer()
	defer srv.Close()
	example, err := filepath.Abs("../../datasets/example/golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	escalated := map[string]int{}
	for _, tc := range []struct {
		scorer, band string
		low, high    float64
	}{
		{"judge", "[band all]", math.Inf(-1), math.Inf(1)},
		{"embed+judge", "[band 0.35:0.8]", 0.35, 0.8},
	} {
		t.Run(tc.scorer, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "run")
			var o, e bytes.Buffer
			env := &Env{Stdout: &o, Stderr: &e, Getenv: func(k string) string {
				switch k {
				case judge.EnvAPIKey:
					return testKey
				case "AEM_HOME":
					return root
				}
				return ""
			}}
			// --thresholds none: the band is on the cosine (the shipped
			// calibration's composites would put value kinds on a
			// probability band of their own).
			err := runCommand(context.Background(), env, cmdRun(), []string{example, "-o", out, "--scorer", tc.scorer,
				"--judge-url", srv.URL(), "--judge-model", "test-model", "--no-cache", "--quiet", "--thresholds", "none"})
			if err != nil {
				t.Fatalf("%v\n%s", err, e.String())
			}
			if want := "with embed:use-lite-int8@sha256:ac6c02e7"; !strings.Contains(o.String(), want) ||
				!strings.Contains(o.String(), "+judge:test-model@prompt-2"+tc.band) {
				t.Errorf("stdout does not name the model, the judge and the band %s:\n%s", tc.band, o.String())
			}
			sum, err := rundir.ReadSummary(out)
			if err != nil {
				t.Fatal(err)
			}
			u := sum.Judge.Usage
			if sum.Judge.Escalated == 0 || u == nil || u.Calls != u.Escalated || u.Escalated+u.Spared+u.Moot > u.Compared {
				t.Fatalf("judge block %+v, usage %+v", sum.Judge, u)
			}
			escalated[tc.scorer] = sum.Judge.Escalated
			rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer rd.Close()
			for tr, err := range rundir.ReadTurns[rundir.TurnRow](context.Background(), rd) {
				if err != nil {
					t.Fatal(err)
				}
				for _, fs := range tr.AllScores() {
					if fs.JudgeReason == nil {
						continue
					}
					if fs.Cosine == nil || *fs.Cosine < tc.low || *fs.Cosine > tc.high || *fs.By != metrics.ByJudge {
						t.Errorf("%s/%d %s: judged with cosine %v outside %s, or not decided by the judge: %+v", tr.DialogID, tr.TurnNo, fs.Field, ptrText(fs.Cosine), tc.band, fs)
					}
				}
			}
			assertNoKey(t, out, o.String(), e.String())
		})
	}
	if escalated["judge"] <= escalated["embed+judge"] {
		t.Errorf("the judge alone was asked about %d fields, the escalation about %d: the band spared nothing", escalated["judge"], escalated["embed+judge"])
	}
}

func ptrText(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}
