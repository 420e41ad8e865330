package location

import (
	"strings"
	"testing"
)

func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"out", "/abs/dir", "file:///tmp/x", "file://rel/x", "s3://bucket/a/b?region=eu", "gs://b", "mem://", "::", "s3://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(s)
		if err != nil {
			return
		}
		if l.Remote() {
			if l.BucketURL == "" || strings.HasPrefix(l.Key, "/") {
				t.Fatalf("Parse(%q) = %+v", s, l)
			}
		} else if l.Local == "" && s != "" {
			t.Fatalf("Parse(%q) = %+v: no path", s, l)
		}
	})
}

// FuzzReadRunCorrupt corrupts the bytes of a run's turns.parquet: ReadRun
// and iterating must fail cleanly, never panic or loop.
