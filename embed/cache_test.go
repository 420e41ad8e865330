package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

func vec(i int) []float32 { return []float32{float32(i), 1, -float32(i) / 3} }

func keyOf(i int) [32]byte { return cacheKey([]byte("test\x00"), fmt.Sprint(i)) }

func TestDiskCacheRoundTripAndEviction(t *testing.T) {
	dir := t.TempDir()
	const perEntry = 32 + valueHeader + 4*3 + orderOverhead // 100 bytes
	c, _, err := openCache(dir, 20*perEntry, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for i := 0; i < 50; i += 5 {
		var keys [][32]byte
		var vecs [][]float32
		for j := i; j < i+5; j++ {
			keys = append(keys, keyOf(j))
			vecs = append(vecs, vec(j))
		}
		if err := c.put(keys, vecs); err != nil {
			t.Fatal(err)
		}
		bytes, n, err := c.size()
		if err != nil {
			t.Fatal(err)
		}
		if bytes > 20*perEntry || int64(n*perEntry) != bytes {
			t.Fatalf("after %d puts: %d bytes for %d entries (bound %d)", i+5, bytes, n, 20*perEntry)
		}
	}
	// The newest entries survive, the oldest were evicted.
	keys := [][32]byte{keyOf(0), keyOf(10), keyOf(49), keyOf(45)}
	got, corrupt, err := c.get(keys)
	if err != nil || corrupt != 0 {
		t.Fatal(err, corrupt)
	}
	if got[0] != nil || got[1] != nil {
		t.Errorf("oldest entries still cached")
	}
	assertClose(t, "entry 49", got[2], vec(49), 0)
	assertClose(t, "entry 45", got[3], vec(45), 0)
	// Overwriting a key keeps the accounting exact.
	before, n0, _ := c.size()
	if err := c.put([][32]byte{keyOf(49)}, [][]float32{vec(7)}); err != nil {
		t.Fatal(err)
	}
	after, n1, _ := c.size()
	if before != after || n0 != n1 {
		t.Errorf("overwrite changed size: %d/%d -> %d/%d", before, n0, after, n1)
	}
}

func TestDiskCacheCorruptEntryIsAMiss(t *testing.T) {
	dir := t.TempDir()
	c, _, err := openCache(dir, 1<<20, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.put([][32]byte{keyOf(1), keyOf(2)}, [][]float32{vec(1), vec(2)}); err != nil {
		t.Fatal(err)
	}
	// Damage entry 1's vector bytes and truncate entry 2.
	k1, k2 := keyOf(1), keyOf(2)
	err = c.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntries)
		v := append([]byte(nil), b.Get(k1[:])...)
		v[len(v)-1] ^= 0x40
		if err := b.Put(k1[:], v); err != nil {
			return err
		}
		return b.Put(k2[:], b.Get(k2[:])[:10])
	})
	if err != nil {
		t.Fatal(err)
	}
	got, corrupt, err := c.get([][32]byte{k1, k2})
	if err != nil || corrupt != 2 || got[0] != nil || got[1] != nil {
		t.Fatalf("got %v corrupt %d err %v; want two misses", got, corrupt, err)
	}
	// The next put repairs them.
	if err := c.put([][32]byte{k1, k2}, [][]float32{vec(1), vec(2)}); err != nil {
		t.Fatal(err)
	}
	got, corrupt, _ = c.get([][32]byte{k1, k2})
	if corrupt != 0 || got[0] == nil || got[1] == nil {
		t.Fatalf("not repaired: %v %d", got, corrupt)
	}
	c.close()
}

func TestDiskCacheLockedAndCorruptFile(t *testing.T) {
	dir := t.TempDir()
	c, _, err := openCache(dir, 1<<20, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = openCache(dir, 1<<20, 100*time.Millisecond, false)
	if !errors.Is(err, ErrCacheLocked) || !strings.Contains(err.Error(), filepath.Join(dir, CacheFileName)) {
		t.Fatalf("second open: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("lock wait ignored the timeout")
	}
	c.close()

	bad := t.TempDir()
	path := filepath.Join(bad, CacheFileName)
	if err := os.WriteFile(path, []byte(strings.Repeat("not a bbolt file ", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = openCache(bad, 1<<20, time.Second, false)
	if !errors.Is(err, ErrCacheCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "delete") {
		t.Fatalf("corrupt file: %v", err)
	}
	c2, moved, err := openCache(bad, 1<<20, time.Second, true)
	if err != nil {
		t.Fatalf("discarding: %v", err)
	}
	defer c2.close()
	if _, err := os.Stat(moved); err != nil || !strings.HasPrefix(moved, path+".corrupt-") {
		t.Errorf("corrupt file not moved aside: %q %v", moved, err)
	}
	if err := c2.put([][32]byte{keyOf(1)}, [][]float32{vec(1)}); err != nil {
		t.Fatal(err)
	}
}

// A second run over the same strings reaches the model zero times; a
// different model does not reuse the first one's vectors.
func TestSecondRunEmbedsNothingNew(t *testing.T) {
	gold, pred := randomPairs(200, 3)
	for _, be := range testBackends(t) {
		cacheDir := t.TempDir()
		model := tinyDir(t)
		withCache := func(o *Options) { o.CacheDir = cacheDir; o.BatchSize = 16 }
		e1 := openTest(t, model, be, withCache)
		first, err := NewScorer(e1).Score(context.Background(), gold, pred)
		if err != nil {
			t.Fatal(err)
		}
		st1 := e1.Stats()
		if st1.StringsEmbedded == 0 || st1.CacheHits != 0 {
			t.Fatalf("%s: first run %+v", be, st1)
		}
		if err := e1.Close(); err != nil {
			t.Fatal(err)
		}

		e2 := openTest(t, model, be, withCache)
		second, err := NewScorer(e2).Score(context.Background(), gold, pred)
		if err != nil {
			t.Fatal(err)
		}
		st2 := e2.Stats()
		if st2.ModelCalls != 0 || st2.StringsEmbedded != 0 || st2.CacheHits != st1.StringsEmbedded {
			t.Errorf("%s: second run %+v; want 0 model calls and %d cache hits", be, st2, st1.StringsEmbedded)
		}
		for i := range first {
			if first[i] != second[i] {
				t.Fatalf("%s: pair %d: %v then %v", be, i, first[i], second[i])
			}
		}
		e2.Close()

		// Another model (other weights) misses.
		m := gatherModel(false)
		m.ProducerName = "other"
		other := writeModelDir(t, m, "unigram", map[string]string{"1_Pooling/config.json": poolingConfig("mean")})
		e3 := openTest(t, other, be, withCache)
		if _, err := e3.Embed(context.Background(), gold[:5]); err != nil {
			t.Fatal(err)
		}
		if st := e3.Stats(); st.CacheHits != 0 || st.StringsEmbedded == 0 {
			t.Errorf("%s: another model hit the first one's cache: %+v", be, st)
		}
		e3.Close()
	}
}

// The Embedder reports a locked cache held by another Embedder (the same
// flock a second process meets).
func TestEmbedderCacheLocked(t *testing.T) {
	cacheDir := t.TempDir()
	model := tinyDir(t)
	openTest(t, model, BackendGo, func(o *Options) { o.CacheDir = cacheDir })
	_, err := Open(context.Background(), Options{ModelDir: model, Backend: BackendGo, CacheDir: cacheDir, CacheLockTimeout: 50 * time.Millisecond})
	if !errors.Is(err, ErrCacheLocked) {
		t.Fatalf("got %v, want ErrCacheLocked", err)
	}
}

// A process killed in the middle of writing leaves a cache that opens and
// whose every entry is intact.
func TestDiskCacheSurvivesKill(t *testing.T) {
	if os.Getenv("AEM_EMBED_CACHE_WRITER") != "" {
		return // this is the child's copy of the test; the writer is TestCacheWriterChild
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterChild$")
	cmd.Env = append(os.Environ(), "AEM_EMBED_CACHE_WRITER="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Let it write for a while, then kill it mid-transaction.
	path := filepath.Join(dir, CacheFileName)
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
	c, _, err := openCache(dir, 1<<30, time.Second, false)
	if err != nil {
		t.Fatalf("reopening after kill: %v", err)
	}
	defer c.close()
	n := 0
	err = c.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketEntries).ForEach(func(k, v []byte) error {
			if _, ok := decodeValue(v); !ok {
				return fmt.Errorf("damaged entry %x", k)
			}
			n++
			return nil
		})
	})
	if err != nil || n == 0 {
		t.Fatalf("%d entries, %v", n, err)
	}
	if err := c.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Fatalf("bbolt consistency check: %v", err)
	}
}

// TestCacheWriterChild writes to a cache until killed; it does nothing
// unless started by TestDiskCacheSurvivesKill.
func TestCacheWriterChild(t *testing.T) {
	dir := os.Getenv("AEM_EMBED_CACHE_WRITER")
	if dir == "" {
		t.Skip("helper process for TestDiskCacheSurvivesKill")
	}
	c, _, err := openCache(dir, 1<<30, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	big := make([]float32, 512)
	for i := 0; ; i++ {
		var keys [][32]byte
		var vecs [][]float32
		for j := 0; j < 64; j++ {
			keys = append(keys, keyOf(i*64+j))
			big[0] = float32(math.Sqrt(float64(i + j)))
			vecs = append(vecs, append([]float32(nil), big...))
		}
		if err := c.put(keys, vecs); err != nil {
			t.Fatal(err)
		}
	}
}
