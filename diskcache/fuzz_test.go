package diskcache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCacheFile feeds arbitrary bytes as a cache's segment file and index
// file: Open never fails or crashes on them, every payload Get returns is
// the one stored for the key asked (keyOf(i) -> val(i)), and entries
// stored afterwards read back after reopening. The seeds are real files
// (records of keys 0-19), whole, cut short and with flipped bytes.
func FuzzCacheFile(f *testing.F) {
	seg, idx := seedFiles(f)
	f.Add(seg, idx)
	f.Add(seg, []byte(nil))
	f.Add(seg[:len(seg)/2], idx)
	f.Add(seg[:segHeader+recHeader+5], []byte(nil))
	flipped := bytes.Clone(seg)
	for i := segHeader + 7; i < len(flipped); i += 311 {
		flipped[i] ^= 0x55
	}
	f.Add(flipped, idx)
	f.Add(append(bytes.Clone(seg), seg[segHeader:]...), idx) // every record twice
	f.Add([]byte(segMagic), []byte(idxMagic))
	f.Fuzz(func(t *testing.T, seg, idx []byte) {
		dir := memDir(t)
		if err := os.WriteFile(filepath.Join(dir, segName(1)), seg, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(idx) > 0 {
			if err := os.WriteFile(filepath.Join(dir, idxName(1)), idx, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, err := Open(dir, Options{MaxBytes: 1 << 30})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		lookup(t, c, 0, 30) // fails on any payload that is not its key's
		put(t, c, 30, 40)
		if found, _ := lookup(t, c, 0, 40); found < 10 {
			t.Fatalf("%d found after storing 10", found)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		c = open(t, dir, 1<<30)
		defer c.Close()
		if found, _ := lookup(t, c, 30, 40); found != 10 {
			t.Fatalf("reopened: %d of the 10 entries stored after the damage; notices %q", found, c.Notices())
		}
		lookup(t, c, 0, 30)
	})
}

// seedFiles returns the segment and index files of a cache holding keys
// 0-19.
func seedFiles(f *testing.F) (seg, idx []byte) {
	dir := f.TempDir()
	c := open(f, dir, 1<<30)
	put(f, c, 0, 20)
	if err := c.Close(); err != nil {
		f.Fatal(err)
	}
	seg, err := os.ReadFile(filepath.Join(dir, segName(1)))
	if err != nil {
		f.Fatal(err)
	}
	idx, err = os.ReadFile(filepath.Join(dir, idxName(1)))
	if err != nil {
		f.Fatal(err)
	}
	return seg, idx
}

// memDir is a temporary directory in memory (/dev/shm) where there is one:
// an iteration syncs files several times, a few ms each on a disk.
func memDir(t *testing.T) string {
	dir, err := os.MkdirTemp("/dev/shm", "aem-diskcache-fuzz-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
