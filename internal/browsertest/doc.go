// Package browsertest drives a real headless Chromium from tests, for the
// HTML pages aem writes (the run report, the review page). [Open] starts
// one for a test, or skips the test with how to install it; a [Page]
// records what the page logged and every network request it made, so a
// test can assert that a self-contained page fetched nothing.
//
// The browser is Debian's chromium (scripts/setup installs it where it
// can: apt-get install chromium), or the one named by AEM_CHROMIUM. It
// runs headless with a fresh profile and without background networking,
// so that it makes no request of its own.
package browsertest
