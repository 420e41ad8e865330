package diskcache

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func val(i int) []byte { return []byte(fmt.Sprintf("value %04d", i)) }

func keyOf(i int) [32]byte { return Key("test", fmt.Sprint(i)) }

func open(t *testing.T, dir string, maxBytes int64) *Cache {
	t.Helper()
	c, _, err := Open(filepath.Join(dir, "c.bbolt"), Options{MaxBytes: maxBytes, LockTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// get returns a copy of each key's payload, nil for a miss.
func get(t *testing.T, c *Cache, keys ...[32]byte) (found [][]byte, corrupt int) {
	t.Helper()
	found = make([][]byte, len(keys))
	corrupt, err := c.Get(keys, func(i int, p []byte) bool {
		found[i] = bytes.Clone(p)
		return true
	})
	if err != nil {
		t.Fatal(err)
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

func TestRoundTripAndEviction(t *testing.T) {
	const perEntry = 32 + header + 10 + orderOverhead
	c := open(t, t.TempDir(), 20*perEntry)
	defer c.Close()
	for i := 0; i < 50; i += 5 {
		var keys [][32]byte
		var vals [][]byte
		for j := i; j < i+5; j++ {
			keys = append(keys, keyOf(j))
			vals = append(vals, val(j))
		}
		if err := c.Put(keys, vals); err != nil {
			t.Fatal(err)
		}
		size, n, err := c.Size()
		if err != nil {
			t.Fatal(err)
		}
		if size > 20*perEntry || int64(n*perEntry) != size {
			t.Fatalf("after %d puts: %d bytes for %d entries (bound %d)", i+5, size, n, 20*perEntry)
		}
	}
	// The newest entries survive, the oldest were evicted.
	got, corrupt := get(t, c, keyOf(0), keyOf(10), keyOf(49), keyOf(45))
	if corrupt != 0 {
		t.Fatal(corrupt)
	}
	if got[0] != nil || got[1] != nil {
		t.Errorf("oldest entries still cached")
	}
	if !bytes.Equal(got[2], val(49)) || !bytes.Equal(got[3], val(45)) {
		t.Errorf("got %q %q", got[2], got[3])
	}
	// Overwriting a key keeps the accounting exact.
	before, n0, _ := c.Size()
	if err := c.Put([][32]byte{keyOf(49)}, [][]byte{val(7)}); err != nil {
		t.Fatal(err)
	}
	after, n1, _ := c.Size()
	if before != after || n0 != n1 {
		t.Errorf("overwrite changed size: %d/%d -> %d/%d", before, n0, after, n1)
	}
	if err := c.Put([][32]byte{keyOf(1)}, nil); err == nil {
		t.Error("Put accepted 1 key with 0 payloads")
	}
}

func TestCorruptEntryIsAMiss(t *testing.T) {
	c := open(t, t.TempDir(), 1<<20)
	defer c.Close()
	k1, k2, k3 := keyOf(1), keyOf(2), keyOf(3)
	if err := c.Put([][32]byte{k1, k2, k3}, [][]byte{val(1), val(2), val(3)}); err != nil {
		t.Fatal(err)
	}
	// Damage entry 1's payload and truncate entry 2.
	err := c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntries)
		v := bytes.Clone(b.Get(k1[:]))
		v[len(v)-1] ^= 0x40
		if err := b.Put(k1[:], v); err != nil {
			return err
		}
		return b.Put(k2[:], b.Get(k2[:])[:10])
	})
	if err != nil {
		t.Fatal(err)
	}
	got, corrupt := get(t, c, k1, k2, k3)
	if corrupt != 2 || got[0] != nil || got[1] != nil || !bytes.Equal(got[2], val(3)) {
		t.Fatalf("got %q corrupt %d; want two misses and entry 3", got, corrupt)
	}
	if _, err := c.Check(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("Check: %v, want ErrCorrupt", err)
	}
	// A payload its user refuses counts as corrupt too.
	n, err := c.Get([][32]byte{k3}, func(int, []byte) bool { return false })
	if err != nil || n != 1 {
		t.Errorf("refused payload: corrupt %d, %v", n, err)
	}
	// The next put repairs them.
	if err := c.Put([][32]byte{k1, k2}, [][]byte{val(1), val(2)}); err != nil {
		t.Fatal(err)
	}
	if got, corrupt = get(t, c, k1, k2); corrupt != 0 || got[0] == nil || got[1] == nil {
		t.Fatalf("not repaired: %q %d", got, corrupt)
	}
	if n, err := c.Check(); err != nil || n != 3 {
		t.Errorf("Check after repair: %d entries, %v", n, err)
	}
}

func TestLockedAndCorruptFile(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<20)
	path := c.Path()
	start := time.Now()
	_, _, err := Open(path, Options{MaxBytes: 1 << 20, LockTimeout: 100 * time.Millisecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second open: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("lock wait ignored the timeout")
	}
	c.Close()

	bad := filepath.Join(t.TempDir(), "sub", "bad.bbolt")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{MaxBytes: 1 << 20, LockTimeout: time.Second, Holds: "cached widgets", DiscardHint: "--discard"}
	_, _, err = Open(bad, o)
	for _, want := range []string{bad, "delete it (it only holds cached widgets)", "--discard"} {
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Fatalf("corrupt file: %v; want ErrCorrupt naming %q", err, want)
		}
	}
	o.DiscardCorrupt = true
	c2, moved, err := Open(bad, o)
	if err != nil {
		t.Fatalf("discarding: %v", err)
	}
	defer c2.Close()
	if _, err := os.Stat(moved); err != nil || !strings.HasPrefix(moved, bad+".corrupt-") {
		t.Errorf("corrupt file not moved aside: %q %v", moved, err)
	}
	if err := c2.Put([][32]byte{keyOf(1)}, [][]byte{val(1)}); err != nil {
		t.Fatal(err)
	}
}

// A process killed in the middle of writing leaves a cache that opens and
// whose every entry is intact.
func TestSurvivesKill(t *testing.T) {
	if os.Getenv("AEM_DISKCACHE_WRITER") != "" {
		return // this is the child's copy of the test; the writer is TestCacheWriterChild
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterChild$")
	cmd.Env = append(os.Environ(), "AEM_DISKCACHE_WRITER="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it write for a while, then kill it mid-transaction.
	path := filepath.Join(dir, "c.bbolt")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if st, err := os.Stat(path); err == nil && st.Size() > 4<<20 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("child never wrote")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	c := open(t, dir, 1<<30)
	defer c.Close()
	if n, err := c.Check(); err != nil || n == 0 {
		t.Fatalf("%d entries, %v", n, err)
	}
}

// TestCacheWriterChild writes to a cache until killed; it does nothing
// unless started by TestSurvivesKill.
func TestCacheWriterChild(t *testing.T) {
	dir := os.Getenv("AEM_DISKCACHE_WRITER")
	if dir == "" {
		t.Skip("helper process for TestSurvivesKill")
	}
	c := open(t, dir, 1<<30)
	big := make([]byte, 2048)
	for i := 0; ; i++ {
		var keys [][32]byte
		var vals [][]byte
		for j := 0; j < 64; j++ {
			keys = append(keys, keyOf(i*64+j))
			big[0], big[1] = byte(i), byte(j)
			vals = append(vals, bytes.Clone(big))
		}
		if err := c.Put(keys, vals); err != nil {
			t.Fatal(err)
		}
	}
}

// The filter of present keys never hides a stored key: not after the
// Puts that outgrow it (it is built again, larger), not after reopening
// (it is filled from the file), and it rules out most absent keys.
func TestPresentKeysFilter(t *testing.T) {
	dir := t.TempDir()
	c := open(t, dir, 1<<30)
	// A filter sized for fewer keys than the Put stores, as a large file's
	// would be after enough writes (minCapacity is too many for a test).
	c.present.capacity = WriteKeys
	n := 3 * WriteKeys
	keys := make([][32]byte, n)
	vals := make([][]byte, n)
	for i := range keys {
		keys[i], vals[i] = keyOf(i), val(i)
	}
	if err := c.Put(keys, vals); err != nil {
		t.Fatal(err)
	}
	if c.present.capacity != minCapacity || c.present.added != uint(n) {
		t.Errorf("filter for %d keys holding %d after %d keys: not built again", c.present.capacity, c.present.added, n)
	}
	check := func(c *Cache, when string) {
		t.Helper()
		found, corrupt := get(t, c, keys...)
		for i, f := range found {
			if string(f) != string(vals[i]) {
				t.Fatalf("%s: key %d: got %q, want %q", when, i, f, vals[i])
			}
		}
		if corrupt != 0 {
			t.Errorf("%s: %d corrupt", when, corrupt)
		}
		maybe := 0
		for i := range 10_000 {
			if c.present.mayHold(keyOf(n + i)) {
				maybe++
			}
		}
		if maybe > 300 { // 1% expected at capacity
			t.Errorf("%s: %d of 10,000 absent keys may be present", when, maybe)
		}
	}
	check(c, "after Put")
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	c = open(t, dir, 1<<30)
	defer c.Close()
	check(c, "after reopening")
}
