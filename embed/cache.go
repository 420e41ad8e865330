package embed

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The persistent cache is one bbolt file, CacheFileName in Options.CacheDir.
// bbolt gives it what a nightly job needs: every write is a transaction (a
// crash mid-write leaves the previous state), readers never block the
// writer, and the file is locked (flock) by one process at a time.
//
// Layout:
//
//	entries: key (32-byte sha256, see cacheKey) -> seq u64 | crc32c u32 | dim u32 | dim float32 (little-endian)
//	order:   seq u64 (big-endian) -> key   (insertion order, for eviction)
//	meta:    "bytes" -> u64 total accounted bytes, "seq" -> u64 next sequence number
//
// A value whose length or checksum is wrong is a miss (and is overwritten by
// the next put). Past maxBytes the oldest entries (by insertion) are evicted
// down to 90% of it. The file does not shrink (bbolt reuses freed pages), so
// its size stays near the bound.
type diskCache struct {
	db       *bolt.DB
	path     string
	maxBytes int64
	// touched counts the keys looked up or written since the mapped pages
	// were last released (see releaseMapped); guarded by atomic access.
	touched atomic.Int64
}

// releaseKeys is how many keys a run may look up between two releases of
// the cache file's mapped pages, and writeKeys the most keys one write
// transaction stores (a release follows each). A key walks the B-tree to a
// leaf at a random place in the file, and every page fault on the way maps
// the kernel's fault-around window (64 KiB by default) of pages already in
// the page cache, not one page. A commit reads every page its transaction
// changed again through the mapping, so a write keeps all its pages
// resident until it ends: only smaller transactions bound that. Measured
// (TestCacheRSSBounded, a 168 MiB file): 512 lookups ~39 MiB, a 512-key
// write ~42 MiB.
// Before, one write of ~1,000 keys let the mapped file reach 230 MiB of RSS
// on a cold 1M-turn run. A release is one madvise over the whole mapping
// (about 4 ms for a 3 GB file), so releasing more often costs CPU.
const (
	releaseKeys = 512
	writeKeys   = 512
)

var (
	bucketEntries = []byte("entries")
	bucketOrder   = []byte("order")
	bucketMeta    = []byte("meta")
	metaBytes     = []byte("bytes")
	metaSeq       = []byte("seq")
	crcTable      = crc32.MakeTable(crc32.Castagnoli)
)

const (
	valueHeader   = 16
	orderOverhead = 8 + 32 // an order entry: seq key plus the 32-byte entry key
)

// cacheKeyPrefix is hashed before each text; it covers everything besides the
// text that changes the vector: weights, tokenizer, token cap and pooling.
func cacheKeyPrefix(info *ModelInfo) []byte {
	return []byte("aem-embed-cache-v1\x00" + info.WeightsSHA256 + "\x00" + info.TokenizerSHA256 + "\x00" +
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

// openCache opens (creating) the cache file in dir.
func openCache(dir string, maxBytes int64, timeout time.Duration, discardCorrupt bool) (c *diskCache, discarded string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", fmt.Errorf("creating cache directory %s: %w", dir, err)
	}
	path := filepath.Join(dir, CacheFileName)
	db, err := openBolt(path, timeout)
	if errors.Is(err, ErrCacheCorrupt) && discardCorrupt {
		discarded = fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
		if rerr := os.Rename(path, discarded); rerr != nil {
			return nil, "", fmt.Errorf("moving corrupt cache %s aside: %w", path, rerr)
		}
		db, err = openBolt(path, timeout)
	}
	if err != nil {
		return nil, "", err
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEntries, bucketOrder, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("%w: initialising %s: %v; delete the file (it only holds cached vectors)", ErrCacheCorrupt, path, err)
	}
	return &diskCache{db: db, path: path, maxBytes: maxBytes}, discarded, nil
}

func openBolt(path string, timeout time.Duration) (db *bolt.DB, err error) {
	defer func() {
		// bbolt panics on some kinds of damage instead of returning an error.
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %s: %v; delete it (it only holds cached vectors) or set DiscardCorruptCache (--cache-discard-corrupt)", ErrCacheCorrupt, path, r)
		}
	}()
	db, err = bolt.Open(path, 0o644, &bolt.Options{Timeout: timeout, FreelistType: bolt.FreelistMapType})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("%w: %s is held by another aem process (waited %v); wait for it, or give this run its own --cache-dir", ErrCacheLocked, path, timeout)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrVersionMismatch):
		return nil, fmt.Errorf("%w: %s: %v; delete it (it only holds cached vectors) or set DiscardCorruptCache (--cache-discard-corrupt)", ErrCacheCorrupt, path, err)
	}
	return nil, fmt.Errorf("opening embedding cache %s: %w", path, err)
}

// get looks keys up; found[i] is nil for a miss. corrupt counts entries that
// failed their checks (they are misses).
func (c *diskCache) get(keys [][32]byte) (found [][]float32, corrupt int, err error) {
	found = make([][]float32, len(keys))
	err = c.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntries)
		for i, k := range keys {
			c.touch(tx)
			v := b.Get(k[:])
			if v == nil {
				continue
			}
			vec, ok := decodeValue(v)
			if !ok {
				corrupt++
				continue
			}
			found[i] = vec
		}
		return nil
	})
	return found, corrupt, err
}

// touch counts one key looked up and releases the file's mapped pages once
// releaseKeys keys have been. tx must be an open read transaction: it holds
// bbolt's mmap lock, so the mapping cannot move. Releasing in the middle of
// a transaction is safe: bbolt never overwrites the pages a transaction
// reads, so they fault back in unchanged.
func (c *diskCache) touch(tx *bolt.Tx) {
	if c.touched.Add(1) < releaseKeys {
		return
	}
	c.touched.Store(0)
	releaseMapped(c.db, tx)
}

func (c *diskCache) view(fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: reading %s: %v", ErrCacheCorrupt, c.path, r)
		}
	}()
	return c.db.View(fn)
}

// put stores vectors and evicts the oldest entries past the size bound, in
// transactions of at most writeKeys keys. A commit rewrites every page
// its transaction changed, reading the old page through the mapping
// again, so the pages a transaction touches stay resident until it ends:
// small transactions, each followed by a release, bound the RSS.
func (c *diskCache) put(keys [][32]byte, vecs [][]float32) error {
	for lo := 0; lo < len(keys); lo += writeKeys {
		hi := min(lo+writeKeys, len(keys))
		if err := c.write(keys[lo:hi], vecs[lo:hi]); err != nil {
			return err
		}
		if err := c.view(func(tx *bolt.Tx) error {
			c.touched.Store(0)
			releaseMapped(c.db, tx)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// write is put's transaction.
func (c *diskCache) write(keys [][32]byte, vecs [][]float32) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: writing %s: %v", ErrCacheCorrupt, c.path, r)
		}
	}()
	err = c.db.Update(func(tx *bolt.Tx) error {
		entries, order, meta := tx.Bucket(bucketEntries), tx.Bucket(bucketOrder), tx.Bucket(bucketMeta)
		total := int64(getU64(meta.Get(metaBytes)))
		seq := getU64(meta.Get(metaSeq))
		for i, k := range keys {
			if old := entries.Get(k[:]); old != nil {
				total -= int64(len(k) + len(old) + orderOverhead)
				if len(old) >= 8 {
					_ = order.Delete(old[:8])
				}
			}
			seq++
			val := encodeValue(seq, vecs[i])
			if err := entries.Put(k[:], val); err != nil {
				return err
			}
			if err := order.Put(val[:8], k[:]); err != nil {
				return err
			}
			total += int64(len(k) + len(val) + orderOverhead)
		}
		if total > c.maxBytes {
			target := c.maxBytes / 10 * 9
			cur := order.Cursor()
			for sk, ek := cur.First(); sk != nil && total > target; sk, ek = cur.Next() {
				if v := entries.Get(ek); v != nil {
					total -= int64(len(ek) + len(v) + orderOverhead)
					if err := entries.Delete(ek); err != nil {
						return err
					}
				} else {
					total -= orderOverhead
				}
				if err := cur.Delete(); err != nil {
					return err
				}
			}
		}
		total = max(total, 0)
		if err := meta.Put(metaBytes, putU64(uint64(total))); err != nil {
			return err
		}
		return meta.Put(metaSeq, putU64(seq))
	})
	return err
}

// size returns the accounted bytes and the number of entries.
func (c *diskCache) size() (bytes int64, entries int, err error) {
	err = c.view(func(tx *bolt.Tx) error {
		bytes = int64(getU64(tx.Bucket(bucketMeta).Get(metaBytes)))
		entries = tx.Bucket(bucketEntries).Stats().KeyN
		return nil
	})
	return bytes, entries, err
}

func (c *diskCache) close() error { return c.db.Close() }

func encodeValue(seq uint64, v []float32) []byte {
	b := make([]byte, valueHeader+4*len(v))
	binary.BigEndian.PutUint64(b[0:8], seq)
	binary.LittleEndian.PutUint32(b[12:16], uint32(len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[valueHeader+4*i:], math.Float32bits(x))
	}
	binary.LittleEndian.PutUint32(b[8:12], crc32.Checksum(b[12:], crcTable))
	return b
}

// decodeValue checks and decodes a stored value; ok is false for a damaged one.
func decodeValue(b []byte) (v []float32, ok bool) {
	if len(b) < valueHeader {
		return nil, false
	}
	dim := int(binary.LittleEndian.Uint32(b[12:16]))
	if dim <= 0 || len(b) != valueHeader+4*dim {
		return nil, false
	}
	if crc32.Checksum(b[12:], crcTable) != binary.LittleEndian.Uint32(b[8:12]) {
		return nil, false
	}
	v = make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[valueHeader+4*i:]))
	}
	return v, true
}

func putU64(x uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, x)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
