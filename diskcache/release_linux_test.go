//go:build linux

package diskcache

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
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
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := c.Put(keys[start:start+4000], vecs); err != nil {
				t.Error(err)
			}
		}()
	sample:
		for {
			select {
			case <-done:
				break sample
			default:
				peakWrite = max(peakWrite, rssFile(t)-base)
				time.Sleep(time.Millisecond)
			}
		}
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
