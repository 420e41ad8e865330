package diskcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sentinel errors returned (wrapped, with the path and the fix) by Open and
// the Cache's methods. Check them with errors.Is.
var (
	// ErrLocked: another process (or another Cache in this process) holds
	// the file's lock past Options.LockTimeout.
	ErrLocked = errors.New("cache file is locked by another process")
	// ErrCorrupt: the file cannot be opened or read as a bbolt database.
	ErrCorrupt = errors.New("cache file is corrupt")
)

// Options configures Open.
type Options struct {
	// MaxBytes bounds the accounted bytes (keys, values and the insertion
	// index); past it the oldest entries are evicted down to 90% of it.
	MaxBytes int64
	// LockTimeout is how long Open waits for another holder of the file's
	// lock; 0 waits forever.
	LockTimeout time.Duration
	// DiscardCorrupt moves a corrupt file aside (to <file>.corrupt-<unix
	// time>) and starts an empty one instead of failing with ErrCorrupt.
	DiscardCorrupt bool
	// Holds says what the file holds, for error messages ("cached
	// vectors"): deleting it loses only that.
	Holds string
	// DiscardHint names the setting that sets DiscardCorrupt, for error
	// messages ("--cache-discard-corrupt").
	DiscardHint string
}

// Layout:
//
//	entries: key (32 bytes) -> seq u64 (big-endian) | crc32c(payload) u32 | payload
//	order:   seq u64 (big-endian) -> key   (insertion order, for eviction)
//	meta:    "bytes" -> u64 total accounted bytes, "seq" -> u64 next sequence number
//
// The file does not shrink (bbolt reuses freed pages), so its size stays
// near the bound.
var (
	bucketEntries = []byte("entries")
	bucketOrder   = []byte("order")
	bucketMeta    = []byte("meta")
	metaBytes     = []byte("bytes")
	metaSeq       = []byte("seq")
	crcTable      = crc32.MakeTable(crc32.Castagnoli)
)

const (
	// header is the bytes stored before each payload: sequence and checksum.
	header = 12
	// orderOverhead is an order entry: the seq key plus the 32-byte entry key.
	orderOverhead = 8 + 32
)

// releaseKeys is how many keys a run may look up between two releases of
// the file's mapped pages, and WriteKeys the most keys one write
// transaction stores (a release follows each; Put splits larger lists, so
// a writer that gathers keys fills a commit with WriteKeys of them). A key
// walks the B-tree to a leaf at a random place in the file (unless the
// filter of present keys rules it out), and every page fault on the way maps
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
	WriteKeys   = 512
)

// Cache is one open cache file. Its methods are safe for concurrent use.
type Cache struct {
	db       *bolt.DB
	path     string
	maxBytes int64
	// touched counts the keys looked up or written since the mapped pages
	// were last released (see releaseMapped).
	touched atomic.Int64
	present present
}

// Key is sha256 over the parts, each followed by a NUL byte, so that no two
// different part lists share a key.
func Key(parts ...string) [32]byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Open opens (creating it and its directory) the cache file at path.
// discarded names the corrupt file moved aside under Options.DiscardCorrupt,
// if any.
func Open(path string, o Options) (c *Cache, discarded string, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, "", fmt.Errorf("creating cache directory %s: %w", filepath.Dir(path), err)
	}
	db, err := openBolt(path, o)
	if errors.Is(err, ErrCorrupt) && o.DiscardCorrupt {
		discarded = fmt.Sprintf("%s.corrupt-%d", path, time.Now().Unix())
		if rerr := os.Rename(path, discarded); rerr != nil {
			return nil, "", fmt.Errorf("moving corrupt cache %s aside: %w", path, rerr)
		}
		db, err = openBolt(path, o)
	}
	if err != nil {
		return nil, "", err
	}
	c = &Cache{db: db, path: path, maxBytes: o.MaxBytes}
	if err := c.initialise(); err != nil {
		db.Close()
		return nil, "", fmt.Errorf("%w: initialising %s: %w; delete the file (it only holds %s)", ErrCorrupt, path, err, o.holds())
	}
	return c, discarded, nil
}

// initialise creates the buckets a new file lacks, then fills the filter
// of present keys from the order bucket.
func (c *Cache) initialise() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	if err := c.db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEntries, bucketOrder, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return c.db.View(func(tx *bolt.Tx) error {
		c.present.build(tx, func() { releaseMapped(c.db, tx) })
		return nil
	})
}

func (o Options) holds() string {
	if o.Holds == "" {
		return "cached data"
	}
	return o.Holds
}

// corruptFix is the advice appended to ErrCorrupt at open.
func (o Options) corruptFix() string {
	fix := "delete it (it only holds " + o.holds() + ")"
	if o.DiscardHint != "" {
		fix += " or set " + o.DiscardHint
	}
	return fix
}

func openBolt(path string, o Options) (db *bolt.DB, err error) {
	defer func() {
		// bbolt panics on some kinds of damage instead of returning an error.
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("%w: %s: %v; %s", ErrCorrupt, path, r, o.corruptFix())
		}
	}()
	db, err = bolt.Open(path, 0o644, &bolt.Options{Timeout: o.LockTimeout, FreelistType: bolt.FreelistMapType})
	switch {
	case err == nil:
		return db, nil
	case errors.Is(err, bolt.ErrTimeout):
		return nil, fmt.Errorf("%w: %s is held by another aem process (waited %v); wait for it, or give this run its own cache directory", ErrLocked, path, o.LockTimeout)
	case errors.Is(err, bolt.ErrInvalid), errors.Is(err, bolt.ErrChecksum), errors.Is(err, bolt.ErrVersionMismatch):
		return nil, fmt.Errorf("%w: %s: %w; %s", ErrCorrupt, path, err, o.corruptFix())
	}
	return nil, fmt.Errorf("opening cache %s: %w", path, err)
}

// Path is the cache file's path.
func (c *Cache) Path() string { return c.path }

// Get looks keys up and calls use(i, payload) for each key found whose
// checksum holds. payload is valid only during the call: use must copy what
// it keeps. use returns false for a payload it cannot decode. corrupt counts
// the entries that failed the checksum or use: they are misses. A key the
// filter of present keys rules out is a miss that reads nothing from the
// file.
func (c *Cache) Get(keys [][32]byte, use func(i int, payload []byte) bool) (corrupt int, err error) {
	err = c.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketEntries)
		for i, k := range keys {
			if !c.present.mayHold(k) {
				continue
			}
			c.touch(tx)
			v := b.Get(k[:])
			if v == nil {
				continue
			}
			if p, ok := payload(v); !ok || !use(i, p) {
				corrupt++
			}
		}
		return nil
	})
	return corrupt, err
}

// touch counts one key looked up and releases the file's mapped pages once
// releaseKeys keys have been. tx must be an open read transaction: it holds
// bbolt's mmap lock, so the mapping cannot move. Releasing in the middle of
// a transaction is safe: bbolt never overwrites the pages a transaction
// reads, so they fault back in unchanged.
func (c *Cache) touch(tx *bolt.Tx) {
	if c.touched.Add(1) < releaseKeys {
		return
	}
	c.touched.Store(0)
	releaseMapped(c.db, tx)
}

func (c *Cache) view(fn func(*bolt.Tx) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: reading %s: %v", ErrCorrupt, c.path, r)
		}
	}()
	return c.db.View(fn)
}

// Put stores payloads under keys and evicts the oldest entries past the
// size bound, in transactions of at most WriteKeys keys. A commit rewrites
// every page its transaction changed, reading the old page through the
// mapping again, so the pages a transaction touches stay resident until it
// ends: small transactions, each followed by a release, bound the RSS.
func (c *Cache) Put(keys [][32]byte, payloads [][]byte) error {
	if len(keys) != len(payloads) {
		return fmt.Errorf("storing %d keys with %d payloads in %s: the lists must have the same length", len(keys), len(payloads), c.path)
	}
	for lo := 0; lo < len(keys); lo += WriteKeys {
		hi := min(lo+WriteKeys, len(keys))
		if err := c.write(keys[lo:hi], payloads[lo:hi]); err != nil {
			return err
		}
		full := c.present.add(keys[lo:hi])
		if err := c.view(func(tx *bolt.Tx) error {
			if full {
				c.present.rebuild(tx, func() { releaseMapped(c.db, tx) })
			}
			c.touched.Store(0)
			releaseMapped(c.db, tx)
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// write is Put's transaction.
func (c *Cache) write(keys [][32]byte, payloads [][]byte) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: writing %s: %v", ErrCorrupt, c.path, r)
		}
	}()
	return c.db.Update(func(tx *bolt.Tx) error {
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
			val := encode(seq, payloads[i])
			if err := entries.Put(k[:], val); err != nil {
				return err
			}
			if err := order.Put(val[:8], k[:]); err != nil {
				return err
			}
			total += int64(len(k) + len(val) + orderOverhead)
		}
		if total > c.maxBytes {
			var err error
			if total, err = evict(entries, order, total, c.maxBytes/10*9); err != nil {
				return err
			}
		}
		if err := meta.Put(metaBytes, putU64(uint64(max(total, 0)))); err != nil {
			return err
		}
		return meta.Put(metaSeq, putU64(seq))
	})
}

// evict deletes the oldest entries until total is at most target, and
// returns the new total.
func evict(entries, order *bolt.Bucket, total, target int64) (int64, error) {
	cur := order.Cursor()
	for sk, ek := cur.First(); sk != nil && total > target; sk, ek = cur.Next() {
		if v := entries.Get(ek); v != nil {
			total -= int64(len(ek) + len(v) + orderOverhead)
			if err := entries.Delete(ek); err != nil {
				return 0, err
			}
		} else {
			total -= orderOverhead
		}
		if err := cur.Delete(); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// Size returns the accounted bytes and the number of entries.
func (c *Cache) Size() (bytes int64, entries int, err error) {
	err = c.view(func(tx *bolt.Tx) error {
		bytes = int64(getU64(tx.Bucket(bucketMeta).Get(metaBytes)))
		entries = tx.Bucket(bucketEntries).Stats().KeyN
		return nil
	})
	return bytes, entries, err
}

// Check walks every entry and bbolt's own consistency check; it returns the
// first problem found, or the number of entries whose checksum holds.
func (c *Cache) Check() (entries int, err error) {
	err = c.view(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("%w: %s: %w", ErrCorrupt, c.path, err)
		}
		return tx.Bucket(bucketEntries).ForEach(func(k, v []byte) error {
			if _, ok := payload(v); !ok {
				return fmt.Errorf("%w: %s: entry %x fails its checksum", ErrCorrupt, c.path, k)
			}
			entries++
			return nil
		})
	})
	return entries, err
}

// Close closes the file and releases its lock.
func (c *Cache) Close() error { return c.db.Close() }

// encode prefixes p with the sequence number and p's checksum.
func encode(seq uint64, p []byte) []byte {
	b := make([]byte, header+len(p))
	binary.BigEndian.PutUint64(b[0:8], seq)
	binary.LittleEndian.PutUint32(b[8:12], crc32.Checksum(p, crcTable))
	copy(b[header:], p)
	return b
}

// payload checks a stored value and returns its payload; ok is false for a
// damaged one.
func payload(b []byte) (p []byte, ok bool) {
	if len(b) < header {
		return nil, false
	}
	p = b[header:]
	return p, crc32.Checksum(p, crcTable) == binary.LittleEndian.Uint32(b[8:12])
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
