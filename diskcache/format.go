package diskcache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/cespare/xxhash/v2"
)

// The files of a cache directory (see the package doc):
//
//	lock          flock'd by the process that has the cache open (its pid inside)
//	NNNNNNNN.seg  a segment: a header, then records, appended in order
//	NNNNNNNN.idx  a segment's index: where its records lie, written when
//	              the segment is sealed and, for the segment being
//	              appended to, at Close
//
// Segment header (segHeader bytes):
//
//	"AEMCSEG1" | seq u32 | xxhash64(magic, seq) low 32 bits
//
// Record (recHeader bytes, then the payload):
//
//	"AEMR" | payload length u32 | xxhash64(key, payload) u64 | key [32] | payload
//
// Index file:
//
//	"AEMCIDX1" | seq u64 | covered u64 | count u64 | count x (key prefix u64 | offset u64) | xxhash64(all before) u64
//
// covered is the segment's length when the index was written: the
// records before it are listed, the ones after it are found by reading
// them. Integers are little-endian except key prefixes (the first 8 bytes
// of the key, big-endian). Every part that is read is verified before it
// is used: a record's check covers its key and payload, so a record that
// lies about its length, its key or its bytes is a miss, never a wrong
// value.
const (
	segMagic   = "AEMCSEG1"
	idxMagic   = "AEMCIDX1"
	recMagic   = "AEMR"
	segHeader  = 16
	recHeader  = 4 + 4 + 8 + 32
	idxHeader  = 8 + 8 + 8 + 8
	idxEntry   = 16
	segExt     = ".seg"
	idxExt     = ".idx"
	lockName   = "lock"
	corruptExt = ".corrupt-"

	// MaxPayload is the largest payload Put stores (a vector is 2 KiB, a
	// judge's answer well under 64 KiB).
	MaxPayload = 16 << 20
	// readAhead is how much of a record Get reads at once: a 512-d vector's
	// record (2,100 bytes) in one read; longer ones take a second.
	readAhead = 4 << 10
	// scanChunk is how much of a segment is read at a time when its
	// records are read in order (at Open, for a segment without a usable
	// index).
	scanChunk = 1 << 20
)

// errBadHeader: a file that is not a segment (or index) of this format.
var errBadHeader = errors.New("not a cache segment of this format")

func segName(seq uint32) string { return fmt.Sprintf("%08d%s", seq, segExt) }
func idxName(seq uint32) string { return fmt.Sprintf("%08d%s", seq, idxExt) }

// encodeSegHeader returns a new segment's header.
func encodeSegHeader(seq uint32) []byte {
	b := make([]byte, segHeader)
	copy(b, segMagic)
	binary.LittleEndian.PutUint32(b[8:], seq)
	binary.LittleEndian.PutUint32(b[12:], uint32(xxhash.Sum64(b[:12])))
	return b
}

// checkSegHeader verifies a segment's header and that it names seq.
func checkSegHeader(b []byte, seq uint32) error {
	switch {
	case len(b) < segHeader:
		return fmt.Errorf("%w: %d bytes, shorter than a header", errBadHeader, len(b))
	case string(b[:8]) != segMagic:
		return fmt.Errorf("%w: it starts with %q", errBadHeader, b[:8])
	case binary.LittleEndian.Uint32(b[12:]) != uint32(xxhash.Sum64(b[:12])):
		return fmt.Errorf("%w: its header fails its check", errBadHeader)
	case binary.LittleEndian.Uint32(b[8:]) != seq:
		return fmt.Errorf("%w: its header names segment %d", errBadHeader, binary.LittleEndian.Uint32(b[8:]))
	}
	return nil
}

// appendRecord appends key and payload's record to b.
func appendRecord(b []byte, key [32]byte, payload []byte) []byte {
	n := len(b)
	b = append(b, recMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = append(b, key[:]...)
	b = append(b, payload...)
	binary.LittleEndian.PutUint64(b[n+8:], xxhash.Sum64(b[n+16:]))
	return b
}

// recordLen is the length of the record that starts with header h (at
// least recHeader bytes), or -1 when h is not a record's header.
func recordLen(h []byte) int {
	if string(h[:4]) != recMagic {
		return -1
	}
	n := binary.LittleEndian.Uint32(h[4:])
	if n > MaxPayload {
		return -1
	}
	return recHeader + int(n)
}

// checkRecord verifies a whole record (exactly recordLen bytes) and
// returns its key and payload.
func checkRecord(r []byte) (key []byte, payload []byte, ok bool) {
	if len(r) < recHeader || recordLen(r) != len(r) {
		return nil, nil, false
	}
	if xxhash.Sum64(r[16:]) != binary.LittleEndian.Uint64(r[8:]) {
		return nil, nil, false
	}
	return r[16:48], r[recHeader:], true
}

// prefix is the index's key: the key's first 8 bytes.
func prefix(key []byte) uint64 { return binary.BigEndian.Uint64(key[:8]) }

// idxFile is a decoded index file.
type idxFile struct {
	covered int64
	entries []idxRec
}

// idxRec is one record in an index file: its key prefix and offset.
type idxRec struct {
	key uint64
	off int64
}

// encodeIdx encodes segment seq's index: the records before covered.
func encodeIdx(seq uint32, covered int64, entries []idxRec) []byte {
	b := make([]byte, 0, idxHeader+idxEntry*len(entries)+8)
	b = append(b, idxMagic...)
	b = binary.LittleEndian.AppendUint64(b, uint64(seq))
	b = binary.LittleEndian.AppendUint64(b, uint64(covered))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(entries)))
	for _, e := range entries {
		b = binary.LittleEndian.AppendUint64(b, e.key)
		b = binary.LittleEndian.AppendUint64(b, uint64(e.off))
	}
	return binary.LittleEndian.AppendUint64(b, xxhash.Sum64(b))
}

// decodeIdx decodes and verifies segment seq's index file against the
// segment's size: an index that fails its check, names another segment
// or lists records past the segment's end is refused.
func decodeIdx(b []byte, seq uint32, segSize int64) (idxFile, error) {
	if len(b) < idxHeader+8 || string(b[:8]) != idxMagic {
		return idxFile{}, errors.New("not an index file")
	}
	body := b[:len(b)-8]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(b[len(b)-8:]) {
		return idxFile{}, errors.New("it fails its check")
	}
	le := binary.LittleEndian
	covered, count := int64(le.Uint64(b[16:])), le.Uint64(b[24:])
	switch {
	case le.Uint64(b[8:]) != uint64(seq):
		return idxFile{}, fmt.Errorf("it names segment %d", le.Uint64(b[8:]))
	case count != uint64(len(body)-idxHeader)/idxEntry || (len(body)-idxHeader)%idxEntry != 0:
		return idxFile{}, errors.New("its length disagrees with its count")
	case covered < segHeader || covered > segSize:
		return idxFile{}, fmt.Errorf("it covers %d bytes of a %d-byte segment", covered, segSize)
	}
	x := idxFile{covered: covered, entries: make([]idxRec, count)}
	for i := range x.entries {
		p := body[idxHeader+idxEntry*i:]
		x.entries[i] = idxRec{key: le.Uint64(p), off: int64(le.Uint64(p[8:]))}
		if x.entries[i].off < segHeader || x.entries[i].off+recHeader > covered {
			return idxFile{}, fmt.Errorf("it lists a record at %d, outside the %d bytes it covers", x.entries[i].off, covered)
		}
	}
	return x, nil
}

// scan reads the records of a segment of size bytes from offset from to
// the end, and calls found for each whole record whose check holds. Bytes
// that are not part of such a record (a write cut short, damage) are
// skipped: the scan looks for the next record header after them. end is
// where the last good record ends (from, if none), skipped how many bytes
// were passed over.
func scan(r io.ReaderAt, from, size int64, found func(key []byte, off int64)) (end, skipped int64, err error) {
	w := window{r: r, size: size}
	end = from
	for p := from; p+recHeader <= size; {
		h, err := w.bytes(p, recHeader)
		if err != nil {
			return end, skipped, err
		}
		if n := recordLen(h); n > 0 && p+int64(n) <= size {
			rec, err := w.bytes(p, n)
			if err != nil {
				return end, skipped, err
			}
			if key, _, ok := checkRecord(rec); ok {
				found(key, p)
				skipped += p - end
				p += int64(n)
				end = p
				continue
			}
		}
		if p, err = w.find(p+1, recMagic); err != nil {
			return end, skipped, err
		}
	}
	return end, skipped + size - end, nil
}

// window reads a file in chunks for scan.
type window struct {
	r    io.ReaderAt
	size int64
	buf  []byte // the bytes at base
	base int64
}

// bytes returns the n bytes at off (off+n <= size), valid until the next
// call.
func (w *window) bytes(off int64, n int) ([]byte, error) {
	if off >= w.base && off+int64(n) <= w.base+int64(len(w.buf)) {
		return w.buf[off-w.base:][:n], nil
	}
	m := int(min(int64(max(n, scanChunk)), w.size-off))
	if cap(w.buf) < m {
		w.buf = make([]byte, m)
	}
	w.buf, w.base = w.buf[:m], off
	k, err := w.r.ReadAt(w.buf, off)
	if k < n {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		w.buf = w.buf[:0]
		return nil, err
	}
	w.buf = w.buf[:k]
	return w.buf[:n], nil
}

// find returns the offset of the first occurrence of magic at or after
// off, or the segment's size when there is none.
func (w *window) find(off int64, magic string) (int64, error) {
	for off+int64(len(magic)) <= w.size {
		n := int(min(scanChunk, w.size-off))
		b, err := w.bytes(off, n)
		if err != nil {
			return 0, err
		}
		if i := bytes.Index(b, []byte(magic)); i >= 0 {
			return off + int64(i), nil
		}
		off += int64(n - len(magic) + 1)
	}
	return w.size, nil
}
