package s3test

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Fault is what a Proxy does to the requests that match it, instead of or
// before forwarding them. Exactly one of Status, Reset, Delay and Before
// says what (Delay and Before may go together).
type Fault struct {
	// Method matches the request's method ("" = any: GET, PUT, HEAD, ...).
	Method string
	// Path matches requests whose path (/bucket/key) contains it ("" = any).
	Path string
	// Query matches requests whose raw query contains it ("" = any), e.g.
	// "partNumber" for the parts of a multipart upload.
	Query string
	// Times is how many matching requests the fault applies to; 0 means
	// every one (a store that stays broken).
	Times int

	// Status answers with this HTTP status and an S3 error body (500:
	// InternalError, 503: SlowDown) without forwarding.
	Status int
	// Reset resets the TCP connection after After bytes of the body: of
	// the request for a request with a body (an upload), else of the
	// response (a download).
	Reset bool
	// After is the number of body bytes passed before a Reset.
	After int64
	// Delay waits this long before forwarding (a slow store).
	Delay time.Duration
	// Before runs before the request is forwarded, e.g. to overwrite the
	// object being read.
	Before func()
}

func (f *Fault) matches(r *http.Request) bool {
	return (f.Method == "" || f.Method == r.Method) &&
		strings.Contains(r.URL.Path, f.Path) &&
		strings.Contains(r.URL.RawQuery, f.Query)
}

// Proxy is a reverse proxy in front of a server that injects Faults. It is
// safe for concurrent use.
type Proxy struct {
	// URL is the proxy's endpoint, http://127.0.0.1:PORT.
	URL string

	rp *httputil.ReverseProxy

	mu       sync.Mutex
	faults   []*armed
	injected []string
}

type armed struct {
	Fault
	left int // requests it still applies to (< 0: unlimited)
}

// NewProxy starts a proxy to target (a server's Endpoint), closed when the
// test ends.
func NewProxy(t testing.TB, target string) *Proxy {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{rp: httputil.NewSingleHostReverseProxy(u)}
	p.rp.ErrorLog = nil
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Add arms a fault; faults are tried in the order added, and the first
// that matches a request applies.
func (p *Proxy) Add(f Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	left := f.Times
	if left <= 0 {
		left = -1
	}
	p.faults = append(p.faults, &armed{Fault: f, left: left})
}

// Clear disarms every fault.
func (p *Proxy) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = nil
}

// Injected lists the faults applied so far, one line each ("503 PUT
// /bucket/key", "reset GET /bucket/key", "delay HEAD /bucket/key"); a
// reset of a response shorter than its After bytes did not happen and is
// not listed.
func (p *Proxy) Injected() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.injected...)
}

// take returns the fault for r, counting it, or nil.
func (p *Proxy) take(r *http.Request) *Fault {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range p.faults {
		if a.left == 0 || !a.matches(r) {
			continue
		}
		if a.left > 0 {
			a.left--
		}
		f := a.Fault
		what := "delay"
		switch {
		case f.Status != 0:
			what = fmt.Sprint(f.Status)
		case f.Reset:
			what = "reset"
		case f.Before != nil:
			what = "before"
		}
		if what != "reset" || hasBody(r) {
			p.record(what, r)
		}
		return &f
	}
	return nil
}

// record lists an injected fault; the caller holds p.mu.
func (p *Proxy) record(what string, r *http.Request) {
	p.injected = append(p.injected, fmt.Sprintf("%s %s %s", what, r.Method, r.URL.Path))
}

func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}

// ServeHTTP applies the first matching fault, then forwards what is left.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := p.take(r)
	if f == nil {
		p.rp.ServeHTTP(w, r)
		return
	}
	if f.Before != nil {
		f.Before()
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-r.Context().Done():
			return
		}
	}
	switch {
	case f.Status != 0:
		io.Copy(io.Discard, r.Body)
		code := "InternalError"
		if f.Status == http.StatusServiceUnavailable {
			code = "SlowDown"
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>injected by the test proxy</Message></Error>`, code)
	case f.Reset && hasBody(r):
		io.CopyN(io.Discard, r.Body, f.After)
		reset(w)
	case f.Reset:
		p.rp.ServeHTTP(&resetWriter{ResponseWriter: w, left: f.After, fired: func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.record("reset", r)
		}}, r)
	default:
		p.rp.ServeHTTP(w, r)
	}
}

// reset closes the client's connection with a TCP reset.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	conn.Close()
}

// resetWriter passes left bytes of the response body, then resets the
// connection.
type resetWriter struct {
	http.ResponseWriter
	left  int64
	fired func()
}

var errReset = errors.New("connection reset by the test proxy")

func (w *resetWriter) Write(b []byte) (int, error) {
	if int64(len(b)) < w.left {
		w.left -= int64(len(b))
		return w.ResponseWriter.Write(b)
	}
	n, _ := w.ResponseWriter.Write(b[:w.left])
	http.NewResponseController(w.ResponseWriter).Flush()
	reset(w.ResponseWriter)
	w.fired()
	return n, errReset
}

// Unwrap lets http.ResponseController reach the connection.
func (w *resetWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
