// Package hometest is for tests that need what scripts/setup installs (the
// ONNX Runtime library, the models, the cached npm tarballs). Such a test
// skips when the install is absent, so `go test ./...` works on a bare
// checkout; scripts/test sets RequireEnv, and then a missing install fails
// the test instead, so a broken set-up can never pass CI by skipping.
package hometest

import (
	"os"
	"testing"
)

// RequireEnv names the environment variable that turns a missing install
// from a skip into a failure ("1" does; scripts/test sets it).
const RequireEnv = "AEM_TEST_REQUIRE_INSTALL"

// Required reports whether tests must find the install (RequireEnv is "1").
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing reports that what the test needs is not installed: it skips the
// test with the message, or fails it when Required.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format+" ("+RequireEnv+"=1: the install is required)", args...)
		return
	}
	t.Skipf(format, args...)
}
