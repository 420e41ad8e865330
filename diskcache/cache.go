package diskcache

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/aem-dev/aem/internal/safefile"
)

// Sentinel errors returned (wrapped, with the directory and the fix) by
// Open and the Cache's methods. Check them with errors.Is.
var (
	// ErrLocked: another process (or another Cache in this process) holds
	// the directory's lock past Options.LockTimeout.
	ErrLocked = errors.New("cache is locked by another process")
	// ErrClosed: the Cache was closed.
	ErrClosed = errors.New("cache is closed")
)

// Options configures Open.
type Options struct {
	// MaxBytes bounds the cache's files (it must be positive); past it the
	// oldest segments are deleted (see the package doc).
	MaxBytes int64
	// LockTimeout is how long Open waits for another holder of the
	// directory's lock; 0 waits forever.
	LockTimeout time.Duration
	// DiscardCorrupt deletes a segment that cannot be read instead of
	// moving it aside (to <segment>.corrupt-<unix time>). Either way a
	// notice says so.
	DiscardCorrupt bool
	// Sync makes every Put durable (fsync) before it returns. Without it
	// a Put is in the page cache when it returns: a killed process loses
	// nothing, a power cut may lose the latest entries (they are misses
	// then, never wrong values).
	Sync bool
}

// WriteKeys is how many entries a writer that gathers them should store
// in one Put: 512 vectors are one write of about 1 MiB. Put takes any
// number.
const WriteKeys = 512

// Segment sizes: a sixteenth of MaxBytes, within these bounds.
const (
	minSegment = 4 << 10
	maxSegment = 256 << 20
	// maxSeq is the first segment number a cache cannot use (a location
	// keeps the segment in 24 bits and the offset in 40).
	maxSeq  = 1 << 24
	offBits = 40
)

// Cache is one open cache directory. Its methods are safe for concurrent
// use.
type Cache struct {
	dir     string
	o       Options
	segSize int64
	lock    *flock.Flock

	wmu sync.Mutex // serialises Put and Close, the writers

	mu      sync.RWMutex // guards what follows; Get holds it for reading
	closed  bool
	index   map[uint64]uint64 // key prefix -> location (seq<<offBits | offset) of its newest record
	segs    map[uint32]*segment
	order   []uint32 // the segments in use, oldest first
	active  *segment // the segment Put appends to; nil until one is needed
	bytes   int64    // the segment and index files' bytes
	notices []string
	buf     []byte // Put's records, reused
}

// segment is one open segment file.
type segment struct {
	seq     uint32
	f       *os.File
	size    int64    // bytes in use: where the next record goes
	idxSize int64    // bytes of its index file (0: none)
	entries []idxRec // the active segment's records, for its index
	dirty   bool     // records were added since its index was written
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

// Open opens (creating it) the cache directory dir, taking its lock. It
// reads every segment's index (or, for a segment without a usable one,
// its records) and never fails because of what the files hold: a record
// that fails its check is a miss, a segment that cannot be read is moved
// aside (or deleted, Options.DiscardCorrupt), and Notices says what was
// found. It fails when the directory cannot be created or locked
// (ErrLocked after Options.LockTimeout).
func Open(dir string, o Options) (*Cache, error) {
	if o.MaxBytes <= 0 {
		return nil, fmt.Errorf("opening the cache %s: a bound of %d bytes: it must be positive", dir, o.MaxBytes)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating the cache directory %s: %w", dir, err)
	}
	lk, err := lockDir(dir, o)
	if err != nil {
		return nil, err
	}
	c := &Cache{
		dir: dir, o: o, lock: lk,
		segSize: min(max(o.MaxBytes/16, minSegment), maxSegment),
		index:   make(map[uint64]uint64),
		segs:    make(map[uint32]*segment),
	}
	if err := c.load(); err != nil {
		c.closeFiles()
		return nil, errors.Join(err, lk.Unlock())
	}
	c.evict(0)
	return c, nil
}

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Notices says what Open found and did besides reading the cache: segments
// moved aside or deleted, indexes that could not be used, bytes skipped
// because they were not whole records. Each is a sentence naming the file.
func (c *Cache) Notices() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.notices)
}

func (c *Cache) notice(format string, args ...any) {
	c.notices = append(c.notices, fmt.Sprintf(format, args...))
}

func loc(seq uint32, off int64) uint64 { return uint64(seq)<<offBits | uint64(off) }

func splitLoc(l uint64) (uint32, int64) { return uint32(l >> offBits), int64(l & (1<<offBits - 1)) }

// Get looks keys up and calls use(i, payload) for each key found whose
// record passes its check. payload is valid only during the call: use
// must copy what it keeps. use returns false for a payload it cannot
// decode. corrupt counts the records that failed their check or use: they
// are misses, and are forgotten, so that the next Put of their key stores
// them again. Records are read with ordinary reads, in file order.
func (c *Cache) Get(keys [][32]byte, use func(i int, payload []byte) bool) (corrupt int, err error) {
	type want struct {
		i   int
		loc uint64
	}
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return 0, fmt.Errorf("reading the cache %s: %w", c.dir, ErrClosed)
	}
	var wants []want
	for i, k := range keys {
		if l, ok := c.index[prefix(k[:])]; ok {
			wants = append(wants, want{i, l})
		}
	}
	slices.SortFunc(wants, func(a, b want) int { return cmp.Compare(a.loc, b.loc) })
	var bad []want
	buf := make([]byte, readAhead)
	for _, w := range wants {
		key, payload := c.read(w.loc, &buf)
		switch {
		case key != nil && !bytes.Equal(key, keys[w.i][:]):
			// Another key with the same prefix: a miss, not damage.
		case payload == nil || !use(w.i, payload):
			bad = append(bad, w)
		}
	}
	c.mu.RUnlock()
	if len(bad) > 0 {
		c.mu.Lock()
		for _, w := range bad {
			if p := prefix(keys[w.i][:]); c.index[p] == w.loc {
				delete(c.index, p)
			}
		}
		c.mu.Unlock()
	}
	return len(bad), nil
}

// read reads and checks the record at location l; key is nil for a record
// that fails its check (or cannot be read). The caller holds c.mu.
func (c *Cache) read(l uint64, buf *[]byte) (key, payload []byte) {
	seq, off := splitLoc(l)
	s := c.segs[seq]
	if s == nil {
		return nil, nil
	}
	b := (*buf)[:cap(*buf)]
	n, _ := s.f.ReadAt(b[:readAhead], off)
	if n < recHeader {
		return nil, nil
	}
	size := recordLen(b)
	if size < 0 {
		return nil, nil
	}
	if size > n {
		if size > cap(b) {
			b = append(b[:n], make([]byte, size-n)...)
			*buf = b
		}
		if m, _ := s.f.ReadAt(b[n:size], off+int64(n)); m < size-n {
			return nil, nil
		}
	}
	key, payload, ok := checkRecord(b[:size])
	if !ok {
		return nil, nil
	}
	return key, payload
}

// Put stores payloads under keys: their records are appended to the
// segment in use (a new one is started, and the oldest deleted past the
// bound, when it is full) with one write, then indexed. A failed write
// (a full disk) leaves the cache as it was and returns the error; the
// cache stays usable.
func (c *Cache) Put(keys [][32]byte, payloads [][]byte) error {
	if len(keys) != len(payloads) {
		return fmt.Errorf("storing %d keys with %d payloads in %s: the lists must have the same length", len(keys), len(payloads), c.dir)
	}
	for i, p := range payloads {
		if len(p) > MaxPayload {
			return fmt.Errorf("storing a %d-byte payload (key %d) in %s: the most is %d", len(p), i, c.dir, MaxPayload)
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.isClosed() {
		return fmt.Errorf("writing to the cache %s: %w", c.dir, ErrClosed)
	}
	for lo := 0; lo < len(keys); {
		need := int64(recHeader + len(payloads[lo]))
		if c.active == nil || (c.active.size > segHeader && c.active.size+need > c.segSize) {
			if err := c.rotate(); err != nil {
				return err
			}
		}
		s := c.active
		buf, recs := c.buf[:0], []idxRec(nil)
		hi := lo
		for ; hi < len(keys); hi++ {
			n := recHeader + len(payloads[hi])
			if hi > lo && s.size+int64(len(buf)+n) > c.segSize {
				break
			}
			recs = append(recs, idxRec{key: prefix(keys[hi][:]), off: s.size + int64(len(buf))})
			buf = appendRecord(buf, keys[hi], payloads[hi])
		}
		c.buf = buf
		if err := c.write(s, buf); err != nil {
			return err
		}
		c.mu.Lock()
		for _, r := range recs {
			c.index[r.key] = loc(s.seq, r.off)
		}
		s.entries = append(s.entries, recs...)
		s.size += int64(len(buf))
		s.dirty = true
		c.bytes += int64(len(buf))
		c.mu.Unlock()
		lo = hi
	}
	return nil
}

func (c *Cache) isClosed() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.closed
}

// write appends buf to s (synced with Options.Sync). On failure it cuts
// what was written off again; if that fails too, s takes no more records
// (the next Put starts a segment, and the next Open skips the torn bytes).
func (c *Cache) write(s *segment, buf []byte) error {
	n, err := s.f.WriteAt(buf, s.size)
	if err == nil && c.o.Sync {
		err = s.f.Sync()
	}
	if err == nil {
		return nil
	}
	if n > 0 {
		if terr := s.f.Truncate(s.size); terr != nil {
			c.mu.Lock()
			c.active = nil
			c.mu.Unlock()
		}
	}
	return fmt.Errorf("writing to the cache %s: %w", filepath.Join(c.dir, segName(s.seq)), err)
}

// rotate seals the active segment (its index written), deletes the oldest
// segments while the files would pass the bound with a new segment, and
// starts the new one.
func (c *Cache) rotate() error {
	if s := c.active; s != nil {
		c.mu.Lock()
		c.active = nil
		c.mu.Unlock()
		if err := c.seal(s); err != nil {
			return err
		}
	}
	c.evict(c.segSize)
	seq := uint32(1)
	if len(c.order) > 0 {
		seq = c.order[len(c.order)-1] + 1
	}
	if seq >= maxSeq {
		return fmt.Errorf("the cache %s has used all its segment numbers: delete the directory (it holds only cached data)", c.dir)
	}
	path := filepath.Join(c.dir, segName(seq))
	if err := safefile.WriteFile(path, encodeSegHeader(seq)); err != nil {
		return fmt.Errorf("starting a segment of the cache %s: %w", c.dir, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("starting a segment of the cache %s: %w", c.dir, err)
	}
	s := &segment{seq: seq, f: f, size: segHeader}
	c.mu.Lock()
	c.segs[seq], c.order, c.active = s, append(c.order, seq), s
	c.bytes += segHeader
	c.mu.Unlock()
	return nil
}

// seal makes s's records durable, then writes its index.
func (c *Cache) seal(s *segment) error {
	if !s.dirty {
		return nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("syncing the cache segment %s: %w", s.f.Name(), err)
	}
	b := encodeIdx(s.seq, s.size, s.entries)
	if err := safefile.WriteFile(filepath.Join(c.dir, idxName(s.seq)), b); err != nil {
		return fmt.Errorf("writing the index of the cache segment %s: %w", s.f.Name(), err)
	}
	c.mu.Lock()
	c.bytes += int64(len(b)) - s.idxSize
	s.idxSize, s.dirty = int64(len(b)), false
	c.mu.Unlock()
	return nil
}

// evict deletes the oldest segments (never the active one) while the
// files and room more bytes would pass Options.MaxBytes, and forgets
// their entries. The segment goes first, then its index: a kill in
// between leaves an index without a segment, which Open deletes.
func (c *Cache) evict(room int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	gone := map[uint32]bool{}
	for len(c.order) > 0 && c.bytes+room > c.o.MaxBytes {
		s := c.segs[c.order[0]]
		if s == c.active {
			break
		}
		c.order = c.order[1:]
		delete(c.segs, s.seq)
		gone[s.seq] = true
		c.bytes -= s.size + s.idxSize
		s.f.Close()
		os.Remove(filepath.Join(c.dir, segName(s.seq)))
		os.Remove(filepath.Join(c.dir, idxName(s.seq)))
	}
	if len(gone) == 0 {
		return
	}
	for k, l := range c.index {
		if seq, _ := splitLoc(l); gone[seq] {
			delete(c.index, k)
		}
	}
}

// Size returns the bytes of the cache's files and the number of keys it
// holds.
func (c *Cache) Size() (bytes int64, entries int) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.bytes, len(c.index)
}

// Check reads every record the index points to and counts those whose
// check holds and those whose check fails.
func (c *Cache) Check() (good, bad int, err error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, 0, fmt.Errorf("checking the cache %s: %w", c.dir, ErrClosed)
	}
	buf := make([]byte, readAhead)
	for p, l := range c.index {
		if key, _ := c.read(l, &buf); key != nil && prefix(key) == p {
			good++
		} else {
			bad++
		}
	}
	return good, bad, nil
}

// Close writes the index of the segment in use, closes the files and
// releases the lock. It is safe to call more than once.
func (c *Cache) Close() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	active := c.active
	c.mu.Unlock()
	var errs []error
	if active != nil {
		errs = append(errs, c.seal(active))
	}
	errs = append(errs, c.closeFiles(), c.lock.Unlock())
	return errors.Join(errs...)
}

func (c *Cache) closeFiles() error {
	var errs []error
	for _, s := range c.segs {
		errs = append(errs, s.f.Close())
	}
	return errors.Join(errs...)
}
