package diskcache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// Releasing the cache file's mapped pages loses nothing: every payload reads
// back the same after a release, and the counter triggers one.
func TestReleaseMappedKeepsData(t *testing.T) {
	c := open(t, t.TempDir(), 1<<30)
	defer c.Close()
	var keys [][32]byte
	var vals [][]byte
	for i := range 3000 { // past releaseKeys
		keys = append(keys, Key("p", fmt.Sprint(i)))
		v := make([]byte, 2048)
		for j := 0; j < len(v); j += 4 {
			binary.LittleEndian.PutUint32(v[j:], uint32(i*512+j))
		}
		vals = append(vals, v)
	}
	if err := c.Put(keys, vals); err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if err := c.view(func(tx *bolt.Tx) error { releaseMapped(c.db, tx); return nil }); err != nil {
			t.Fatal(err)
		}
		found, corrupt := get(t, c, keys...)
		if corrupt != 0 {
			t.Fatalf("round %d: %d corrupt", round, corrupt)
		}
		for i := range keys {
			if !bytes.Equal(found[i], vals[i]) {
				t.Fatalf("round %d: payload %d differs after a release", round, i)
			}
		}
	}
	if got := c.touched.Load(); got >= releaseKeys {
		t.Errorf("touched = %d after reading past releaseKeys: no release happened", got)
	}
}
