// Package longtest says whether the long forms of tests run: the
// full-size checks that `scripts/test` leaves out of its default run,
// which stays within minutes, and that `scripts/test --long` and CI run
// (AEM_TEST_LONG=1). A test that shrinks by default still exercises every
// code path it covers; its long form only adds size or repetitions.
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long forms on.
const Env = "AEM_TEST_LONG"

// Enabled reports whether the long forms of tests run (Env=1).
func Enabled() bool { return os.Getenv(Env) == "1" }

// Require skips t unless the long forms run, saying what it would check
// and how to run it.
func Require(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skipf("%s: a long test; run it with %s=1 (scripts/test --long, as CI does)", what, Env)
	}
}
