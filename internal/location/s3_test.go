package location_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
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

// store is a real S3 server behind a fault proxy, with the environment
// of this process pointed at the proxy.
type store struct {
	srv   *s3test.Server
	proxy *s3test.Proxy
	mux   *blob.URLMux
	log   *logLines
}

func newStore(t *testing.T) *store {
	srv := s3test.Start(t)
	p := s3test.NewProxy(t, srv.Endpoint)
	srv.SetEnv(t, p.URL)
	log := new(logLines)
	mux := location.NewURLMux(location.MuxOptions{Log: log.add, MaxBackoff: 50 * time.Millisecond})
	return &store{srv: srv, proxy: p, mux: mux, log: log}
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

// TestS3Faults moves objects through a real S3 server while the proxy in
// front of it breaks requests: every fault either leaves the bytes exact
// or fails with an error, never a partial object under the final name,
// and every retry is in the log.
func TestS3Faults(t *testing.T) {
	// large takes a multipart upload (from 16 MiB, in parts of 8 MiB)
	const small, medium, large = 300_000, 3 << 20, 17 << 20
	for _, c := range []struct {
		name   string
		size   int
		upload bool // the fault hits the upload (else the download)
		fault  s3test.Fault
		// wantErr: the operation fails with it (nil: succeeds exactly)
		wantErr error
		// wantLog: a line the log must hold, at least wantN times
		wantLog string
		wantN   int
	}{
		{"503 twice on upload", small, true, s3test.Fault{Method: "PUT", Status: 503, Times: 2}, nil, "PutObject s3://evals/dir/obj failed, retrying", 2},
		{"500 on download", small, false, s3test.Fault{Method: "GET", Status: 500, Times: 1}, nil, "GetObject s3://evals/dir/obj failed, retrying", 1},
		{"reset mid-upload", small, true, s3test.Fault{Method: "PUT", Reset: true, After: 100_000, Times: 1}, nil, "PutObject s3://evals/dir/obj failed, retrying", 1},
		{"reset mid-upload of a part", large, true, s3test.Fault{Method: "PUT", Query: "partNumber=2", Reset: true, After: 1 << 20, Times: 2}, nil, "UploadPart s3://evals/dir/obj failed, retrying", 2},
		{"reset mid-download, twice", small, false, s3test.Fault{Method: "GET", Reset: true, After: 70_000, Times: 2}, nil, "reading s3://evals/dir/obj broke at byte", 2},
		{"reset mid-download of a larger object", medium, false, s3test.Fault{Method: "GET", Reset: true, After: 2 << 20, Times: 1}, nil, "resuming there", 1},
		{"slow store", small, false, s3test.Fault{Delay: 300 * time.Millisecond}, nil, "", 0},
		{"upload reset every time", small, true, s3test.Fault{Method: "PUT", Reset: true, After: 1000}, location.ErrUnreadable, "(at most 3 attempts)", 2},
		{"a part reset every time", large, true, s3test.Fault{Method: "PUT", Query: "partNumber=2", Reset: true, After: 1000}, location.ErrUnreadable, "UploadPart s3://evals/dir/obj failed", 2},
		{"503 every time on download", small, false, s3test.Fault{Method: "GET", Status: 503}, location.ErrUnreadable, "GetObject s3://evals/dir/obj failed", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			st.mux = location.NewURLMux(location.MuxOptions{Log: st.log.add, MaxBackoff: 50 * time.Millisecond, MaxAttempts: 3})
			st.srv.Bucket(t, "evals")
			ctx := context.Background()
			dir := t.TempDir()
			data := randomBytes(c.size, uint64(c.size))
			src := writeFile(t, dir, "obj", data)
			dst := mustParse(t, "s3://evals/dir")
			if !c.upload {
				st.srv.Put(t, "evals", "dir/obj", data)
			}
			st.proxy.Add(c.fault)

			var err error
			if c.upload {
				err = location.Upload(ctx, st.mux, dst, []string{src})
			} else {
				var got string
				if got, err = location.Download(ctx, st.mux, mustParse(t, "s3://evals/dir/obj"), dir); err == nil {
					if b, _ := os.ReadFile(got); !bytes.Equal(b, data) {
						t.Errorf("downloaded %d bytes, not the %d of the object", len(b), len(data))
					}
				}
			}
			st.proxy.Clear()
			t.Logf("faults injected: %d; log:\n%s", len(st.proxy.Injected()), st.log)
			if len(st.proxy.Injected()) == 0 {
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
			if c.upload {
				got, ok := st.srv.Get(t, "evals", "dir/obj")
				switch {
				case c.wantErr == nil && !bytes.Equal(got, data):
					t.Errorf("the stored object has %d bytes (exists %v), want the %d uploaded", len(got), ok, len(data))
				case c.wantErr != nil && ok:
					t.Errorf("a failed upload left an object of %d bytes under its name", len(got))
				}
				if u := st.srv.Uploads(t, "evals"); len(u) != 0 {
					t.Errorf("unfinished multipart uploads left behind: %v", u)
				}
			}
		})
	}
}

// TestS3ObjectChangedWhileRead overwrites an object between a broken read
// and its resumption: the read must fail with ErrChanged rather than join
// two versions.
func TestS3ObjectChangedWhileRead(t *testing.T) {
	st := newStore(t)
	st.srv.Bucket(t, "evals")
	ctx := context.Background()
	st.srv.Put(t, "evals", "obj", randomBytes(200_000, 1))
	st.proxy.Add(s3test.Fault{Method: "GET", Reset: true, After: 50_000, Times: 1})
	st.proxy.Add(s3test.Fault{Method: "GET", Times: 1, Before: func() { st.srv.Put(t, "evals", "obj", randomBytes(200_000, 2)) }})
	_, err := location.Download(ctx, st.mux, mustParse(t, "s3://evals/obj"), t.TempDir())
	if !errors.Is(err, location.ErrChanged) {
		t.Fatalf("Download of an object overwritten mid-read = %v, want ErrChanged", err)
	}
	t.Log(err)
}

// TestS3FetchDirRewritten rewrites a run directory (its marker, written
// last) while FetchDir reads it.
func TestS3FetchDirRewritten(t *testing.T) {
	st := newStore(t)
	st.srv.Bucket(t, "evals")
	ctx := context.Background()
	for _, n := range []string{"summary.json", "a", "b"} {
		st.srv.Put(t, "evals", "run/"+n, []byte("v1 "+n))
	}
	names := []string{"summary.json", "a", "b"}
	dir, cleanup, err := location.FetchDir(ctx, st.mux, mustParse(t, "s3://evals/run"), t.TempDir(), names)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "b"))
	cleanup()
	if string(got) != "v1 b" {
		t.Fatalf("fetched b = %q", got)
	}

	// A writer replaces the directory after the marker was read.
	st.proxy.Add(s3test.Fault{Method: "GET", Path: "/run/a", Times: 1, Before: func() {
		for _, n := range []string{"a", "b", "summary.json"} {
			st.srv.Put(t, "evals", "run/"+n, []byte("v2 "+n))
		}
	}})
	if _, _, err := location.FetchDir(ctx, st.mux, mustParse(t, "s3://evals/run"), t.TempDir(), names); !errors.Is(err, location.ErrChanged) {
		t.Fatalf("FetchDir of a directory rewritten meanwhile = %v, want ErrChanged", err)
	}
}

// TestS3RoundTrip: upload, fetch, delete through the real server.
func TestS3RoundTrip(t *testing.T) {
	st := newStore(t)
	st.srv.Bucket(t, "evals")
	ctx := context.Background()
	dir := t.TempDir()
	files := []string{writeFile(t, dir, "x.json", []byte(`{"x":1}`)), writeFile(t, dir, "y.bin", randomBytes(5000, 3))}
	dst := mustParse(t, "s3://evals/p/q")
	if err := location.Upload(ctx, st.mux, dst, files); err != nil {
		t.Fatal(err)
	}
	if got := st.srv.Keys(t, "evals", ""); !slices.Equal(got, []string{"p/q/x.json", "p/q/y.bin"}) {
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
	st.srv.Put(t, "evals", "p/qq", []byte("beside the prefix"))
	if err := location.DeleteAll(ctx, st.mux, dst); err != nil {
		t.Fatal(err)
	}
	if got := st.srv.Keys(t, "evals", ""); !slices.Equal(got, []string{"p/qq"}) {
		t.Errorf("keys after DeleteAll(p/q): %v, want [p/qq]", got)
	}
	if st.log.String() != "" {
		t.Errorf("a run without faults logged:\n%s", st.log)
	}
}

// TestS3Credentials: a wrong secret or an unknown access key is an error
// that names neither key; the keys come from the environment only.
func TestS3Credentials(t *testing.T) {
	st := newStore(t)
	st.srv.Bucket(t, "evals")
	st.srv.Put(t, "evals", "obj", []byte("x"))
	for _, c := range []struct{ name, env, value string }{
		{"wrong secret", "AWS_SECRET_ACCESS_KEY", "WRONG" + st.srv.SecretKey},
		{"unknown key id", "AWS_ACCESS_KEY_ID", st.srv.AccessKey + "X"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			_, err := location.Download(context.Background(), st.mux, mustParse(t, "s3://evals/obj"), t.TempDir())
			if !errors.Is(err, location.ErrUnreadable) {
				t.Fatalf("Download = %v, want ErrUnreadable", err)
			}
			for _, key := range []string{st.srv.SecretKey, st.srv.AccessKey, c.value} {
				if strings.Contains(err.Error(), key) || strings.Contains(st.log.String(), key) {
					t.Errorf("a key reached the error or the log: %v", err)
				}
			}
			t.Log(err)
		})
	}
}
