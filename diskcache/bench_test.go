package diskcache

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkColdFill is a cold run's cache work: 40,000 new keys with 2 KB
// payloads (a 512-d float32 vector), each WriteKeys of them looked up
// first (all misses), then stored, as the embedding cache's writer does.
func BenchmarkColdFill(b *testing.B) {
	const n = 40_000
	payload := make([]byte, 2048)
	keys := make([][32]byte, n)
	for i := range keys {
		keys[i] = Key("bench", fmt.Sprint(i))
	}
	for b.Loop() {
		b.StopTimer()
		c, _, err := Open(filepath.Join(b.TempDir(), "c.bbolt"), Options{MaxBytes: 1 << 30, LockTimeout: time.Second})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for lo := 0; lo < n; lo += WriteKeys {
			batch := keys[lo:min(lo+WriteKeys, n)]
			if _, err := c.Get(batch, func(int, []byte) bool { return true }); err != nil {
				b.Fatal(err)
			}
			payloads := make([][]byte, len(batch))
			for i := range payloads {
				payloads[i] = payload
			}
			if err := c.Put(batch, payloads); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
