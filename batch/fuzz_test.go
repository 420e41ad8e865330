package batch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "a/b", "1", "0/0", " 2 / 9 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := ParseShard(s)
		if err != nil {
			return
		}
		if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("ParseShard(%q) accepted %v", s, sh)
		}
		back, err := ParseShard(sh.String())
		if err != nil || back != sh {
			t.Fatalf("round trip of %v: %v %v", sh, back, err)
		}
	})
}

func FuzzParseLocation(f *testing.F) {
	for _, s := range []string{"out", "/abs/dir", "file:///tmp/x", "file://rel/x", "s3://bucket/a/b?region=eu", "gs://b", "mem://", "::", "s3://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := parseLocation(s)
		if err != nil {
			return
		}
		if l.remote() {
			if l.bucketURL == "" || strings.HasPrefix(l.key, "/") {
				t.Fatalf("parseLocation(%q) = %+v", s, l)
			}
		} else if l.local == "" && s != "" {
			t.Fatalf("parseLocation(%q) = %+v: no path", s, l)
		}
	})
}

// FuzzReadRunCorrupt corrupts the bytes of a run's turns.parquet: ReadRun
// and iterating must fail cleanly, never panic or loop.
func FuzzReadRunCorrupt(f *testing.F) {
	dir := f.TempDir()
	in := writeGolden(f, dir, genDialogs(8, 20))
	src := filepath.Join(dir, "src")
	mustRun(f, baseOptions(in, src))
	turns := readFile(f, filepath.Join(src, TurnsFile))
	summary := readFile(f, filepath.Join(src, SummaryFile))
	dialogs := readFile(f, filepath.Join(src, DialogsFile))
	f.Add(uint32(100), byte(0xff), uint32(0))
	f.Add(uint32(len(turns)-20), byte(0x01), uint32(0))
	f.Add(uint32(4), byte(0x10), uint32(len(turns)/2))
	f.Fuzz(func(t *testing.T, at uint32, xor byte, cut uint32) {
		d := t.TempDir()
		b := append([]byte(nil), turns...)
		b[int(at)%len(b)] ^= xor
		if cut > 0 {
			b = b[:len(b)-int(cut)%len(b)]
		}
		os.WriteFile(filepath.Join(d, TurnsFile), b, 0o644)
		os.WriteFile(filepath.Join(d, DialogsFile), dialogs, 0o644)
		os.WriteFile(filepath.Join(d, SummaryFile), summary, 0o644)
		rd, err := ReadRun(context.Background(), d)
		if err != nil {
			return
		}
		defer rd.Close()
		n := 0
		for _, err := range rd.Turns(context.Background()) {
			if err != nil {
				return
			}
			n++
		}
		if n > rd.Summary.Turns {
			t.Fatalf("read %d turns, summary says %d", n, rd.Summary.Turns)
		}
	})
}
