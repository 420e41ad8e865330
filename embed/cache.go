package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aem-dev/aem/diskcache"
)

// The persistent cache is a diskcache directory, CacheName in
// Options.CacheDir (checksummed records read with ordinary reads, flock,
// eviction of the oldest segments past the bound). Each entry's payload
// is a vector:
//
//	dim u32 | dim float32 (little-endian)
//
// A payload whose length disagrees with its dim is a miss (and is
// superseded by the next put).

// OldCacheFile is the bbolt file earlier releases kept vectors in, in
// Options.CacheDir. It is never opened (a damaged one crashed every run
// that read it): its vectors are embedded again once, and a notice asks
// for it to be deleted (aem cache prune does).
const OldCacheFile = "embeddings.bbolt"

// cacheKeyPrefix is hashed before each text; it covers everything besides the
// text that changes the vector: the padding buckets (the version: v2 has
// seqBucket's exact lengths up to 32 tokens), weights, tokenizer, token cap
// and pooling.
func cacheKeyPrefix(info *ModelInfo) []byte {
	return []byte("aem-embed-cache-v2\x00" + info.WeightsSHA256 + "\x00" + info.TokenizerSHA256 + "\x00" +
		strconv.Itoa(info.MaxTokens) + "\x00" + string(info.Pooling) + "\x00")
}

// cacheKey is sha256(prefix || text).
func cacheKey(prefix []byte, text string) [32]byte {
	h := sha256.New()
	h.Write(prefix)
	h.Write([]byte(text))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// vectorCache stores vectors in a diskcache directory.
type vectorCache struct{ *diskcache.Cache }

// openCache opens (creating) the cache in dir. Its errors wrap
// ErrCacheLocked (diskcache.ErrLocked). notices says what it found
// besides vectors: files moved aside, an old cache file left behind.
func openCache(dir string, maxBytes int64, timeout time.Duration, discardCorrupt bool) (c *vectorCache, notices []string, err error) {
	dc, err := diskcache.Open(filepath.Join(dir, CacheName), diskcache.Options{
		MaxBytes:       maxBytes,
		LockTimeout:    timeout,
		DiscardCorrupt: discardCorrupt,
	})
	if err != nil {
		return nil, nil, err
	}
	notices = dc.Notices()
	old := filepath.Join(dir, OldCacheFile)
	if st, err := os.Stat(old); err == nil {
		notices = append(notices, fmt.Sprintf("%s (%d MiB) is an earlier release's cache file, no longer read (its vectors are embedded again once): delete it to free the space", old, st.Size()>>20))
	}
	return &vectorCache{dc}, notices, nil
}

// get looks keys up; found[i] is nil for a miss. corrupt counts entries that
// failed their checks (they are misses).
func (c *vectorCache) get(keys [][32]byte) (found [][]float32, corrupt int, err error) {
	found = make([][]float32, len(keys))
	corrupt, err = c.Get(keys, func(i int, p []byte) bool {
		found[i] = decodeVector(p)
		return found[i] != nil
	})
	return found, corrupt, err
}

// put stores vectors.
func (c *vectorCache) put(keys [][32]byte, vecs [][]float32) error {
	payloads := make([][]byte, len(vecs))
	for i, v := range vecs {
		payloads[i] = encodeVector(v)
	}
	return c.Put(keys, payloads)
}

func encodeVector(v []float32) []byte {
	b := make([]byte, 4+4*len(v))
	binary.LittleEndian.PutUint32(b, uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4+4*i:], math.Float32bits(x))
	}
	return b
}

// decodeVector decodes a payload; nil for a damaged one.
func decodeVector(b []byte) []float32 {
	if len(b) < 4 {
		return nil
	}
	dim := int(binary.LittleEndian.Uint32(b))
	if dim <= 0 || len(b) != 4+4*dim {
		return nil
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4+4*i:]))
	}
	return v
}
