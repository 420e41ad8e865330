package diskcache

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// val is key i's payload: 16 to 2,063 bytes that name i.
func val(i int) []byte {
	b := make([]byte, 16+(i*37)%2048)
	copy(b, fmt.Sprintf("value %08d", i))
	for j := 14; j < len(b); j++ {
		b[j] = byte(i + j)
	}
	return b
}

func keyOf(i int) [32]byte { return Key("test", strconv.Itoa(i)) }

func open(t testing.TB, dir string, maxBytes int64) *Cache {
	t.Helper()
	c, err := Open(dir, Options{MaxBytes: maxBytes, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// put stores keys lo..hi-1 with their payloads, in one Put.
func put(t testing.TB, c *Cache, lo, hi int) {
	t.Helper()
	var keys [][32]byte
	var vals [][]byte
	for i := lo; i < hi; i++ {
		keys, vals = append(keys, keyOf(i)), append(vals, val(i))
	}
	if err := c.Put(keys, vals); err != nil {
		t.Fatal(err)
	}
}

// lookup gets keys lo..hi-1 and fails the test on any payload that is not
// the one stored for its key (a miss is fine); it returns how many were
// found and how many failed their checks.
func lookup(t testing.TB, c *Cache, lo, hi int) (found, corrupt int) {
	t.Helper()
	var keys [][32]byte
	for i := lo; i < hi; i++ {
		keys = append(keys, keyOf(i))
	}
	var wrong []string
	corrupt, err := c.Get(keys, func(i int, p []byte) bool {
		if !bytes.Equal(p, val(lo+i)) {
			wrong = append(wrong, fmt.Sprintf("key %d: a payload of %d bytes that is not the one stored (%q...)", lo+i, len(p), p[:min(len(p), 16)]))
		}
		found++
		return true
	})
	if err != nil || len(wrong) > 0 {
		t.Fatal(err, wrong)
	}
	return found, corrupt
}

func TestKeySeparatesParts(t *testing.T) {
	if Key("ab", "c") == Key("a", "bc") || Key("a") == Key("a", "") {
		t.Fatal("different part lists share a key")
	}
	if Key("a", "b") != Key("a", "b") {
		t.Fatal("Key is not deterministic")
	}
}

// Payloads round-trip, across Close and Open, across segments, and a key
// stored again reads back its newest payload.
func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<20) // 64 KiB segments: several
	put(t, c, 0, 300)
	put(t, c, 300, 600)
	if found, corrupt := lookup(t, c, 0, 700); found != 600 || corrupt != 0 {
		t.Fatalf("found %d, corrupt %d; want 600, 0", found, corrupt)
	}
	newer := []byte("a newer payload")
	if err := c.Put([][32]byte{keyOf(5)}, [][]byte{newer}); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := c.Get([][32]byte{keyOf(1)}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v, want ErrClosed", err)
	}
	c = open(t, dir, 1<<20)
	defer c.Close()
	if n := len(c.order); n < 3 {
		t.Errorf("%d segments, want several", n)
	}
	if notes := c.Notices(); len(notes) > 0 {
		t.Errorf("a clean reopen has notices: %q", notes)
	}
	var got []byte
	if _, err := c.Get([][32]byte{keyOf(5)}, func(_ int, p []byte) bool { got = bytes.Clone(p); return true }); err != nil || !bytes.Equal(got, newer) {
		t.Fatalf("key 5 after reopening: %q, %v; want %q", got, err, newer)
	}
	if found, corrupt := lookup(t, c, 6, 600); found != 594 || corrupt != 0 {
		t.Fatalf("after reopening: found %d, corrupt %d", found, corrupt)
	}
	if err := c.Put([][32]byte{keyOf(1)}, nil); err == nil {
		t.Error("Put accepted 1 key with 0 payloads")
	}
	if _, err := Open(t.TempDir(), Options{}); err == nil {
		t.Error("Open accepted a bound of 0 bytes")
	}
	if err := c.Put([][32]byte{keyOf(1)}, [][]byte{make([]byte, MaxPayload+1)}); err == nil {
		t.Error("Put accepted a payload over MaxPayload")
	}
}

// The files stay within the bound: the oldest segments go, the newest
// entries stay, and an Open with a smaller bound evicts at once.
func TestEviction(t *testing.T) {
	dir := t.TempDir()
	const bound = 1 << 20
	c := open(t, dir, bound)
	for i := 0; i < 2000; i += 50 {
		put(t, c, i, i+50)
		if b, _ := c.Size(); b > bound {
			t.Fatalf("after %d entries: %d bytes, over the bound %d", i+50, b, bound)
		}
	}
	found, _ := lookup(t, c, 1900, 2000)
	old, _ := lookup(t, c, 0, 100)
	if found != 100 || old != 0 {
		t.Errorf("newest 100: %d found; oldest 100: %d found; want 100 and 0", found, old)
	}
	if b, _ := c.Size(); b < bound*3/4 {
		t.Errorf("%d bytes after eviction: evicted far more than needed (bound %d)", b, bound)
	}
	c.Close()
	if b := dirBytes(t, dir); b > bound+4<<10 {
		t.Errorf("the files hold %d bytes, over the bound %d", b, bound)
	}
	c = open(t, dir, bound/4)
	defer c.Close()
	if b, _ := c.Size(); b > bound/4 {
		t.Errorf("reopened with a quarter of the bound: %d bytes", b)
	}
	if found, _ := lookup(t, c, 1990, 2000); found == 0 {
		t.Error("the newest entries went with the smaller bound")
	}
}

// dirBytes is the size of the files in dir.
func dirBytes(t *testing.T, dir string) (n int64) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		n += info.Size()
	}
	return n
}

// A record whose bytes changed is a miss, counted, and stored again by the
// next Put; a payload its user refuses counts as corrupt too.
func TestDamagedRecordIsAMiss(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	put(t, c, 0, 10)
	for _, i := range []int{2, 7} {
		k := keyOf(i)
		seq, off := splitLoc(c.index[prefix(k[:])])
		flip(t, filepath.Join(dir, segName(seq)), off+recHeader+3)
	}
	found, corrupt := lookup(t, c, 0, 10)
	if found != 8 || corrupt != 2 {
		t.Fatalf("found %d, corrupt %d; want 8 and 2", found, corrupt)
	}
	if found, corrupt = lookup(t, c, 0, 10); found != 8 || corrupt != 0 {
		t.Fatalf("again: found %d, corrupt %d; want 8 and 0 (a damaged record is counted once)", found, corrupt)
	}
	if n, err := c.Get([][32]byte{keyOf(3)}, func(int, []byte) bool { return false }); err != nil || n != 1 {
		t.Errorf("refused payload: corrupt %d, %v", n, err)
	}
	put(t, c, 0, 10)
	if found, corrupt = lookup(t, c, 0, 10); found != 10 || corrupt != 0 {
		t.Fatalf("after storing them again: found %d, corrupt %d", found, corrupt)
	}
	c.Close()
	c = open(t, dir, 1<<30)
	defer c.Close()
	if found, corrupt = lookup(t, c, 0, 10); found != 10 || corrupt != 0 {
		t.Fatalf("reopened: found %d, corrupt %d", found, corrupt)
	}
	if good, bad, err := c.Check(); err != nil || good != 10 || bad != 0 {
		t.Errorf("Check: %d good, %d bad, %v", good, bad, err)
	}
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[off] ^= 0x20
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Whatever happens to the files between runs, Open succeeds, every payload
// returned is the one stored for its key, what cannot be used is moved
// aside (never deleted) with a notice, and storing the entries again
// makes the cache whole.
func TestDamagedFiles(t *testing.T) {
	const n = 800 // about 0.8 MB: several 128 KiB segments
	edit := func(fn func(b []byte) []byte) func(t *testing.T, path string) {
		return func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, fn(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	flipMany := func(from int) func([]byte) []byte {
		return func(b []byte) []byte {
			r := rand.New(rand.NewPCG(1, uint64(len(b))))
			for range 2000 {
				b[from+r.IntN(len(b)-from)] ^= 0xff
			}
			return b
		}
	}
	tests := []struct {
		name   string
		file   string // which file of each kind: "seg", "idx" or "all"
		damage func(t *testing.T, path string)
		notice string // a notice must contain it ("": no notice needed)
		aside  string // "some": a file moved aside, "none": none, "": either
		lost   bool   // entries may be lost (else all survive)
	}{
		{"segments cut to half", "seg", edit(func(b []byte) []byte { return b[:len(b)/2] }), "", "", true},
		{"2,000 bytes flipped in segments", "seg", edit(flipMany(segHeader)), "", "none", true},
		{"indexes cut to half", "idx", edit(func(b []byte) []byte { return b[:len(b)/2] }), "could not be used", "none", false},
		{"2,000 bytes flipped in indexes", "idx", edit(flipMany(0)), "could not be used", "none", false},
		{"indexes deleted", "idx", func(t *testing.T, p string) { os.Remove(p) }, "", "none", false},
		{"indexes emptied", "idx", edit(func([]byte) []byte { return nil }), "could not be used", "none", false},
		{"segment headers overwritten", "seg", edit(func(b []byte) []byte { copy(b, "XXXXXXXXXXXXXXXX"); return b }), "moved aside", "some", true},
		{"segments emptied", "seg", edit(func([]byte) []byte { return nil }), "moved aside", "some", true},
		{"everything cut to half", "all", edit(func(b []byte) []byte { return b[:len(b)/2] }), "", "", true},
		{"everything random", "all", edit(func(b []byte) []byte {
			r := rand.New(rand.NewPCG(2, 3))
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		}), "moved aside", "some", true},
		{"records garbled past the first segment", "seg", func(t *testing.T, p string) {
			if strings.HasSuffix(p, segName(1)) {
				return
			}
			edit(flipMany(segHeader))(t, p)
		}, "", "none", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			c := open(t, dir, 1<<30)
			c.segSize = 128 << 10 // several segments
			for i := 0; i < n; i += 100 {
				put(t, c, i, i+100)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				_, ext, ok := parseName(e.Name())
				if ok && (tt.file == "all" || ext == "."+tt.file) {
					tt.damage(t, filepath.Join(dir, e.Name()))
				}
			}
			c = open(t, dir, 1<<30)
			notes := strings.Join(c.Notices(), "\n")
			if !strings.Contains(notes, tt.notice) {
				t.Errorf("notices %q; want one containing %q", notes, tt.notice)
			}
			found, corrupt := lookup(t, c, 0, n)
			if !tt.lost && (found != n || corrupt != 0) {
				t.Errorf("found %d (%d corrupt); want all %d", found, corrupt, n)
			}
			if tt.lost && (found == n || (corrupt == 0 && notes == "")) {
				t.Errorf("found %d of %d, %d corrupt, notices %q: want entries lost, and the loss reported", found, n, corrupt, notes)
			}
			asides, _ := filepath.Glob(filepath.Join(dir, "*"+corruptExt+"*"))
			if (tt.aside == "some" && len(asides) == 0) || (tt.aside == "none" && len(asides) > 0) {
				t.Errorf("moved aside: %q; want %s", asides, tt.aside)
			}
			put(t, c, 0, n)
			if found, corrupt := lookup(t, c, 0, n); found != n || corrupt != 0 {
				t.Errorf("after storing again: found %d, corrupt %d", found, corrupt)
			}
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			c = open(t, dir, 1<<30)
			defer c.Close()
			if found, corrupt := lookup(t, c, 0, n); found != n || corrupt != 0 {
				t.Errorf("reopened after storing again: found %d, corrupt %d; notices %q", found, corrupt, c.Notices())
			}
		})
	}
}

// With DiscardCorrupt a segment that cannot be read is deleted, and the
// notice says so.
func TestDiscardCorrupt(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	put(t, c, 0, 10)
	c.Close()
	seg := filepath.Join(dir, segName(1))
	if err := os.WriteFile(seg, []byte("not a segment"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Open(dir, Options{MaxBytes: 1 << 30, DiscardCorrupt: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if notes := strings.Join(c.Notices(), "\n"); !strings.Contains(notes, seg) || !strings.Contains(notes, "deleted") {
		t.Errorf("notices %q; want one saying %s was deleted", notes, seg)
	}
	if fileExists(seg) {
		t.Errorf("%s still there", seg)
	}
	put(t, c, 0, 10)
	if found, _ := lookup(t, c, 0, 10); found != 10 {
		t.Errorf("found %d after storing again", found)
	}
}

// A second Open waits for the lock, fails with ErrLocked naming the
// holder's pid after the timeout, and succeeds once the holder closes.
func TestLocked(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<20)
	start := time.Now()
	_, err := Open(dir, Options{MaxBytes: 1 << 20, LockTimeout: 100 * time.Millisecond})
	want := fmt.Sprintf("pid %d", os.Getpid())
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), want) {
		t.Fatalf("second open: %v; want ErrLocked naming %s and %s", err, dir, want)
	}
	if d := time.Since(start); d < 100*time.Millisecond || d > 5*time.Second {
		t.Errorf("waited %v for a 100ms timeout", d)
	}
	done := make(chan error, 1)
	go func() {
		c2, err := Open(dir, Options{MaxBytes: 1 << 20, LockTimeout: 10 * time.Second})
		if err == nil {
			err = c2.Close()
		}
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	c.Close()
	if err := <-done; err != nil {
		t.Fatalf("a waiting Open after the holder closed: %v", err)
	}
}

// Concurrent Gets and Puts (the embedder's sessions and its writer) see
// only whole, correct entries.
func TestConcurrentUse(t *testing.T) {
	c := open(t, t.TempDir(), 2<<20) // 128 KiB segments: rotation and eviction while reading
	defer c.Close()
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := 0; i < 1200; i += 40 {
				put(t, c, w*10000+i, w*10000+i+40)
				lookup(t, c, w*10000, w*10000+i)
			}
		})
	}
	wg.Wait()
}

// A write that fails (here: the segment can no longer be written) is
// returned, changes nothing, and the cache goes on: what it held is still
// read, and later writes go to a new segment.
func TestFailedWrite(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	defer c.Close()
	put(t, c, 0, 10)
	s := c.active
	ro, err := os.Open(s.f.Name())
	if err != nil {
		t.Fatal(err)
	}
	rw := s.f
	s.f = ro
	err = c.Put([][32]byte{keyOf(10)}, [][]byte{val(10)})
	if err == nil || !strings.Contains(err.Error(), segName(s.seq)) {
		t.Fatalf("Put on a segment that cannot be written: %v; want an error naming it", err)
	}
	s.f = rw
	ro.Close()
	if found, corrupt := lookup(t, c, 0, 11); found != 10 || corrupt != 0 {
		t.Errorf("after the failed write: found %d, corrupt %d", found, corrupt)
	}
	put(t, c, 10, 20)
	if found, _ := lookup(t, c, 0, 20); found != 20 {
		t.Errorf("after writing again: found %d", found)
	}
}

// A full disk (a 256 KiB tmpfs, where the test may mount one): Put
// returns ENOSPC, the entries stored before stay readable, and the cache
// reopens whole.
func TestFullDisk(t *testing.T) {
	dir := mountTiny(t, 256<<10)
	c := open(t, dir, 1<<30)
	var err error
	stored := 0
	for ; stored < 10000; stored += 20 {
		var keys [][32]byte
		var vals [][]byte
		for i := stored; i < stored+20; i++ {
			keys, vals = append(keys, keyOf(i)), append(vals, val(i))
		}
		if err = c.Put(keys, vals); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("filling a 256 KiB file system: %v; want ENOSPC", err)
	}
	if found, corrupt := lookup(t, c, 0, stored); found != stored || corrupt != 0 {
		t.Errorf("after ENOSPC: found %d of %d, corrupt %d", found, stored, corrupt)
	}
	c.Close() // may fail to write the index: the next Open reads the records
	c = open(t, dir, 1<<30)
	defer c.Close()
	if found, _ := lookup(t, c, 0, stored); found != stored {
		t.Errorf("reopened: found %d of %d; notices %q", found, stored, c.Notices())
	}
}

// A process killed in the middle of writing (appending, sealing a
// segment, starting one, deleting the oldest) leaves a cache that opens,
// whose every entry is intact and within the bound; the next writes go on
// from there.
func TestSurvivesKill(t *testing.T) {
	if os.Getenv("AEM_DISKCACHE_WRITER") != "" {
		return // this is the child's copy of the test; the writer is TestCacheWriterChild
	}
	for round := range 2 {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterChild$")
		cmd.Env = append(os.Environ(), "AEM_DISKCACHE_WRITER="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Let it write past the bound (the oldest segments deleted),
		// then kill it.
		deadline := time.Now().Add(60 * time.Second)
		for !fileExists(filepath.Join(dir, segName(uint32(18+9*round)))) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("child never wrote")
			}
			time.Sleep(time.Millisecond)
		}
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		c := open(t, dir, killBound)
		good, bad, err := c.Check()
		if err != nil || good == 0 || bad != 0 {
			t.Fatalf("round %d: %d good, %d bad, %v", round, good, bad, err)
		}
		if found, corrupt := lookup(t, c, 0, 200_000); found < good || corrupt != 0 {
			t.Fatalf("round %d: found %d of %d, corrupt %d", round, found, good, corrupt)
		}
		if b, _ := c.Size(); b > killBound || fileExists(filepath.Join(dir, segName(1))) {
			t.Errorf("round %d: %d bytes (bound %d), segment 1 there: %v; want the oldest deleted", round, b, killBound, fileExists(filepath.Join(dir, segName(1))))
		}
		put(t, c, 300_000, 300_100)
		c.Close()
		c = open(t, dir, killBound)
		if found, _ := lookup(t, c, 300_000, 300_100); found != 100 {
			t.Errorf("round %d: the writes after the kill: found %d of 100", round, found)
		}
		c.Close()
	}
}

// killBound is the bound TestCacheWriterChild writes under: 128 KiB
// segments, the oldest deleted from the 16th on.
const killBound = 2 << 20

// TestCacheWriterChild writes to a cache until killed; it does nothing
// unless started by TestSurvivesKill.
func TestCacheWriterChild(t *testing.T) {
	dir := os.Getenv("AEM_DISKCACHE_WRITER")
	if dir == "" {
		t.Skip("helper process for TestSurvivesKill")
	}
	c := open(t, dir, killBound)
	for i := 0; i < 200_000; i += 64 {
		put(t, c, i, i+64)
	}
	select {}
}

// Open deletes the temporaries of writes cut short (an index, the next
// segment) and nothing else: files it did not make stay as they are.
func TestStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	put(t, c, 0, 10)
	c.Close()
	stale := []string{".tmp-00000001.idx-0a1b2c", ".tmp-00000002.seg-3d4e5f"}
	kept := []string{"notes.txt", ".tmp-something-else", "00000001.seg.corrupt-1"}
	for _, name := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c = open(t, dir, 1<<30)
	defer c.Close()
	for _, name := range stale {
		if fileExists(filepath.Join(dir, name)) {
			t.Errorf("%s left behind", name)
		}
	}
	for _, name := range kept {
		if !fileExists(filepath.Join(dir, name)) {
			t.Errorf("%s deleted: Open deletes only its own temporaries", name)
		}
	}
	if found, _ := lookup(t, c, 0, 10); found != 10 {
		t.Errorf("found %d of 10", found)
	}
}

// Size counts the bytes of the files, whatever Open had to repair.
func TestSizeIsTheFiles(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	c.segSize = 64 << 10
	put(t, c, 0, 300)
	c.Close()
	os.Remove(filepath.Join(dir, idxName(1))) // rebuilt at Open
	c = open(t, dir, 1<<30)
	b, _ := c.Size()
	c.Close()
	if files := dirBytes(t, dir) - int64(len(strconv.Itoa(os.Getpid()))+1); b != files {
		t.Errorf("Size says %d bytes, the segments and indexes hold %d", b, files)
	}
}
