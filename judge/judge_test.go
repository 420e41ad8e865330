package judge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden requests in testdata/")

// The exact request: path, headers and body, for each kind, against the
// golden files in testdata/ (refresh with -update after a deliberate
// change, and bump PromptVersion if a prompt changed).
func TestExactRequests(t *testing.T) {
	f := newServer(t)
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.APIKey = "sk-test-key" })
	cs := []judge.Comparison{
		{Kind: judge.KindValue, Field: "weather.get.city", Context: "weather.get: current weather; city: the city's name", Gold: "New York City", Predicted: "NYC"},
		{Kind: judge.KindReply, Field: "response", Gold: "Revenue was $4.2M in Q3.", Predicted: "Q3 revenue: \"4.2 million\"\nAnything else?"},
		{Kind: judge.KindClause, Field: "response.clause[0]", Gold: "Revenue was $4.2M in Q3.", Predicted: "Profit was <$1M> & falling."},
	}
	f.Answer("New York City", "NYC", judge.Answer{Equivalent: true, Score: 0.95, Reason: "NYC is New York City."})
	vs, err := j.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if want := (judge.Result{Answer: judge.Answer{Equivalent: true, Score: 0.95, Reason: "NYC is New York City."}}); !cmp.Equal(vs[0], want) {
		t.Errorf("verdict 0: %+v, want %+v", vs[0], want)
	}
	if vs[1].Equivalent || vs[1].Score != 0.1 || vs[1].Err != nil {
		t.Errorf("verdict 1: %+v", vs[1])
	}
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	byKind := map[judge.Kind]judgetest.Request{}
	for _, r := range reqs {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("path %q", r.Path)
		}
		for h, want := range map[string]string{"Authorization": "Bearer sk-test-key", "Content-Type": "application/json", "Accept": "application/json"} {
			if got := r.Header.Get(h); got != want {
				t.Errorf("header %s = %q, want %q", h, got, want)
			}
		}
		for _, c := range cs {
			if strings.Contains(r.Body.Messages[0].Content, judge.TaskOf(c.Kind)) {
				byKind[c.Kind] = r
			}
		}
	}
	for _, k := range judge.Kinds {
		r, ok := byKind[k]
		if !ok {
			t.Fatalf("no request for kind %s", k)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, r.Raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		pretty.WriteByte('\n')
		golden(t, filepath.Join("testdata", "request_"+string(k)+".json"), pretty.Bytes())
	}
	st := j.Stats()
	if st.Calls != 3 || st.Judged != 3 || st.PromptTokens == 0 || st.CompletionTokens == 0 || st.ResponseFormat != judge.FormatJSONSchema {
		t.Errorf("stats %+v", st)
	}
}

// golden compares got with the file at path, or rewrites it under -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

// A local server needs no key: no Authorization header is sent.
func TestNoKeyNoAuthorization(t *testing.T) {
	f := newServer(t)
	j, _ := newTestJudge(t, f)
	if _, err := j.Compare(context.Background(), []judge.Comparison{value("a", "b")}); err != nil {
		t.Fatal(err)
	}
	if h, ok := f.Requests()[0].Header["Authorization"]; ok {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

// Retries: what is retried, how long the client waits (fake clock), and
// what fails at once.
func TestRetries(t *testing.T) {
	longDate := time.Date(2025, 1, 1, 0, 0, 7, 0, time.UTC).Format(http.TimeFormat)
	cases := []struct {
		name      string
		faults    []judgetest.Fault
		opts      func(*judge.Options)
		wantSleep []time.Duration // the fake clock's sleeps, in order
		wantCalls int64
		wantErr   string // substring; "" for success
	}{
		{name: "429 with Retry-After seconds", faults: []judgetest.Fault{{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: judgetest.ErrorBody("Rate limit reached", "requests", "rate_limit_exceeded", "")}},
			wantSleep: []time.Duration{2 * time.Second}, wantCalls: 2},
		{name: "429 with retry-after-ms", faults: []judgetest.Fault{{Status: 429, Header: map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}}},
			wantSleep: []time.Duration{1500 * time.Millisecond}, wantCalls: 2},
		{name: "503 with an HTTP date", faults: []judgetest.Fault{{Status: 503, Header: map[string]string{"Retry-After": longDate}}},
			wantSleep: []time.Duration{7 * time.Second}, wantCalls: 2},
		{name: "500 then 502 then 500: exponential backoff, jitter 0.5", faults: []judgetest.Fault{{Status: 500}, {Status: 502, Body: "<html>bad gateway</html>"}, {Status: 500}},
			wantSleep: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}, wantCalls: 4},
		{name: "backoff is capped", faults: []judgetest.Fault{{Status: 500}, {Status: 500}, {Status: 500}},
			opts:      func(o *judge.Options) { o.BackoffBase, o.BackoffMax = time.Second, 2*time.Second },
			wantSleep: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 1500 * time.Millisecond}, wantCalls: 4},
		{name: "slow answer past the timeout", faults: []judgetest.Fault{{Hang: true}},
			opts:      func(o *judge.Options) { o.Timeout = 50 * time.Millisecond },
			wantSleep: []time.Duration{750 * time.Millisecond}, wantCalls: 2},
		{name: "200 that is not a completion", faults: []judgetest.Fault{{Status: 200, Body: "<html>proxy login</html>"}},
			wantSleep: []time.Duration{750 * time.Millisecond}, wantCalls: 2},
		{name: "gives up after MaxRetries", faults: []judgetest.Fault{{Status: 500}, {Status: 500}, {Status: 500}},
			opts:      func(o *judge.Options) { o.MaxRetries = 2 },
			wantSleep: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, wantCalls: 3,
			wantErr: "gave up after 3 attempts; the last: HTTP 500"},
		{name: "no retries", faults: []judgetest.Fault{{Status: 500, Body: judgetest.ErrorBody("The server had an error", "server_error", "", "")}},
			opts: func(o *judge.Options) { o.MaxRetries = -1 }, wantCalls: 1, wantErr: "gave up after 1 attempts; the last: HTTP 500: The server had an error"},
		{name: "401 fails at once", faults: []judgetest.Fault{{Status: 401, Body: judgetest.ErrorBody("Incorrect API key provided", "invalid_request_error", "invalid_api_key", "")}},
			wantCalls: 1, wantErr: "HTTP 401: the endpoint refused the API key; set $AEM_JUDGE_API_KEY"},
		{name: "404 unknown model fails at once", faults: []judgetest.Fault{{Status: 404, Body: judgetest.ErrorBody("The model `nope` does not exist", "invalid_request_error", "model_not_found", "")}},
			wantCalls: 1, wantErr: "HTTP 404: no such model or URL (--judge-model \"test-model\"): The model `nope` does not exist"},
		{name: "429 out of quota fails at once", faults: []judgetest.Fault{{Status: 429, Body: judgetest.ErrorBody("You exceeded your current quota", "insufficient_quota", "insufficient_quota", "")}},
			wantCalls: 1, wantErr: "out of quota"},
		{name: "Retry-After past the limit fails", faults: []judgetest.Fault{{Status: 429, Header: map[string]string{"Retry-After": "3600"}}},
			wantCalls: 1, wantErr: "asks to wait 1h0m0s (Retry-After), longer than 10m0s"},
		{name: "400 fails at once", faults: []judgetest.Fault{{Status: 400, Body: judgetest.ErrorBody("Invalid value for temperature", "invalid_request_error", "", "temperature")}},
			wantCalls: 1, wantErr: "HTTP 400: Invalid value for temperature"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t)
			f.Fail(tc.faults...)
			opts := []func(*judge.Options){}
			if tc.opts != nil {
				opts = append(opts, tc.opts)
			}
			j, clock := newTestJudge(t, f, opts...)
			vs, err := j.Compare(context.Background(), []judge.Comparison{value("Paris", "London")})
			if tc.wantErr == "" {
				if err != nil || len(vs) != 1 || vs[0].Err != nil || vs[0].Reason == "" {
					t.Fatalf("got %+v, %v; want an answer", vs, err)
				}
			} else if !errors.Is(err, judge.ErrEndpoint) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v; want ErrEndpoint containing %q", err, tc.wantErr)
			}
			if got := clock.Slept(); !cmp.Equal(got, tc.wantSleep, cmp.Comparer(func(a, b time.Duration) bool { return a == b })) {
				t.Errorf("slept %v, want %v", got, tc.wantSleep)
			}
			if st := j.Stats(); st.Calls != tc.wantCalls || st.Retries != int64(len(tc.wantSleep)) {
				t.Errorf("calls %d retries %d, want %d and %d", st.Calls, st.Retries, tc.wantCalls, len(tc.wantSleep))
			}
		})
	}
}

// A connection that cannot be made is retried, then reported without the
// URL's query.
func TestConnectionRefused(t *testing.T) {
	f := newServer(t)
	f.Close()
	j, clock := newTestJudge(t, f, func(o *judge.Options) { o.MaxRetries = 1; o.URL = f.URL() + "?api-version=2024&api-key=sk-in-url" })
	_, err := j.Compare(context.Background(), []judge.Comparison{value("a", "b")})
	if !errors.Is(err, judge.ErrEndpoint) || !strings.Contains(err.Error(), "gave up after 2 attempts") || strings.Contains(err.Error(), "sk-in-url") {
		t.Fatalf("got %v", err)
	}
	if len(clock.Slept()) != 1 {
		t.Errorf("slept %v, want one backoff", clock.Slept())
	}
}

// On 429 with Retry-After every request waits, not only the one that met it.
func TestRetryAfterPausesEveryone(t *testing.T) {
	f := newServer(t)
	f.Fail(judgetest.Fault{Status: 429, Header: map[string]string{"Retry-After": "5"}})
	j, clock := newTestJudge(t, f, func(o *judge.Options) { o.Concurrency = 1 })
	start := clock.Now()
	if _, err := j.Compare(context.Background(), []judge.Comparison{value("a", "b"), value("c", "d"), value("e", "f")}); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, r := range reqs[1:] {
		if r.At.Sub(start) < 5*time.Second {
			t.Errorf("request %d went out %v after the 429, before its Retry-After of 5s", i+2, r.At.Sub(start))
		}
	}
}

// A malformed answer is asked again once, with what was wrong; the second
// request carries the bad answer and the repair prompt.
func TestMalformedAnswerRepaired(t *testing.T) {
	f := newServer(t)
	n := 0
	f.SetContent(func(req judgetest.Request) string {
		n++
		if n == 1 {
			return `{"equivalent": "yes", "score": 0.9, "reason": "Same city."}`
		}
		return `{"equivalent": true, "score": 0.9, "reason": "Same city."}`
	})
	j, _ := newTestJudge(t, f)
	vs, err := j.Compare(context.Background(), []judge.Comparison{value("New York City", "NYC")})
	if err != nil || vs[0].Err != nil || !vs[0].Equivalent {
		t.Fatalf("got %+v, %v", vs, err)
	}
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Body.Messages
	if len(msgs) != 4 || msgs[2].Role != "assistant" || msgs[2].Content != `{"equivalent": "yes", "score": 0.9, "reason": "Same city."}` ||
		msgs[3].Role != "user" || !strings.HasPrefix(msgs[3].Content, "That answer cannot be used: the answer is not the JSON object asked for: json: cannot unmarshal string") {
		t.Errorf("repair request messages: %+v", msgs[2:])
	}
	if !cmp.Equal(msgs[:2], reqs[0].Body.Messages) {
		t.Errorf("the repair request changed the original messages")
	}
}

// Twice malformed: a judge error on that comparison only; it is counted,
// not cached, and the other comparisons are answered.
func TestMalformedTwiceIsAJudgeError(t *testing.T) {
	f := newServer(t)
	f.SetContent(func(req judgetest.Request) string {
		if gold, _, _ := req.Pair(); gold == "bad" {
			return "Yes, they are equivalent."
		}
		return `{"equivalent": true, "score": 1, "reason": "Same."}`
	})
	dir := t.TempDir()
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
	vs, err := j.Compare(context.Background(), []judge.Comparison{value("bad", "x"), value("good", "y")})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(vs[0].Err, judge.ErrMalformedAnswer) || !strings.Contains(vs[0].Err.Error(), `attempt 2 of 2`) || vs[0].Reason != "" {
		t.Errorf("verdict 0: %+v", vs[0])
	}
	if vs[1].Err != nil || !vs[1].Equivalent {
		t.Errorf("verdict 1: %+v", vs[1])
	}
	if st := j.Stats(); st.Errors != 1 || st.Judged != 1 || st.Calls != 3 {
		t.Errorf("stats %+v", st)
	}
	j.Close()
	j2, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
	if _, err := j2.Compare(context.Background(), []judge.Comparison{value("bad", "x"), value("good", "y")}); err != nil {
		t.Fatal(err)
	}
	if st := j2.Stats(); st.CacheHits != 1 || st.Calls != 2 {
		t.Errorf("rerun: %+v; want the good answer cached and the bad one asked again", st)
	}
}

// Comparisons the endpoint declines are judge errors; the run goes on.
func TestDeclined(t *testing.T) {
	cases := []struct {
		name string
		f    judgetest.Fault
		want string
	}{
		{"context length", judgetest.Fault{Status: 400, Body: judgetest.ErrorBody("This model's maximum context length is 8192 tokens", "invalid_request_error", "context_length_exceeded", "messages")}, "maximum context length"},
		{"refusal", judgetest.Fault{Status: 200, Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`}, "the model refused: I can't help with that."},
		{"no content", judgetest.Fault{Status: 200, Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"content_filter"}]}`}, `finish_reason "content_filter"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t)
			f.Fail(tc.f)
			j, _ := newTestJudge(t, f)
			var vs []judge.Result
			for _, c := range []judge.Comparison{value("a", "b"), value("c", "d")} {
				v, err := j.Compare(context.Background(), []judge.Comparison{c})
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, v...)
			}
			if !errors.Is(vs[0].Err, judge.ErrRefused) || !strings.Contains(vs[0].Err.Error(), tc.want) {
				t.Errorf("verdict 0: %+v", vs[0])
			}
			if vs[1].Err != nil || vs[1].Reason == "" {
				t.Errorf("verdict 1: %+v", vs[1])
			}
			if st := j.Stats(); st.Errors != 1 || st.Judged != 1 || st.Calls != 2 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// FormatAuto steps down when the endpoint rejects a response format, and
// stays down; a format named explicitly is not changed.
func TestResponseFormatStepDown(t *testing.T) {
	reject := func(what string) judgetest.Fault {
		return judgetest.Fault{Status: 400, Body: judgetest.ErrorBody("response_format type "+what+" is not supported", "invalid_request_error", "", "response_format")}
	}
	f := newServer(t)
	f.Fail(reject("json_schema"), reject("json_object"))
	j, _ := newTestJudge(t, f)
	for _, c := range []judge.Comparison{value("a", "b"), value("c", "d")} {
		if _, err := j.Compare(context.Background(), []judge.Comparison{c}); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, r := range f.Requests() {
		if rf := r.Body.ResponseFormat; rf != nil {
			got = append(got, rf.Type)
		} else {
			got = append(got, "none")
		}
	}
	if want := []string{"json_schema", "json_object", "none", "none"}; !cmp.Equal(got, want) {
		t.Errorf("formats asked %v, want %v", got, want)
	}
	if st := j.Stats(); st.ResponseFormat != judge.FormatNone || st.Retries != 0 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(string(f.Requests()[0].Raw), `"json_schema":{"name":"judgement","strict":true,"schema":{`) {
		t.Errorf("first request: %s", f.Requests()[0].Raw)
	}

	f2 := newServer(t)
	f2.Fail(reject("json_schema"))
	j2, _ := newTestJudge(t, f2, func(o *judge.Options) { o.ResponseFormat = judge.FormatJSONSchema })
	if _, err := j2.Compare(context.Background(), []judge.Comparison{value("a", "b")}); !errors.Is(err, judge.ErrEndpoint) {
		t.Errorf("explicit json_schema rejected: %v, want ErrEndpoint", err)
	}
}

// The call budget stops the run cleanly: nothing past it is sent, what was
// answered is cached, and a rerun with a larger budget pays only for the rest.
func TestBudgetCallsThenResume(t *testing.T) {
	f := newServer(t)
	dir := t.TempDir()
	cs := []judge.Comparison{value("a", "1"), value("b", "2"), value("c", "3"), value("d", "4"), value("e", "5")}
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir, o.MaxCalls, o.Concurrency = dir, 3, 1 })
	_, err := j.Compare(context.Background(), cs)
	if !errors.Is(err, judge.ErrBudget) || !strings.Contains(err.Error(), "3 calls made, the most allowed (--judge-max-calls 3)") {
		t.Fatalf("got %v, want ErrBudget", err)
	}
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests sent, want 3", len(reqs))
	}
	// Once reached, the budget stays reached; what was answered is cached.
	gold, agent, err := reqs[0].Pair()
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := j.Compare(context.Background(), []judge.Comparison{value(gold, agent)}); err != nil || !vs[0].Cached {
		t.Errorf("a comparison answered before the stop: %+v, %v", vs, err)
	}
	if _, err := j.Compare(context.Background(), []judge.Comparison{value("z", "9")}); !errors.Is(err, judge.ErrBudget) {
		t.Errorf("a new comparison after the stop: %v", err)
	}
	j.Close()

	j2, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir, o.MaxCalls = dir, 2 })
	vs, err := j2.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if st := j2.Stats(); st.CacheHits != 3 || st.Calls != 2 {
		t.Errorf("resumed: %+v; want 3 cache hits and 2 calls", st)
	}
	for i, v := range vs {
		if v.Reason == "" || v.Err != nil {
			t.Errorf("verdict %d: %+v", i, v)
		}
	}
}

// The token budget: a call that could pass it is not sent, so the tokens
// reported never exceed it.
func TestBudgetTokens(t *testing.T) {
	f := newServer(t)
	cs := make([]judge.Comparison, 20)
	for i := range cs {
		cs[i] = value(fmt.Sprint("gold ", i), fmt.Sprint("agent ", i))
	}
	est := judge.EstimateTokens(cs[0], judge.DefaultMaxAnswerTokens)
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.MaxTokens, o.Concurrency = 4*est, 3 })
	_, err := j.Compare(context.Background(), cs)
	if !errors.Is(err, judge.ErrBudget) || !strings.Contains(err.Error(), "--judge-max-tokens") {
		t.Fatalf("got %v, want ErrBudget", err)
	}
	st := j.Stats()
	if used := st.PromptTokens + st.CompletionTokens; used > 4*est || st.Calls < 4 {
		t.Errorf("used %d tokens in %d calls; the budget was %d, each estimated at %d", used, st.Calls, 4*est, est)
	}
}

// A rerun is free; the cache key covers the model, kind, field, context
// and both strings.
func TestCacheKey(t *testing.T) {
	f := newServer(t)
	dir := t.TempDir()
	base := judge.Comparison{Kind: judge.KindValue, Field: "f", Context: "ctx", Gold: "g", Predicted: "p"}
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
	if _, err := j.Compare(context.Background(), []judge.Comparison{base}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	variants := []judge.Comparison{base}
	for _, change := range []func(*judge.Comparison){
		func(c *judge.Comparison) { c.Kind = judge.KindClause },
		func(c *judge.Comparison) { c.Field = "f2" },
		func(c *judge.Comparison) { c.Context = "" },
		func(c *judge.Comparison) { c.Gold = "g2" },
		func(c *judge.Comparison) { c.Predicted = "p2" },
	} {
		c := base
		change(&c)
		variants = append(variants, c)
	}
	j2, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
	vs, err := j2.Compare(context.Background(), variants)
	if err != nil {
		t.Fatal(err)
	}
	if !vs[0].Cached || j2.Stats().CacheHits != 1 || j2.Stats().Calls != 5 {
		t.Errorf("stats %+v; want only the unchanged comparison cached", j2.Stats())
	}
	j2.Close()
	j3, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir, o.Model = dir, "other-model" })
	if _, err := j3.Compare(context.Background(), []judge.Comparison{base}); err != nil {
		t.Fatal(err)
	}
	if st := j3.Stats(); st.CacheHits != 0 || st.Calls != 1 {
		t.Errorf("another model: %+v; want a miss", st)
	}
}

// Identical comparisons make one call; the concurrency limit holds.
func TestDuplicatesAndConcurrency(t *testing.T) {
	f := newServer(t)
	release := f.Hold()
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.Concurrency = 3 })
	var cs []judge.Comparison
	for i := range 12 {
		cs = append(cs, value("same", "same-ish"), value(fmt.Sprint("g", i), "p"))
	}
	done := make(chan error)
	go func() {
		_, err := j.Compare(context.Background(), cs)
		done <- err
	}()
	// Wait until the limit is reached, then let everything through.
	deadline := time.Now().Add(10 * time.Second)
	for {
		in, _ := f.InFlight()
		if in == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("in flight %d, never reached the limit of 3", in)
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // a 4th request would arrive now
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, most := f.InFlight(); most != 3 {
		t.Errorf("at most %d requests in flight, want 3", most)
	}
	if n := len(f.Requests()); n != 13 {
		t.Errorf("%d requests for 13 distinct comparisons", n)
	}
}

// Client-side rate limits: after the burst (ten seconds' worth), requests
// go out at the rate asked, measured on the fake clock.
func TestRateLimits(t *testing.T) {
	cases := []struct {
		name string
		opts func(*judge.Options)
		n    int
		want time.Duration // total time waited
	}{
		{"60 requests a minute", func(o *judge.Options) { o.RequestsPerMinute = 60 }, 25, 15 * time.Second},
		{"unlimited", func(o *judge.Options) {}, 25, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t)
			j, clock := newTestJudge(t, f, tc.opts, func(o *judge.Options) { o.Concurrency = 1 })
			cs := make([]judge.Comparison, tc.n)
			for i := range cs {
				cs[i] = value(fmt.Sprint(i), "x")
			}
			if _, err := j.Compare(context.Background(), cs); err != nil {
				t.Fatal(err)
			}
			var total time.Duration
			for _, d := range clock.Slept() {
				total += d
			}
			if d := total - tc.want; d < -10*time.Millisecond || d > 10*time.Millisecond {
				t.Errorf("waited %v, want %v", total, tc.want)
			}
			if st := j.Stats(); st.RateWait != total {
				t.Errorf("Stats.RateWait %v, slept %v", st.RateWait, total)
			}
		})
	}
	// Tokens: each request is estimated at est; 10 s of burst at the rate
	// of 6 requests' worth a minute holds one, then one every 10 s.
	f := newServer(t)
	est := judge.EstimateTokens(value("0", "x"), judge.DefaultMaxAnswerTokens)
	j, clock := newTestJudge(t, f, func(o *judge.Options) { o.TokensPerMinute, o.Concurrency = int(6*est), 1 })
	cs := []judge.Comparison{value("0", "x"), value("1", "x"), value("2", "x")}
	if _, err := j.Compare(context.Background(), cs); err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, d := range clock.Slept() {
		total += d
	}
	if total < 19*time.Second || total > 21*time.Second {
		t.Errorf("token limit: waited %v for 3 requests at 6 a minute with a burst of 1, want about 20s", total)
	}
}

// A cancelled run stops waiting at once.
func TestCancelDuringBackoff(t *testing.T) {
	f := newServer(t)
	f.Fail(judgetest.Fault{Status: 500})
	ctx, cancel := context.WithCancel(context.Background())
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.Clock = cancelClock{cancel} })
	_, err := j.Compare(ctx, []judge.Comparison{value("a", "b")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

// cancelClock cancels the run when asked to sleep.
type cancelClock struct{ cancel func() }

func (cancelClock) Now() time.Time { return time.Unix(0, 0) }
func (c cancelClock) Sleep(ctx context.Context, d time.Duration) error {
	c.cancel()
	return ctx.Err()
}

// An answer without usage is counted at its estimate.
func TestUsageMissing(t *testing.T) {
	f := newServer(t)
	f.Fail(judgetest.Fault{Status: 200, Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":"{\"equivalent\":false,\"score\":0,\"reason\":\"No.\"}"},"finish_reason":"stop"}]}`})
	j, _ := newTestJudge(t, f)
	c := value("a", "b")
	if _, err := j.Compare(context.Background(), []judge.Comparison{c}); err != nil {
		t.Fatal(err)
	}
	st := j.Stats()
	if st.UsageMissing != 1 || st.PromptTokens != judge.EstimateTokens(c, judge.DefaultMaxAnswerTokens) {
		t.Errorf("stats %+v", st)
	}
}

// The API key never reaches an error, a verdict, the statistics or the
// ID, even when the endpoint echoes it back.
func TestSecretNeverInOutputs(t *testing.T) {
	const key = "sk-proj-SECRET0123456789abcdef"
	echo := func(status int) judgetest.Fault {
		return judgetest.Fault{Status: status, Body: judgetest.ErrorBody("Incorrect API key provided: "+key+" (and "+key[:12]+"****)", "invalid_request_error", key, key)}
	}
	var outputs []string
	record := func(vs []judge.Result, err error, j *judge.Judge) {
		outputs = append(outputs, fmt.Sprintf("%v %+v %#v %s", err, vs, j.Stats(), j.ID()))
		for _, v := range vs {
			if v.Err != nil {
				outputs = append(outputs, v.Err.Error())
			}
		}
	}
	for _, faults := range [][]judgetest.Fault{
		{echo(401)}, {echo(403)}, {echo(400)}, {echo(404)}, {echo(500), echo(500)}, {echo(429)},
		{{Status: 400, Body: judgetest.ErrorBody("context_length_exceeded for "+key, "", "context_length_exceeded", "")}},
	} {
		f := newServer(t)
		f.Fail(faults...)
		j, _ := newTestJudge(t, f, func(o *judge.Options) { o.APIKey, o.MaxRetries = key, 1 })
		vs, err := j.Compare(context.Background(), []judge.Comparison{value("a", "b")})
		record(vs, err, j)
	}
	// Malformed answers quoting the key.
	f := newServer(t)
	f.SetContent(func(judgetest.Request) string { return "my key is " + key })
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.APIKey = key })
	vs, err := j.Compare(context.Background(), []judge.Comparison{value("a", "b")})
	record(vs, err, j)
	// Options validation with a key in the URL.
	_, err = judge.New(judge.Options{URL: "https://user:" + key + "@example.com/v1", Model: "m", APIKey: key})
	outputs = append(outputs, fmt.Sprint(err))
	for _, out := range outputs {
		if strings.Contains(out, key) || strings.Contains(out, "SECRET") {
			t.Errorf("the key leaked: %s", out)
		}
	}
	if len(outputs) < 9 {
		t.Fatalf("only %d outputs checked", len(outputs))
	}
}

func TestValidate(t *testing.T) {
	ok := judge.Options{URL: "https://api.openai.com/v1", Model: "gpt-4o-mini"}
	cases := []struct {
		name   string
		change func(*judge.Options)
		want   string // substring; "" for valid
	}{
		{"valid", func(*judge.Options) {}, ""},
		{"query kept", func(o *judge.Options) { o.URL = "https://x.openai.azure.com/openai/v1?api-version=preview" }, ""},
		{"no URL", func(o *judge.Options) { o.URL = "" }, "no endpoint URL: set --judge-url"},
		{"not http", func(o *judge.Options) { o.URL = "ftp://x/v1" }, "is not an http(s) URL"},
		{"no host", func(o *judge.Options) { o.URL = "localhost:8080" }, "is not an http(s) URL"},
		{"credentials in URL", func(o *judge.Options) { o.URL = "https://u:p@x/v1" }, "carries credentials"},
		{"no model", func(o *judge.Options) { o.Model = " " }, "no model: set --judge-model"},
		{"format", func(o *judge.Options) { o.ResponseFormat = "xml" }, `response format "xml"`},
		{"negative concurrency", func(o *judge.Options) { o.Concurrency = -1 }, "concurrency is -1"},
		{"negative budget", func(o *judge.Options) { o.MaxTokens = -5 }, "max tokens is -5"},
		{"negative timeout", func(o *judge.Options) { o.Timeout = -time.Second }, "timeout is -1s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ok
			tc.change(&o)
			err := o.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, judge.ErrInvalidOptions) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrInvalidOptions with %q", err, tc.want)
			}
		})
	}
}

func TestKeyFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if got := judge.KeyFromEnv(env(map[string]string{judge.EnvAPIKey: "a", judge.EnvOpenAIAPIKey: "b"})); got != "a" {
		t.Errorf("got %q, want the AEM key first", got)
	}
	if got := judge.KeyFromEnv(env(map[string]string{judge.EnvOpenAIAPIKey: "b"})); got != "b" {
		t.Errorf("got %q, want OPENAI_API_KEY", got)
	}
	if got := judge.KeyFromEnv(env(nil)); got != "" {
		t.Errorf("got %q, want none", got)
	}
}

// A clause's position in its reply is not part of the question: the same
// pair of clauses at two positions is one call and one cache entry, and
// the request names the field without it. A value's array index is kept.
func TestClausePositionIsNotAsked(t *testing.T) {
	f := newServer(t)
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = t.TempDir() })
	clause := func(field string) judge.Comparison {
		return judge.Comparison{Kind: judge.KindClause, Field: field, Gold: "Revenue rose.", Predicted: "Sales rose."}
	}
	values := []judge.Comparison{
		{Kind: judge.KindValue, Field: "t.a.p[0]", Gold: "a", Predicted: "b"},
		{Kind: judge.KindValue, Field: "t.a.p[1]", Gold: "a", Predicted: "b"},
	}
	if _, err := j.Compare(context.Background(), []judge.Comparison{clause("response.clause[0]")}); err != nil {
		t.Fatal(err)
	}
	vs, err := j.Compare(context.Background(), append([]judge.Comparison{clause("response.clause[3]")}, values...))
	if err != nil {
		t.Fatal(err)
	}
	if !vs[0].Cached || vs[1].Cached || vs[2].Cached {
		t.Errorf("cached %v %v %v; want the clause at another position only", vs[0].Cached, vs[1].Cached, vs[2].Cached)
	}
	reqs := f.Requests()
	if len(reqs) != 3 || !strings.HasPrefix(reqs[0].Body.Messages[1].Content, "Field: response.clause\nGold: ") {
		t.Fatalf("%d requests; the first asks %q", len(reqs), reqs[0].Body.Messages[1].Content)
	}
}

// Carry charges what earlier invocations of a run spent: the budget then
// bounds the run as a whole, while Stats counts this Judge's work only.
func TestCarryChargesTheBudget(t *testing.T) {
	est := judge.EstimateTokens(value("gold 0", "agent 0"), judge.DefaultMaxAnswerTokens)
	for _, tc := range []struct {
		name          string
		opts          func(*judge.Options)
		calls, tokens int64
		sent          int
		msg           string
	}{
		{"calls", func(o *judge.Options) { o.MaxCalls = 5 }, 3, 0, 2, "5 calls made, the most allowed (--judge-max-calls 5)"},
		{"calls, all spent", func(o *judge.Options) { o.MaxCalls = 5 }, 5, 0, 0, "5 calls made"},
		{"tokens", func(o *judge.Options) { o.MaxTokens = 10 * est }, 0, 8 * est, 2, "--judge-max-tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t)
			j, _ := newTestJudge(t, f, func(o *judge.Options) { tc.opts(o); o.Concurrency = 1 })
			j.Carry(tc.calls, tc.tokens)
			cs := make([]judge.Comparison, 6)
			for i := range cs {
				cs[i] = value(fmt.Sprint("gold ", i), fmt.Sprint("agent ", i))
			}
			_, err := j.Compare(context.Background(), cs)
			if !errors.Is(err, judge.ErrBudget) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want ErrBudget saying %q", err, tc.msg)
			}
			if n := len(f.Requests()); n != tc.sent {
				t.Errorf("%d requests sent, want %d", n, tc.sent)
			}
			if st := j.Stats(); st.Calls != int64(tc.sent) {
				t.Errorf("Stats().Calls = %d, want this Judge's own %d", st.Calls, tc.sent)
			}
		})
	}
}

// A damaged cache record is a miss: the comparison is asked again,
// counted in Stats.CacheCorrupt, and its answer stored again. An earlier
// release's bbolt file is reported, never read.
func TestDamagedCache(t *testing.T) {
	f := newServer(t)
	dir := t.TempDir()
	c := judge.Comparison{Kind: judge.KindValue, Field: "f", Context: "ctx", Gold: "g", Predicted: "p"}
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
	first, err := j.Compare(context.Background(), []judge.Comparison{c})
	if err != nil {
		t.Fatal(err)
	}
	j.Close()
	segs, _ := filepath.Glob(filepath.Join(dir, judge.CacheName, "*.seg"))
	if len(segs) != 1 {
		t.Fatalf("segments %q, want one", segs)
	}
	b, err := os.ReadFile(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-3] ^= 0x01 // in the answer's JSON
	if err := os.WriteFile(segs[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "judgements.bbolt"), []byte("bbolt"), 0o644); err != nil {
		t.Fatal(err)
	}
	for round, want := range []judge.Stats{{CacheCorrupt: 1, Calls: 1}, {CacheHits: 1}} {
		j, _ := newTestJudge(t, f, func(o *judge.Options) { o.CacheDir = dir })
		vs, err := j.Compare(context.Background(), []judge.Comparison{c})
		if err != nil {
			t.Fatal(err)
		}
		st := j.Stats()
		if st.CacheCorrupt != want.CacheCorrupt || st.Calls != want.Calls || st.CacheHits != want.CacheHits || vs[0].Answer != first[0].Answer {
			t.Errorf("round %d: %+v, answer %+v; want %+v and the first answer", round, st, vs[0].Answer, want)
		}
		if notes := strings.Join(st.CacheNotices, "\n"); !strings.Contains(notes, "judgements.bbolt") {
			t.Errorf("round %d: notices %q; want the old cache file named", round, notes)
		}
		j.Close()
	}
}
