package hometest

import (
	"testing"

	"github.com/aem-dev/aem/internal/s3test"
)

// recorder is a testing.TB that records how Missing ended the test.
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Skipf(string, ...any)  { r.skipped = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		env          string
		skip, failed bool
	}{{"", true, false}, {"0", true, false}, {"1", false, true}} {
		t.Setenv(RequireEnv, tc.env)
		r := &recorder{TB: t}
		Missing(r, "model not installed at %s", "x")
		if r.skipped != tc.skip || r.failed != tc.failed {
			t.Errorf("%s=%q: skipped %v failed %v, want %v %v", RequireEnv, tc.env, r.skipped, r.failed, tc.skip, tc.failed)
		}
	}
}

// TestS3ServerSwitch: the S3 test server (a layer below, so it cannot
// import this package) obeys the same switch.
func TestS3ServerSwitch(t *testing.T) {
	if s3test.RequireEnv != RequireEnv {
		t.Errorf("s3test.RequireEnv = %q, want %q", s3test.RequireEnv, RequireEnv)
	}
}
