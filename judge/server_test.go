package judge

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is an OpenAI-compatible chat-completions endpoint for tests.
// It answers from a fixed table keyed by the gold and agent strings of the
// request, reports usage, records every request, and plays scripted
// faults (queued with fail) before answering.
type fakeServer struct {
	t     *testing.T
	srv   *httptest.Server
	clock *fakeClock // stamps requests with the fake time; may be nil

	mu       sync.Mutex
	requests []recorded
	faults   []fault
	inFlight int
	maxIn    int
	// table answers by (gold, agent); a pair not in it is answered
	// {"equivalent": false, "score": 0.1, ...}.
	table map[[2]string]Answer
	// content, when set, replaces the table: the raw message content.
	content func(req chatRequest) string
	// hold, when set, keeps each request until it is closed.
	hold chan struct{}
}

// recorded is one request as the server saw it.
type recorded struct {
	Path   string
	Header http.Header
	Body   chatRequest
	Raw    []byte
	At     time.Time // fake clock time at arrival (zero without a clock)
}

// fault is a scripted response: status and body, or a hang until the
// client gives up.
type fault struct {
	status int
	header map[string]string
	body   string
	hang   bool
}

func newFakeServer(t *testing.T) *fakeServer {
	t.Helper()
	f := &fakeServer{t: t, table: map[[2]string]Answer{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// URL is the base URL clients are given.
func (f *fakeServer) URL() string { return f.srv.URL + "/v1" }

// fail queues faults, played in order before normal answers.
func (f *fakeServer) fail(fs ...fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fs...)
}

// reqs returns the requests so far.
func (f *fakeServer) reqs() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.requests...)
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	rec := recorded{Path: r.URL.Path, Header: r.Header.Clone(), Body: req, Raw: raw}
	if f.clock != nil {
		rec.At = f.clock.Now()
	}
	f.requests = append(f.requests, rec)
	var ft *fault
	if len(f.faults) > 0 {
		ft = &f.faults[0]
		f.faults = f.faults[1:]
	}
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	hold := f.hold
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if ft != nil {
		if ft.hang {
			<-r.Context().Done()
			return
		}
		for k, v := range ft.header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(ft.status)
		io.WriteString(w, ft.body)
		return
	}
	content := f.answer(req)
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.Content) / 4
	}
	resp := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req.Model + "-2025-01-01",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": len(content) / 4, "total_tokens": prompt + len(content)/4},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// answer is the content for a request: from content, else the table.
func (f *fakeServer) answer(req chatRequest) string {
	f.mu.Lock()
	content := f.content
	f.mu.Unlock()
	if content != nil {
		return content(req)
	}
	gold, agent := pairOf(f.t, req)
	f.mu.Lock()
	a, ok := f.table[[2]string{gold, agent}]
	f.mu.Unlock()
	if !ok {
		a = Answer{Equivalent: false, Score: 0.1, Reason: "The values differ."}
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// pairOf reads the gold and agent strings back from a request's user message.
func pairOf(t *testing.T, req chatRequest) (gold, agent string) {
	for _, line := range strings.Split(req.Messages[1].Content, "\n") {
		if v, ok := strings.CutPrefix(line, "Gold: "); ok {
			if err := json.Unmarshal([]byte(v), &gold); err != nil {
				t.Errorf("gold line %q: %v", line, err)
			}
		}
		if v, ok := strings.CutPrefix(line, "Agent: "); ok {
			if err := json.Unmarshal([]byte(v), &agent); err != nil {
				t.Errorf("agent line %q: %v", line, err)
			}
		}
	}
	return gold, agent
}

// fakeClock is a Clock whose Sleep returns at once and moves time on.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *fakeClock) slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// newTestJudge returns a Judge on f with a fake clock, jitter fixed at
// 0.5, and opts applied.
func newTestJudge(t *testing.T, f *fakeServer, opts ...func(*Options)) (*Judge, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	f.clock = clock
	o := Options{URL: f.URL(), Model: "test-model", Clock: clock, Jitter: func() float64 { return 0.5 }}
	for _, fn := range opts {
		fn(&o)
	}
	j, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, clock
}

// value is a value comparison of gold and predicted.
func value(gold, predicted string) Comparison {
	return Comparison{Kind: KindValue, Field: "weather.get.city", Gold: gold, Predicted: predicted}
}

// errorJSON is an OpenAI error body.
func errorJSON(message, typ, code, param string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ, "code": code, "param": param}})
	return string(b)
}
