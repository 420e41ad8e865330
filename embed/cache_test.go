package embed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func vec(i int) []float32 { return []float32{float32(i), 1, -float32(i) / 3} }

func keyOf(i int) [32]byte { return cacheKey([]byte("test\x00"), fmt.Sprint(i)) }

// Vectors round-trip through the cache file; a payload whose length
// disagrees with its dimension is a miss. (The file itself, eviction,
// locking and crash safety are tested in package diskcache.)
func TestVectorCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c, _, err := openCache(dir, 1<<20, time.Second, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.put([][32]byte{keyOf(1), keyOf(2)}, [][]float32{vec(1), {float32(math.Inf(1)), -0}}); err != nil {
		t.Fatal(err)
	}
	// A well-formed entry (its checksum holds) whose payload is not a vector.
	if err := c.Put([][32]byte{keyOf(3)}, [][]byte{{9, 0, 0, 0, 1, 2, 3, 4}}); err != nil {
		t.Fatal(err)
	}
	got, corrupt, err := c.get([][32]byte{keyOf(1), keyOf(2), keyOf(3), keyOf(4)})
	if err != nil || corrupt != 1 {
		t.Fatalf("corrupt %d, err %v; want 1 (the payload that is not a vector)", corrupt, err)
	}
	assertClose(t, "entry 1", got[0], vec(1), 0)
	if len(got[1]) != 2 || !math.IsInf(float64(got[1][0]), 1) {
		t.Errorf("entry 2: %v", got[1])
	}
	if got[2] != nil || got[3] != nil {
		t.Errorf("entries 3 and 4: %v %v; want misses", got[2], got[3])
	}
	for _, b := range [][]byte{nil, {1, 0}, {0, 0, 0, 0}, {2, 0, 0, 0, 1, 2, 3, 4}} {
		if v := decodeVector(b); v != nil {
			t.Errorf("decodeVector(%v) = %v, want nil", b, v)
		}
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

// The cache writer gathers the new vectors of many model calls into each
// commit (a commit syncs the file), stores what it holds once writeDelay
// has passed without waiting for more, and loses nothing at Close.
func TestCacheWriterGathersBatches(t *testing.T) {
	cacheDir, model := t.TempDir(), tinyDir(t)
	texts := make([]string, 1100)
	for i := range texts {
		texts[i] = fmt.Sprintf("string number %d of the test", i)
	}
	e := openTest(t, model, BackendGo, func(o *Options) { o.CacheDir = cacheDir })
	for lo := 0; lo < len(texts); lo += 10 {
		if _, err := e.Embed(context.Background(), texts[lo:lo+10]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	if st.StringsEmbedded != int64(len(texts)) || st.CacheCommits < 3 || 4*st.CacheCommits > st.ModelCalls {
		t.Errorf("%d strings in %d model calls stored in %d commits; want %d strings, at least 3 commits (512 a commit), at most a quarter of the calls",
			st.StringsEmbedded, st.ModelCalls, st.CacheCommits, len(texts))
	}

	e = openTest(t, model, BackendGo, func(o *Options) { o.CacheDir = cacheDir })
	if _, err := e.Embed(context.Background(), texts[:3]); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.CacheHits != 3 || st.StringsEmbedded != 0 {
		t.Errorf("reopened: %+v; want every string from the cache", st)
	}
	if _, err := e.Embed(context.Background(), []string{"a string the cache has not seen"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for e.Stats().CacheCommits == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := e.Stats().CacheCommits; n != 1 {
		t.Errorf("%d commits of one new vector without Close, want 1 after writeDelay (%v)", n, writeDelay)
	}
}

// A cache whose records were damaged between runs: the damaged ones are
// misses, embedded again (the same vectors, bit for bit), counted in
// Stats.CacheCorrupt and stored again; a failed write is counted in
// Stats.CacheErrors and embedding goes on. An earlier release's bbolt
// file is reported, never read.
func TestDamagedCacheIsEmbeddedAgain(t *testing.T) {
	cacheDir, model := t.TempDir(), tinyDir(t)
	texts := make([]string, 300)
	for i := range texts {
		texts[i] = fmt.Sprintf("string %d of the damaged cache", i)
	}
	withCache := func(o *Options) { o.CacheDir = cacheDir }
	e := openTest(t, model, BackendGo, withCache)
	first, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	e.Close()

	segs, _ := filepath.Glob(filepath.Join(cacheDir, CacheName, "*.seg"))
	if len(segs) == 0 {
		t.Fatal("no segment written")
	}
	for _, seg := range segs {
		b, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		for i := 100; i < len(b); i += 5000 {
			b[i] ^= 0x10
		}
		if err := os.WriteFile(seg, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cacheDir, OldCacheFile), []byte("bbolt"), 0o644); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, model, BackendGo, withCache)
	if notes := strings.Join(e.Stats().CacheNotices, "\n"); !strings.Contains(notes, OldCacheFile) {
		t.Errorf("notices %q; want the old cache file named", notes)
	}
	again, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	if st.CacheCorrupt == 0 || st.StringsEmbedded != st.CacheCorrupt || st.CacheHits != int64(len(texts))-st.CacheCorrupt {
		t.Errorf("%+v; want some records corrupt, each embedded again, the rest cache hits", st)
	}
	for i := range texts {
		assertClose(t, texts[i], again[i], first[i], 0)
	}
	e.Close()

	e = openTest(t, model, BackendGo, withCache)
	if _, err := e.Embed(context.Background(), texts); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.CacheHits != int64(len(texts)) || st.CacheCorrupt != 0 {
		t.Errorf("after storing them again: %+v; want every string from the cache", st)
	}
	// A write that fails: the cache closed under the Embedder.
	e.cache.Cache.Close()
	if _, err := e.Embed(context.Background(), []string{"a string stored nowhere"}); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if st := e.Stats(); st.CacheErrors == 0 || !strings.Contains(st.CacheLastError, "closed") {
		t.Errorf("a failed write: %d errors, last %q", st.CacheErrors, st.CacheLastError)
	}
}
