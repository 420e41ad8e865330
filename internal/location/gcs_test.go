package location_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/internal/gcstest"
	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/internal/s3test"
)

// TestGCSFaults moves objects through a GCS emulator while the proxy in
// front of it breaks requests: every fault either leaves the bytes exact
// or fails with an error, never a partial object under the final name,
// and every retry is in the log. Before GCSOpener, one 503 or one reset
// of an upload failed it.
func TestGCSFaults(t *testing.T) {
	// large takes a resumable upload in chunks of 16 MiB (POSTs to the
	// session's URL, whose query holds upload_id); the rest, one POST.
	const small, large = 300_000, 20 << 20
	for _, c := range []faultCase{
		{"503 twice on upload", small, true, s3test.Fault{Method: "POST", Status: 503, Times: 2}, nil, "WriteObject gs://evals failed, retrying", 2},
		{"429 on upload", small, true, s3test.Fault{Method: "POST", Status: 429, Times: 1}, nil, "WriteObject gs://evals failed, retrying", 1},
		{"reset mid-upload", small, true, s3test.Fault{Method: "POST", Reset: true, After: 100_000, Times: 1}, nil, "WriteObject gs://evals/dir/obj failed, retrying", 1},
		{"reset mid-upload of a chunk", large, true, s3test.Fault{Method: "POST", Query: "upload_id", Reset: true, After: 1 << 20, Times: 2}, nil, "WriteObject gs://evals/dir/obj failed, retrying", 2},
		{"500 on download", small, false, s3test.Fault{Method: "GET", Status: 500, Times: 1}, nil, "ReadObject gs://evals/dir/obj failed, retrying", 1},
		// The storage client resumes a broken read from the same
		// generation by itself, without telling: nothing to log.
		{"reset mid-download, twice", small, false, s3test.Fault{Method: "GET", Reset: true, After: 70_000, Times: 2}, nil, "", 0},
		{"slow store", small, false, s3test.Fault{Delay: 300 * time.Millisecond}, nil, "", 0},
		{"upload reset every time", small, true, s3test.Fault{Method: "POST", Reset: true, After: 1000}, location.ErrUnreadable, "(at most 3 attempts)", 2},
		{"a chunk reset every time", large, true, s3test.Fault{Method: "POST", Query: "upload_id", Reset: true, After: 1000}, location.ErrUnreadable, "WriteObject gs://evals/dir/obj failed", 2},
		{"503 every time on download", small, false, s3test.Fault{Method: "GET", Status: 503}, location.ErrUnreadable, "ReadObject gs://evals/dir/obj failed", 2},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, newGCSStore(t, 3)) })
	}
}

// TestGCSCredentials: without the emulator, gs:// takes Google's
// Application Default Credentials. None is an error at once that says how
// to provide them (gcsblob's own opener printed a warning on stdout and
// went on); a key file whose key is unusable fails without the key in the
// error or the log. Neither reaches the network: the credentials fail
// before a request is sent.
func TestGCSCredentials(t *testing.T) {
	srv := gcstest.Start(t) // for its environment and key file only
	srv.SetEnv(t, srv.Endpoint)
	t.Setenv(gcstest.EmulatorEnv, "")
	log := new(logLines)
	for _, c := range []struct {
		name, keyFile string
		want          []string // in the error
	}{
		{"no key file", filepath.Join(t.TempDir(), "missing.json"), []string{"no Google credentials", "GOOGLE_APPLICATION_CREDENTIALS", "gs://evals"}},
		{"a key that is not one", srv.KeyFile, []string{"gs://evals/obj"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", c.keyFile)
			mux := location.NewURLMux(location.MuxOptions{Log: log.add, MaxAttempts: 2})
			_, err := location.Download(context.Background(), mux, mustParse(t, "gs://evals/obj"), t.TempDir())
			if !errors.Is(err, location.ErrUnreadable) {
				t.Fatalf("Download = %v, want ErrUnreadable", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error lacks %q: %v", w, err)
				}
			}
			if strings.Contains(err.Error(), srv.Secret) || strings.Contains(log.String(), srv.Secret) {
				t.Errorf("the private key reached the error or the log: %v", err)
			}
			t.Log(err)
		})
	}
}
