package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"path/filepath"
	"strconv"
	"time"

	"github.com/aem-dev/aem/diskcache"
)

// The persistent cache is one diskcache file, CacheFileName in
// Options.CacheDir (bbolt: transactional writes, flock, a checksum per
// entry, eviction by insertion order past the bound). Each entry's payload
// is a vector:
//
//	dim u32 | dim float32 (little-endian)
//
// A payload whose length disagrees with its dim is a miss (and is
// overwritten by the next put).

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

// vectorCache stores vectors in a diskcache file.
type vectorCache struct{ *diskcache.Cache }

// openCache opens (creating) the cache file in dir. Its errors wrap
// ErrCacheLocked and ErrCacheCorrupt (the diskcache sentinels).
func openCache(dir string, maxBytes int64, timeout time.Duration, discardCorrupt bool) (c *vectorCache, discarded string, err error) {
	dc, discarded, err := diskcache.Open(filepath.Join(dir, CacheFileName), diskcache.Options{
		MaxBytes:       maxBytes,
		LockTimeout:    timeout,
		DiscardCorrupt: discardCorrupt,
		Holds:          "cached vectors",
		DiscardHint:    "DiscardCorruptCache (--cache-discard-corrupt)",
	})
	if err != nil {
		return nil, "", err
	}
	return &vectorCache{dc}, discarded, nil
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
