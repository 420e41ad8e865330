package diskcache

import (
	"testing"
)

// benchFill stores n keys with 2,052-byte payloads (a 512-d float32
// vector and its length), each WriteKeys of them looked up first (all
// misses), then stored, as the embedding cache's writer does.
func benchFill(b *testing.B, c *Cache, keys [][32]byte) {
	payload := make([]byte, 2052)
	payloads := make([][]byte, WriteKeys)
	for i := range payloads {
		payloads[i] = payload
	}
	for lo := 0; lo < len(keys); lo += WriteKeys {
		batch := keys[lo:min(lo+WriteKeys, len(keys))]
		if _, err := c.Get(batch, func(int, []byte) bool { return true }); err != nil {
			b.Fatal(err)
		}
		if err := c.Put(batch, payloads[:len(batch)]); err != nil {
			b.Fatal(err)
		}
	}
}

func benchKeys(n int) [][32]byte {
	keys := make([][32]byte, n)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	return keys
}

// BenchmarkColdFill is a cold run's cache work: 40,000 new keys.
func BenchmarkColdFill(b *testing.B) {
	keys := benchKeys(40_000)
	for b.Loop() {
		b.StopTimer()
		c := open(b, b.TempDir(), 1<<30)
		b.StartTimer()
		benchFill(b, c, keys)
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWarmRead is a warm run's cache work: Open, then 40,000 keys
// looked up WriteKeys at a time, every one a hit.
func BenchmarkWarmRead(b *testing.B) {
	keys := benchKeys(40_000)
	dir := b.TempDir()
	c := open(b, dir, 1<<30)
	benchFill(b, c, keys)
	c.Close()
	for b.Loop() {
		c := open(b, dir, 1<<30)
		for lo := 0; lo < len(keys); lo += WriteKeys {
			batch := keys[lo:min(lo+WriteKeys, len(keys))]
			n := 0
			if _, err := c.Get(batch, func(int, []byte) bool { n++; return true }); err != nil || n != len(batch) {
				b.Fatalf("%d hits of %d, %v", n, len(batch), err)
			}
		}
		c.Close()
	}
}
