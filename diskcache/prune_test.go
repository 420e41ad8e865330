package diskcache

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// filled writes a cache of keys 0..1199 in segments of 64 KiB, the first
// segments dated days ago, and returns its directory and its segments.
func filled(t *testing.T) (dir string, segs []uint32) {
	t.Helper()
	dir = t.TempDir()
	c := open(t, dir, 1<<30)
	c.segSize = 64 << 10
	for i := 0; i < 1200; i += 100 {
		put(t, c, i, i+100)
	}
	segs = append([]uint32(nil), c.order...)
	c.Close()
	if len(segs) < 4 {
		t.Fatalf("only %d segments", len(segs))
	}
	// The oldest half: last written 40 days ago; the rest now.
	for _, seq := range segs[:len(segs)/2] {
		old := time.Now().Add(-40 * 24 * time.Hour)
		if err := os.Chtimes(filepath.Join(dir, segName(seq)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	return dir, segs
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name     string
		opts     PruneOptions
		segsLeft func(all int) int
	}{
		{"nothing asked", PruneOptions{}, func(all int) int { return all }},
		{"older than 30 days", PruneOptions{Before: time.Now().Add(-30 * 24 * time.Hour)}, func(all int) int { return all - all/2 }},
		{"older than a year", PruneOptions{Before: time.Now().Add(-365 * 24 * time.Hour)}, func(all int) int { return all }},
		{"everything older than tomorrow, the segment in use too", PruneOptions{Before: time.Now().Add(24 * time.Hour)}, func(int) int { return 0 }},
		{"to 150 KiB", PruneOptions{MaxBytes: 150 << 10}, func(int) int { return 2 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, segs := filled(t)
			before := dirBytes(t, dir)
			p, err := Prune(dir, tt.opts, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.segsLeft(len(segs))
			if p.SegmentsLeft != want || p.Segments != len(segs)-want {
				t.Errorf("deleted %d, left %d segments; want %d left of %d", p.Segments, p.SegmentsLeft, want, len(segs))
			}
			if tt.opts.MaxBytes > 0 && p.BytesLeft > tt.opts.MaxBytes {
				t.Errorf("%d bytes left, over %d", p.BytesLeft, tt.opts.MaxBytes)
			}
			if p.Bytes+p.BytesLeft > before || p.Entries+p.EntriesLeft != 1200 {
				t.Errorf("freed %d + left %d bytes of %d; forgot %d + kept %d entries of 1200", p.Bytes, p.BytesLeft, before, p.Entries, p.EntriesLeft)
			}
			// What is left still reads, the newest entries first to stay.
			c := open(t, dir, 1<<30)
			defer c.Close()
			if b, n := c.Size(); b != p.BytesLeft || n != p.EntriesLeft {
				t.Errorf("reopened: %d bytes, %d entries; Prune said %d, %d", b, n, p.BytesLeft, p.EntriesLeft)
			}
			if found, _ := lookup(t, c, 1100, 1200); want > 0 && found != 100 {
				t.Errorf("the newest 100 entries: %d found", found)
			}
			put(t, c, 5000, 5010) // and takes new ones
			if found, _ := lookup(t, c, 5000, 5010); found != 10 {
				t.Errorf("after the prune a Put stored %d of 10", found)
			}
		})
	}
}

func TestPruneNoCacheAndLocked(t *testing.T) {
	if p, err := Prune(filepath.Join(t.TempDir(), "none"), PruneOptions{MaxBytes: 1}, time.Second); err != nil || p != (Pruned{}) {
		t.Errorf("a missing directory: %+v, %v", p, err)
	}
	dir, _ := filled(t)
	c := open(t, dir, 1<<30)
	defer c.Close()
	if _, err := Prune(dir, PruneOptions{MaxBytes: 1}, 50*time.Millisecond); !errors.Is(err, ErrLocked) {
		t.Errorf("a cache in use: err = %v, want ErrLocked", err)
	}
}

func TestDirUsage(t *testing.T) {
	dir, segs := filled(t)
	u, err := DirUsage(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := open(t, dir, 1<<30)
	b, _ := c.Size()
	c.Close()
	if u.Bytes != b || u.Segments != len(segs) {
		t.Errorf("DirUsage %+v; Size says %d bytes, %d segments", u, b, len(segs))
	}
	if age := time.Since(u.Oldest); age < 39*24*time.Hour || time.Since(u.Newest) > time.Hour {
		t.Errorf("oldest %v, newest %v", u.Oldest, u.Newest)
	}
	if u, err := DirUsage(filepath.Join(dir, "none")); err != nil || u != (Usage{}) {
		t.Errorf("a missing directory: %+v, %v", u, err)
	}
}
