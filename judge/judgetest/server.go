// Package judgetest provides an OpenAI-compatible chat-completions server
// for tests and benchmarks of code that uses package judge, in the manner
// of net/http/httptest: it answers from a fixed table, reports token
// usage, records every request, and plays scripted faults (HTTP errors
// with Retry-After, malformed bodies, answers slower than any timeout). It
// also provides a Clock whose Sleep returns at once.
package judgetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/aem-dev/aem/judge"
)

// Server is a chat-completions endpoint on a loopback port. Its methods
// are safe for concurrent use.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	clock    judge.Clock
	requests []Request
	faults   []Fault
	inFlight int
	maxIn    int
	table    map[[2]string]judge.Answer
	content  func(Request) string
	hold     chan struct{}
	served   time.Duration
}

// Request is one request as the server received it.
type Request struct {
	Path   string
	Header http.Header
	Body   Body
	Raw    []byte
	At     time.Time // the Clock's time at arrival (zero without SetClock)
}

// Body is the decoded request body.
type Body struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	Temperature    *float64  `json:"temperature"`
	MaxTokens      int       `json:"max_tokens"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Pair returns the gold and agent strings of the request's user message
// (the "Gold: " and "Agent: " lines, JSON string literals).
func (r Request) Pair() (gold, agent string, err error) {
	if len(r.Body.Messages) < 2 {
		return "", "", fmt.Errorf("request has %d messages, want a system and a user message", len(r.Body.Messages))
	}
	for _, line := range strings.Split(r.Body.Messages[1].Content, "\n") {
		if v, ok := strings.CutPrefix(line, "Gold: "); ok {
			if err := json.Unmarshal([]byte(v), &gold); err != nil {
				return "", "", fmt.Errorf("gold line %q: %w", line, err)
			}
		}
		if v, ok := strings.CutPrefix(line, "Agent: "); ok {
			if err := json.Unmarshal([]byte(v), &agent); err != nil {
				return "", "", fmt.Errorf("agent line %q: %w", line, err)
			}
		}
	}
	return gold, agent, nil
}

// Fault is a scripted response: Status with Header and Body, or, with
// Hang, no answer until the client gives up.
type Fault struct {
	Status int
	Header map[string]string
	Body   string
	Hang   bool
}

// Differ is the answer to a pair not in the table.
var Differ = judge.Answer{Equivalent: false, Score: 0.1, Reason: "The values differ."}

// NewServer starts a server; Close it when done.
func NewServer() *Server {
	s := &Server{table: map[[2]string]judge.Answer{}}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL to give the judge ("http://127.0.0.1:port/v1").
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Close shuts the server down.
func (s *Server) Close() { s.srv.Close() }

// Answer sets the answer for a (gold, agent) pair; other pairs get Differ.
func (s *Server) Answer(gold, agent string, a judge.Answer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.table[[2]string{gold, agent}] = a
}

// SetContent replaces the table: fn gives each answer's raw message content.
func (s *Server) SetContent(fn func(Request) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.content = fn
}

// SetClock stamps each request with c's time (Request.At).
func (s *Server) SetClock(c judge.Clock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock = c
}

// Hold keeps every request until the returned function is called.
func (s *Server) Hold() (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	s.hold = ch
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

// Fail queues faults, played in order before normal answers.
func (s *Server) Fail(fs ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fs...)
}

// Requests returns the requests so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// InFlight returns the requests being served now and the most at once so far.
func (s *Server) InFlight() (now, most int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.inFlight, s.maxIn
}

// ServeTime is the time spent inside the handler so far (reading,
// answering, writing; holds and hangs included): the server's own
// latency, for benchmarks that measure the client's.
func (s *Server) ServeTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.served
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	defer func() {
		s.mu.Lock()
		s.served += time.Since(start)
		s.mu.Unlock()
	}()
	raw, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	if err := json.Unmarshal(raw, &req.Body); err != nil {
		http.Error(w, `{"error":{"message":"the body is not JSON"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	if s.clock != nil {
		req.At = s.clock.Now()
	}
	s.requests = append(s.requests, req)
	var ft *Fault
	if len(s.faults) > 0 {
		ft = &s.faults[0]
		s.faults = s.faults[1:]
	}
	s.inFlight++
	s.maxIn = max(s.maxIn, s.inFlight)
	hold := s.hold
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	if ft != nil {
		if ft.Hang {
			<-r.Context().Done()
			return
		}
		for k, v := range ft.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(ft.Status)
		io.WriteString(w, ft.Body)
		return
	}
	content := s.answer(req)
	prompt := 0
	for _, m := range req.Body.Messages {
		prompt += len(m.Content) / 4
	}
	resp := map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": req.Body.Model + "-2025-01-01",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": len(content) / 4, "total_tokens": prompt + len(content)/4},
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// answer is the content for a request: from content, else the table.
func (s *Server) answer(req Request) string {
	s.mu.Lock()
	content := s.content
	s.mu.Unlock()
	if content != nil {
		return content(req)
	}
	gold, agent, err := req.Pair()
	if err != nil {
		return "the server could not read the request: " + err.Error()
	}
	s.mu.Lock()
	a, ok := s.table[[2]string{gold, agent}]
	s.mu.Unlock()
	if !ok {
		a = Differ
	}
	b, _ := json.Marshal(a)
	return string(b)
}

// ErrorBody is an OpenAI error body.
func ErrorBody(message, typ, code, param string) string {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": message, "type": typ, "code": code, "param": param}})
	return string(b)
}

// Clock is a judge.Clock whose Sleep returns at once and moves its time
// on; it records every sleep.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

// NewClock returns a Clock at 2025-01-01T00:00:00Z.
func NewClock() *Clock {
	return &Clock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// Now implements judge.Clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep implements judge.Clock.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

// Slept returns the sleeps so far.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}
