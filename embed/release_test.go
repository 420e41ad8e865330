package embed

import (
	"fmt"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// Releasing the cache file's mapped pages loses nothing: every vector reads
// back the same after a release, and the counter triggers one.
func TestReleaseMappedKeepsData(t *testing.T) {
	c, _, err := openCache(t.TempDir(), 1<<30, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var keys [][32]byte
	var vecs [][]float32
	for i := range 3000 { // past releaseKeys
		keys = append(keys, cacheKey([]byte("p"), fmt.Sprint(i)))
		v := make([]float32, 512)
		for j := range v {
			v[j] = float32(i*512 + j)
		}
		vecs = append(vecs, v)
	}
	if err := c.put(keys, vecs); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if err := c.view(func(tx *bolt.Tx) error { releaseMapped(c.db, tx); return nil }); err != nil {
			t.Fatal(err)
		}
		found, corrupt, err := c.get(keys)
		if err != nil || corrupt != 0 {
			t.Fatalf("round %d: get: %v, %d corrupt", round, err, corrupt)
		}
		for i := range keys {
			if !slices.Equal(found[i], vecs[i]) {
				t.Fatalf("round %d: vector %d differs after a release", round, i)
			}
		}
	}
	if got := c.touched.Load(); got >= releaseKeys {
		t.Errorf("touched = %d after reading past releaseKeys: no release happened", got)
	}
}
