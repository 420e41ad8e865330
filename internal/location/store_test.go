package location_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
	"github.com/aem-dev/aem/internal/storetest"
)

// logLines collects what a URLMux logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// store is a real object store behind a fault proxy, with the
// environment of this process pointed at the proxy, and a bucket "evals".
type store struct {
	storetest.Remote
	mux *blob.URLMux
	log *logLines
}

// newS3Store starts an S3 server (skipping the test without one);
// maxAttempts 0 is aem's default.
func newS3Store(t *testing.T, maxAttempts int) *store { return newStore(t, "s3", maxAttempts) }

// newGCSStore starts a GCS emulator; maxAttempts 0 is aem's default.
func newGCSStore(t *testing.T, maxAttempts int) *store { return newStore(t, "gs", maxAttempts) }

func newStore(t *testing.T, scheme string, maxAttempts int) *store {
	log := new(logLines)
	mux := location.NewURLMux(location.MuxOptions{Log: log.add, MaxBackoff: 50 * time.Millisecond, MaxAttempts: maxAttempts})
	return &store{Remote: storetest.Start(t, scheme), mux: mux, log: log}
}

// eachStore runs f as a subtest against each kind of store.
func eachStore(t *testing.T, f func(t *testing.T, st *store)) {
	for _, s := range []struct {
		name string
		open func(*testing.T, int) *store
	}{{"s3", newS3Store}, {"gs", newGCSStore}} {
		t.Run(s.name, func(t *testing.T) { f(t, s.open(t, 0)) })
	}
}

func randomBytes(n int, seed uint64) []byte {
	var key [32]byte
	key[0] = byte(seed)
	b := make([]byte, n)
	rand.NewChaCha8(key).Read(b)
	return b
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustParse(t *testing.T, s string) location.Location {
	t.Helper()
	l, err := location.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// faultCase moves one object through a store while the proxy applies a
// fault.
type faultCase struct {
	name   string
	size   int
	upload bool // the fault hits the upload (else the download)
	fault  s3test.Fault
	// wantErr: the operation fails with it (nil: succeeds exactly)
	wantErr error
	// wantLog: a line the log must hold, at least wantN times
	wantLog string
	wantN   int
}

// sessionID matches the id of a GCS resumable upload session in a URL: a
// credential that must never reach an error or a log.
var sessionID = regexp.MustCompile(`upload_id=[0-9a-f]`)

// run checks that the fault either leaves the bytes exact or fails with
// an error, never a partial object under the final name, and that the
// retries are in the log (and no upload session's id is).
func (c faultCase) run(t *testing.T, st *store) {
	ctx := context.Background()
	dir := t.TempDir()
	data := randomBytes(c.size, uint64(c.size))
	src := writeFile(t, dir, "obj", data)
	if !c.upload {
		st.Objects.Put(t, "evals", "dir/obj", data)
	}
	st.Proxy.Add(c.fault)

	var err error
	if c.upload {
		err = location.Upload(ctx, st.mux, mustParse(t, st.URL("dir")), []string{src})
	} else {
		var got string
		if got, err = location.Download(ctx, st.mux, mustParse(t, st.URL("dir/obj")), dir); err == nil {
			if b, _ := os.ReadFile(got); !bytes.Equal(b, data) {
				t.Errorf("downloaded %d bytes, not the %d of the object", len(b), len(data))
			}
		}
	}
	st.Proxy.Clear()
	t.Logf("faults injected: %d; err: %v; log:\n%s", len(st.Proxy.Injected()), err, st.log)
	if len(st.Proxy.Injected()) == 0 {
		t.Fatal("the proxy injected no fault")
	}
	if c.wantErr == nil && err != nil {
		t.Fatalf("err = %v, want success", err)
	}
	if c.wantErr != nil && !errors.Is(err, c.wantErr) {
		t.Fatalf("err = %v, want %v", err, c.wantErr)
	}
	if c.wantLog != "" && st.log.count(c.wantLog) < c.wantN {
		t.Errorf("the log has %d lines with %q, want at least %d", st.log.count(c.wantLog), c.wantLog, c.wantN)
	}
	if err != nil && sessionID.MatchString(err.Error()) || sessionID.MatchString(st.log.String()) {
		t.Errorf("an upload session's id reached the error or the log")
	}
	if !c.upload {
		return
	}
	got, ok := st.Objects.Get(t, "evals", "dir/obj")
	switch {
	case c.wantErr == nil && !bytes.Equal(got, data):
		t.Errorf("the stored object has %d bytes (exists %v), want the %d uploaded", len(got), ok, len(data))
	case c.wantErr != nil && ok:
		t.Errorf("a failed upload left an object of %d bytes under its name", len(got))
	}
	if st.S3 != nil {
		if u := st.S3.Uploads(t, "evals"); len(u) != 0 {
			t.Errorf("unfinished multipart uploads left behind: %v", u)
		}
	}
}

// TestObjectChangedWhileRead overwrites an object between a broken read
// and its resumption: the read must fail with ErrChanged rather than join
// two versions (or, on GCS, say that the object does not exist).
func TestObjectChangedWhileRead(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store) {
		st.Objects.Put(t, "evals", "obj", randomBytes(200_000, 1))
		st.Proxy.Add(s3test.Fault{Method: "GET", Reset: true, After: 50_000, Times: 1})
		st.Proxy.Add(s3test.Fault{Method: "GET", Times: 1, Before: func() { st.Objects.Put(t, "evals", "obj", randomBytes(200_000, 2)) }})
		_, err := location.Download(context.Background(), st.mux, mustParse(t, st.URL("obj")), t.TempDir())
		if !errors.Is(err, location.ErrChanged) {
			t.Fatalf("Download of an object overwritten mid-read = %v, want ErrChanged", err)
		}
		t.Log(err)
	})
}

// TestFetchDirRewritten rewrites a run directory (its marker, written
// last) while FetchDir reads it.
func TestFetchDirRewritten(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store) {
		ctx := context.Background()
		names := []string{"summary.json", "a", "b"}
		for _, n := range names {
			st.Objects.Put(t, "evals", "run/"+n, []byte("v1 "+n))
		}
		dir, cleanup, err := location.FetchDir(ctx, st.mux, mustParse(t, st.URL("run")), t.TempDir(), names)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "b"))
		cleanup()
		if string(got) != "v1 b" {
			t.Fatalf("fetched b = %q", got)
		}

		// A writer replaces the directory after the marker was read.
		st.Proxy.Add(s3test.Fault{Method: "GET", Path: "/run/a", Times: 1, Before: func() {
			for _, n := range []string{"a", "b", "summary.json"} {
				st.Objects.Put(t, "evals", "run/"+n, []byte("v2 "+n))
			}
		}})
		if _, _, err := location.FetchDir(ctx, st.mux, mustParse(t, st.URL("run")), t.TempDir(), names); !errors.Is(err, location.ErrChanged) {
			t.Fatalf("FetchDir of a directory rewritten meanwhile = %v, want ErrChanged", err)
		}
	})
}

// TestRoundTrip: upload, fetch, delete through each store.
func TestRoundTrip(t *testing.T) {
	eachStore(t, func(t *testing.T, st *store) {
		ctx := context.Background()
		dir := t.TempDir()
		files := []string{writeFile(t, dir, "x.json", []byte(`{"x":1}`)), writeFile(t, dir, "y.bin", randomBytes(5000, 3))}
		dst := mustParse(t, st.URL("p/q"))
		if err := location.Upload(ctx, st.mux, dst, files); err != nil {
			t.Fatal(err)
		}
		if got := st.Objects.Keys(t, "evals", ""); !slices.Equal(got, []string{"p/q/x.json", "p/q/y.bin"}) {
			t.Fatalf("keys after upload: %v", got)
		}
		into := t.TempDir()
		if err := location.Fetch(ctx, st.mux, dst, into, []string{"x.json", "y.bin"}); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			a, _ := os.ReadFile(f)
			b, _ := os.ReadFile(filepath.Join(into, filepath.Base(f)))
			if !bytes.Equal(a, b) {
				t.Errorf("%s differs after the round trip", filepath.Base(f))
			}
		}
		if err := location.Fetch(ctx, st.mux, dst, into, []string{"missing"}); !errors.Is(err, location.ErrUnreadable) {
			t.Errorf("Fetch of a missing object = %v, want ErrUnreadable", err)
		}
		missing := st.Scheme + "://nobucket/x"
		if _, err := location.Download(ctx, st.mux, mustParse(t, missing), into); !errors.Is(err, location.ErrUnreadable) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Download from a missing bucket = %v, want ErrUnreadable naming the URL", err)
		}
		st.Objects.Put(t, "evals", "p/qq", []byte("beside the prefix"))
		if err := location.DeleteAll(ctx, st.mux, dst); err != nil {
			t.Fatal(err)
		}
		if got := st.Objects.Keys(t, "evals", ""); !slices.Equal(got, []string{"p/qq"}) {
			t.Errorf("keys after DeleteAll(p/q): %v, want [p/qq]", got)
		}
		if st.log.String() != "" {
			t.Errorf("a run without faults logged:\n%s", st.log)
		}
	})
}
