//go:build linux

package embed

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
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

// TestCacheRSSBounded reads a cache file several times larger than
// releaseEvery in random order, in batches as the embedder does, and checks
// that the mapped file never holds much more than releaseEvery of resident
// memory. Each random read maps the kernel's fault-around window (64 KiB),
// not just the 2 KiB value: counting value bytes let it reach 250 MiB.
func TestCacheRSSBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 150 MiB cache file")
	}
	c, _, err := openCache(t.TempDir(), 1<<32, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const n, batch = 36000, 64
	keys := make([][32]byte, n)
	vec := make([]float32, 512)
	for start := 0; start < n; start += 4000 {
		var vecs [][]float32
		for i := start; i < start+4000; i++ {
			keys[i] = cacheKey([]byte("rss"), fmt.Sprint(i))
			vecs = append(vecs, vec)
		}
		if err := c.put(keys[start:start+4000], vecs); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(c.path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() < 3*releaseEvery {
		t.Fatalf("cache file is %d bytes, want > %d for the test to mean anything", st.Size(), 3*releaseEvery)
	}
	base := rssFile(t)
	var peak int64
	r := rand.New(rand.NewPCG(1, 2))
	for range 2 * n / batch {
		ks := make([][32]byte, batch)
		for j := range ks {
			ks[j] = keys[r.IntN(n)]
		}
		found, _, err := c.get(ks)
		if err != nil || found[0] == nil {
			t.Fatalf("get: %v (found %v)", err, found[0] != nil)
		}
		peak = max(peak, rssFile(t)-base)
	}
	if limit := int64(releaseEvery + 16<<20); peak > limit {
		t.Errorf("the cache file's resident pages grew by %d MiB between releases, want at most %d MiB", peak>>20, limit>>20)
	}
	t.Logf("file %d MiB, peak resident growth %d MiB", st.Size()>>20, peak>>20)
}
