//go:build linux

package diskcache

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rssFile is this process's resident file-backed memory (RssFile in
// /proc/self/status) in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatalf("parsing RssFile %q: %v", rest, err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// peakGrowth runs fn on another goroutine and returns the most this
// process's RssFile grew over base while it ran.
func peakGrowth(t *testing.T, base int64, fn func()) int64 {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	var peak int64
	for {
		select {
		case <-done:
			return max(peak, rssFile(t)-base)
		default:
			peak = max(peak, rssFile(t)-base)
			time.Sleep(time.Millisecond)
		}
	}
}

// bound is the most resident memory the mapped cache file may hold between
// releases in these tests: releaseKeys keys at a few fault-around windows
// each, with room for the pages of the test binary that fault in meanwhile.
const bound = 48 << 20

// TestCacheRSSBounded writes a cache file several times larger than bound,
// then reads it in random order, in batches as the embedder does (2 KiB values: 512-d vectors), and
// checks that the mapped file never holds much more than bound of resident
// memory, while writing or while reading. Each random read maps the
// kernel's fault-around window (64 KiB), not just the 2 KiB value: counting
// value bytes (before) let it reach 250 MiB on a cold 1M-turn run.
func TestCacheRSSBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MiB cache file")
	}
	c := open(t, t.TempDir(), 1<<32)
	defer c.Close()
	const n, batch = 48000, 64
	keys := make([][32]byte, n)
	vec := make([]byte, 2048) // a 512-d float32 vector
	base := rssFile(t)
	var peakWrite int64
	for start := 0; start < n; start += 4000 {
		var vecs [][]byte
		for i := start; i < start+4000; i++ {
			keys[i] = Key("rss", fmt.Sprint(i))
			vecs = append(vecs, vec)
		}
		// Sample while the write runs: one large put is one transaction.
		peakWrite = max(peakWrite, peakGrowth(t, base, func() {
			if err := c.Put(keys[start:start+4000], vecs); err != nil {
				t.Error(err)
			}
		}))
	}
	st, err := os.Stat(c.path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 3*bound {
		t.Fatalf("cache file is %d bytes, want > %d for the test to mean anything", st.Size(), 3*bound)
	}
	base = rssFile(t)
	var peak int64
	r := rand.New(rand.NewPCG(1, 2))
	for range 2 * n / batch {
		ks := make([][32]byte, batch)
		for j := range ks {
			ks[j] = keys[r.IntN(n)]
		}
		found, _ := get(t, c, ks...)
		if found[0] == nil {
			t.Fatal("get: a stored key was not found")
		}
		peak = max(peak, rssFile(t)-base)
	}
	if peak > bound || peakWrite > bound {
		t.Errorf("the cache file's resident pages grew by %d MiB while reading, %d MiB while writing; want at most %d MiB", peak>>20, peakWrite>>20, bound>>20)
	}
	t.Logf("file %d MiB, peak resident growth %d MiB reading, %d MiB writing", st.Size()>>20, peak>>20, peakWrite>>20)
}

// TestOpenRSSBounded: Open reads every key of the file into the filter of
// present keys (present.build). The order records it walks lie scattered
// among the values' pages, and each fault maps a 64 KiB window, so an
// unreleased walk held about 1.1 GiB of a 4.6 GB cache after Open (a
// 1M-turn run's peak RSS went from 0.5 to 1.6 GiB). The walk releases as
// it goes: RssFile grows by at most bound while Open runs and after it.
func TestOpenRSSBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 300 MiB cache file")
	}
	dir := t.TempDir()
	c := open(t, dir, 1<<32)
	const n = 120_000
	vec := make([]byte, 2048)
	for start := 0; start < n; start += 4000 {
		keys := make([][32]byte, 4000)
		vecs := make([][]byte, 4000)
		for i := range keys {
			keys[i], vecs[i] = Key("open-rss", fmt.Sprint(start+i)), vec
		}
		if err := c.Put(keys, vecs); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	base := rssFile(t)
	var err error
	peak := peakGrowth(t, base, func() {
		c, _, err = Open(filepath.Join(dir, "c.bbolt"), Options{MaxBytes: 1 << 32, LockTimeout: time.Second})
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	after := rssFile(t) - base
	if !c.present.mayHold(Key("open-rss", "7")) {
		t.Fatal("the filter does not hold a stored key")
	}
	if peak > bound || after > bound {
		t.Errorf("opening a %d-key cache grew the resident file pages by %d MiB at most, %d MiB after; want at most %d MiB",
			n, peak>>20, after>>20, bound>>20)
	}
	t.Logf("open: peak resident growth %d MiB, %d MiB after", peak>>20, after>>20)
}
