package location_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
)

// TestS3Faults moves objects through a real S3 server while the proxy in
// front of it breaks requests: every fault either leaves the bytes exact
// or fails with an error, never a partial object under the final name,
// and every retry is in the log.
func TestS3Faults(t *testing.T) {
	// large takes a multipart upload (from 16 MiB, in parts of 8 MiB)
	const small, medium, large = 300_000, 3 << 20, 17 << 20
	for _, c := range []faultCase{
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
		t.Run(c.name, func(t *testing.T) { c.run(t, newS3Store(t, 3)) })
	}
}

// TestS3Credentials: a wrong secret or an unknown access key is an error
// that names neither key; the keys come from the environment only.
func TestS3Credentials(t *testing.T) {
	st := newS3Store(t, 0)
	st.Objects.Put(t, "evals", "obj", []byte("x"))
	for _, c := range []struct{ name, env, value string }{
		{"wrong secret", "AWS_SECRET_ACCESS_KEY", "WRONG" + st.S3.SecretKey},
		{"unknown key id", "AWS_ACCESS_KEY_ID", st.S3.AccessKey + "X"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.env, c.value)
			_, err := location.Download(context.Background(), st.mux, mustParse(t, "s3://evals/obj"), t.TempDir())
			if !errors.Is(err, location.ErrUnreadable) {
				t.Fatalf("Download = %v, want ErrUnreadable", err)
			}
			for _, key := range []string{st.S3.SecretKey, st.S3.AccessKey, c.value} {
				if strings.Contains(err.Error(), key) || strings.Contains(st.log.String(), key) {
					t.Errorf("a key reached the error or the log: %v", err)
				}
			}
			t.Log(err)
		})
	}
}
