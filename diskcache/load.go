package diskcache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aem-dev/aem/internal/safefile"
)

// load reads the directory: every segment's index or records into
// c.index, oldest segment first (a later record of a key wins). It fails
// only when the directory cannot be listed.
func (c *Cache) load() error {
	dirents, err := os.ReadDir(c.dir)
	if err != nil {
		return fmt.Errorf("reading the cache directory %s: %w", c.dir, err)
	}
	var seqs []uint32
	idxs := map[uint32]bool{}
	for _, d := range dirents {
		seq, ext, ok := parseName(d.Name())
		switch {
		case !ok || !d.Type().IsRegular():
		case ext == segExt:
			seqs = append(seqs, seq)
		case ext == idxExt:
			idxs[seq] = true
		}
	}
	slices.Sort(seqs)
	// Writes cut short (safefile's temporaries): of an index, or of the
	// segment after the last.
	next := uint32(1)
	if len(seqs) > 0 {
		next = seqs[len(seqs)-1] + 1
	}
	stale := []string{segName(next)}
	for _, seq := range seqs {
		stale = append(stale, idxName(seq))
	}
	_ = safefile.RemoveStale(c.dir, stale...) // best effort: they are never read
	c.index = make(map[uint64]uint64, c.expectedKeys(idxs))
	for i, seq := range seqs {
		last := i == len(seqs)-1
		s, err := c.openSegment(seq, last)
		if err != nil {
			c.setAside(segName(seq), err)
			continue
		}
		c.segs[seq], c.order = s, append(c.order, seq)
	}
	c.bytes = 0
	for _, s := range c.segs {
		c.bytes += s.size + s.idxSize
	}
	for seq := range idxs {
		if c.segs[seq] == nil {
			// An index without its segment: derived data, useless alone.
			os.Remove(filepath.Join(c.dir, idxName(seq)))
		}
	}
	return nil
}

// expectedKeys is how many keys the index files list, from their sizes:
// the index map is made that large at once rather than grown.
func (c *Cache) expectedKeys(idxs map[uint32]bool) int {
	n := int64(0)
	for seq := range idxs {
		if st, err := os.Stat(filepath.Join(c.dir, idxName(seq))); err == nil {
			n += max(st.Size()-idxHeader-8, 0) / idxEntry
		}
	}
	return int(min(n, 1<<28))
}

// openSegment opens segment seq and indexes its records: from its index
// file where that holds, then by reading the records it does not cover.
// The last segment becomes the active one when it can be written: bytes
// after its last whole record (a write cut short) are cut off first.
func (c *Cache) openSegment(seq uint32, last bool) (*segment, error) {
	path := filepath.Join(c.dir, segName(seq))
	var f *os.File
	writable, err := last, errors.New("sealed")
	if last {
		f, err = os.OpenFile(path, os.O_RDWR, 0)
	}
	if err != nil { // sealed, or a file this process may only read
		writable = false
		if f, err = os.Open(path); err != nil {
			return nil, err
		}
	}
	s, err := c.readSegment(f, seq, writable)
	if err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// readSegment is openSegment on the open file f.
func (c *Cache) readSegment(f *os.File, seq uint32, writable bool) (*segment, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	hdr := make([]byte, segHeader)
	n, _ := f.ReadAt(hdr, 0)
	if err := checkSegHeader(hdr[:n], seq); err != nil {
		return nil, err
	}
	s := &segment{seq: seq, f: f, size: size}
	var recs []idxRec // the records indexed, for an index to write
	add := func(r idxRec) {
		c.index[r.key] = loc(seq, r.off)
		recs = append(recs, r)
	}
	from := int64(segHeader)
	idxPath := filepath.Join(c.dir, idxName(seq))
	switch b, err := os.ReadFile(idxPath); {
	case errors.Is(err, fs.ErrNotExist): // never written: a kill before Close
	case err != nil:
		c.notice("the index %s could not be read (%v): the records of %s were read instead", idxPath, err, f.Name())
	default:
		x, err := decodeIdx(b, seq, size)
		if err != nil {
			c.notice("the index %s could not be used (%v): the records of %s were read instead", idxPath, err, f.Name())
			break
		}
		for _, r := range x.entries {
			add(r)
		}
		from, s.idxSize = x.covered, int64(len(b))
	}
	if from < size {
		end, skipped, err := scan(f, from, size, func(key []byte, off int64) { add(idxRec{key: prefix(key), off: off}) })
		if err != nil {
			return nil, err
		}
		if skipped > 0 {
			c.notice("%s: skipped %d bytes that are not whole records (a write cut short, or damage)", f.Name(), skipped)
		}
		s.dirty = true // its index does not cover every record
		if writable && end < size {
			if err := f.Truncate(end); err != nil {
				writable = false
			} else {
				s.size = end
			}
		}
	}
	switch {
	case writable:
		s.entries, c.active = recs, s
	case s.dirty:
		// A sealed segment whose index was missing or unusable: write it
		// again so that the next Open need not read the records. Best
		// effort: without it the records are read again next time.
		s.entries = recs
		_ = c.seal(s)
		s.entries = nil
	}
	return s, nil
}

// setAside moves a segment that cannot be used out of the way (or deletes
// it, Options.DiscardCorrupt), with a notice either way. Its index, if
// any, is then deleted by load: it only lists offsets.
func (c *Cache) setAside(name string, why error) {
	path := filepath.Join(c.dir, name)
	if c.o.DiscardCorrupt {
		if err := os.Remove(path); err != nil {
			c.notice("%s could not be used (%v) and could not be deleted (%v): it is skipped", path, why, err)
			return
		}
		c.notice("%s could not be used (%v): deleted (discard corrupt); its entries are misses", path, why)
		return
	}
	aside := path + corruptExt + strconv.FormatInt(time.Now().Unix(), 10)
	for i := 2; fileExists(aside); i++ {
		aside = path + corruptExt + strconv.FormatInt(time.Now().Unix(), 10) + "-" + strconv.Itoa(i)
	}
	if err := os.Rename(path, aside); err != nil {
		c.notice("%s could not be used (%v) and could not be moved aside (%v): it is skipped", path, why, err)
		return
	}
	c.notice("%s could not be used (%v): moved aside to %s; its entries are misses", path, why, aside)
}

func fileExists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// parseName parses "NNNNNNNN.seg" and "NNNNNNNN.idx".
func parseName(name string) (seq uint32, ext string, ok bool) {
	ext = filepath.Ext(name)
	digits := strings.TrimSuffix(name, ext)
	if (ext != segExt && ext != idxExt) || len(digits) != 8 {
		return 0, "", false
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || n == 0 || n >= maxSeq {
		return 0, "", false
	}
	return uint32(n), ext, true
}
