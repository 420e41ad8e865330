package storetest

import (
	"testing"

	"github.com/aem-dev/aem/internal/gcstest"
	"github.com/aem-dev/aem/internal/s3test"
)

// Bucket is the bucket Start makes.
const Bucket = "evals"

// Objects is how a test sets up and inspects a store behind aem's back;
// s3test.Server and gcstest.Server both are.
type Objects interface {
	Put(t testing.TB, bucket, key string, data []byte)
	Get(t testing.TB, bucket, key string) ([]byte, bool)
	Keys(t testing.TB, bucket, prefix string) []string
}

// Remote is a real object store behind a fault proxy.
type Remote struct {
	Scheme  string // "s3" or "gs"
	Objects Objects
	// S3 is the S3 server, for S3's own checks (unfinished uploads, its
	// keys); nil for GCS.
	S3    *s3test.Server
	Proxy *s3test.Proxy
}

// Start starts the store of scheme ("s3": an S3 server, skipping the test
// without one; "gs": a GCS emulator), a fault proxy in front of it, points
// this process's environment at the proxy (t.Setenv) and makes Bucket.
func Start(t *testing.T, scheme string) Remote {
	t.Helper()
	r := Remote{Scheme: scheme}
	switch scheme {
	case "s3":
		srv := s3test.Start(t)
		r.Objects, r.S3 = srv, srv
		r.Proxy = s3test.NewProxy(t, srv.Endpoint)
		srv.SetEnv(t, r.Proxy.URL)
		srv.Bucket(t, Bucket)
	case "gs":
		srv := gcstest.Start(t)
		r.Objects = srv
		r.Proxy = s3test.NewProxy(t, srv.Endpoint)
		srv.SetEnv(t, r.Proxy.URL)
		srv.Bucket(t, Bucket)
	default:
		t.Fatalf("storetest: no store of scheme %q (want s3 or gs)", scheme)
	}
	return r
}

// URL is the URL of key in Bucket.
func (r Remote) URL(key string) string { return r.Scheme + "://" + Bucket + "/" + key }
