package main

import (
	"fmt"
	"io"

	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/judge"
)

// The persistent caches (embedding, judge) are an optimisation: nothing in
// them stops a run, and what they could not do is said on stderr, with
// --quiet too: what opening one found (files moved aside, bytes skipped,
// an earlier release's file) when it opens, records that failed their
// checks and writes that failed (a full disk) when the run ends.

// printCacheNotices prints what opening the what cache found, a warning a
// line.
func printCacheNotices(w io.Writer, what string, notices []string) {
	for _, n := range notices {
		fmt.Fprintf(w, "aem: warning: the %s cache: %s\n", what, n)
	}
}

// cacheTroubles words the counts of a cache's failed checks and failed
// writes (diskcache reads fail only once it is closed: never during a
// run); again says what became of a record that failed.
func cacheTroubles(what, dir string, corrupt, failed int64, last, again string) (lines []string) {
	if corrupt > 0 {
		lines = append(lines, fmt.Sprintf("the %s cache %s: %d records failed their checks and %s", what, dir, corrupt, again))
	}
	if failed > 0 {
		lines = append(lines, fmt.Sprintf("the %s cache %s: %d writes failed; the run went on without storing them (last: %s)", what, dir, failed, last))
	}
	return lines
}

// embedCacheTroubles reports e's cache troubles (call it after e.Close:
// the last writes happen there).
func embedCacheTroubles(e *embed.Embedder) func() []string {
	return func() []string {
		st := e.Stats()
		return cacheTroubles("embedding", st.CacheDir, st.CacheCorrupt, st.CacheErrors, st.CacheLastError, "were embedded again")
	}
}

// judgeCacheTroubles reports j's cache troubles.
func judgeCacheTroubles(j *judge.Judge) []string {
	st := j.Stats()
	return cacheTroubles("judge", st.CacheDir, st.CacheCorrupt, st.CacheErrors, st.CacheLastError, "were asked for again")
}
