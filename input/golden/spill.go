package golden

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// The unsorted fallback is an external merge sort of the raw rows by
// (first row of the row's dialog, dialog_id, row). Sorted runs of at most
// ReadOptions.SpillMemory bytes are written to temporary files and merged
// with a heap, so memory stays bounded whatever the file size; the output
// has each dialog's rows together, dialogs in order of first appearance.

// spillEntry is one encoded row waiting in memory.
type spillEntry struct {
	first int64
	row   int64
	id    string
	data  []byte // encoded parquet.Row
}

func compareEntries(a, b *spillEntry) int {
	if c := cmp.Compare(a.first, b.first); c != 0 {
		return c
	}
	if c := strings.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.row, b.row)
}

// spillSorter accumulates rows, spilling sorted runs to disk.
type spillSorter struct {
	dir    string
	limit  int64
	source string

	mem     []spillEntry
	memSize int64
	runs    []*os.File
	scratch []byte
}

func newSpillSorter(dir string, limit int64, source string) (*spillSorter, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("creating spill dir for unsorted %s: %w", source, err)
	}
	return &spillSorter{dir: dir, limit: limit, source: source}, nil
}

func (s *spillSorter) add(first, row int64, id string, r parquet.Row) error {
	data := appendRow(nil, r)
	s.mem = append(s.mem, spillEntry{first: first, row: row, id: id, data: data})
	s.memSize += int64(len(data)+len(id)) + 64
	if s.memSize >= s.limit {
		return s.flush()
	}
	return nil
}

// flush sorts the in-memory rows and writes them as one run file.
func (s *spillSorter) flush() error {
	if len(s.mem) == 0 {
		return nil
	}
	slices.SortFunc(s.mem, func(a, b spillEntry) int { return compareEntries(&a, &b) })
	f, err := os.CreateTemp(s.dir, "aem-spill-*.run")
	if err != nil {
		return fmt.Errorf("spilling unsorted %s to disk: %w", s.source, err)
	}
	s.runs = append(s.runs, f)
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range s.mem {
		e := &s.mem[i]
		b := s.scratch[:0]
		b = binary.AppendUvarint(b, uint64(e.first))
		b = binary.AppendUvarint(b, uint64(e.row))
		b = binary.AppendUvarint(b, uint64(len(e.id)))
		b = append(b, e.id...)
		b = binary.AppendUvarint(b, uint64(len(e.data)))
		b = append(b, e.data...)
		s.scratch = b
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("spilling unsorted %s to %s: %w", s.source, f.Name(), err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("spilling unsorted %s to %s: %w", s.source, f.Name(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding spill file %s: %w", f.Name(), err)
	}
	clear(s.mem)
	s.mem, s.memSize = s.mem[:0], 0
	return nil
}

// Close removes the run files.
func (s *spillSorter) Close() error {
	var errs []error
	for _, f := range s.runs {
		f.Close()
		if err := os.Remove(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	s.runs = nil
	return errors.Join(errs...)
}

// iterate returns the rows in sorted order. With no run on disk it sorts
// in memory; otherwise it flushes the rest and merges the runs.
func (s *spillSorter) iterate() (func() (spillEntry, error), error) {
	if len(s.runs) == 0 {
		slices.SortFunc(s.mem, func(a, b spillEntry) int { return compareEntries(&a, &b) })
		mem := s.mem
		return func() (spillEntry, error) {
			if len(mem) == 0 {
				return spillEntry{}, io.EOF
			}
			e := mem[0]
			mem[0] = spillEntry{}
			mem = mem[1:]
			return e, nil
		}, nil
	}
	if err := s.flush(); err != nil {
		return nil, err
	}
	s.mem = nil
	h := &runHeap{}
	for _, f := range s.runs {
		rr := &runReader{r: bufio.NewReaderSize(f, 256<<10), name: f.Name()}
		ok, err := rr.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			h.items = append(h.items, rr)
		}
	}
	heap.Init(h)
	return func() (spillEntry, error) {
		if h.Len() == 0 {
			return spillEntry{}, io.EOF
		}
		top := h.items[0]
		e := top.cur
		ok, err := top.advance()
		if err != nil {
			return spillEntry{}, err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
		return e, nil
	}, nil
}

type runReader struct {
	r    *bufio.Reader
	name string
	cur  spillEntry
}

func (rr *runReader) advance() (bool, error) {
	first, err := binary.ReadUvarint(rr.r)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	bad := func(err error) (bool, error) {
		return false, fmt.Errorf("reading spill file %s: %w", rr.name, err)
	}
	if err != nil {
		return bad(err)
	}
	row, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return bad(err)
	}
	idLen, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return bad(err)
	}
	id := make([]byte, idLen)
	if _, err := io.ReadFull(rr.r, id); err != nil {
		return bad(err)
	}
	dataLen, err := binary.ReadUvarint(rr.r)
	if err != nil {
		return bad(err)
	}
	data := make([]byte, dataLen)
	if _, err := io.ReadFull(rr.r, data); err != nil {
		return bad(err)
	}
	rr.cur = spillEntry{first: int64(first), row: int64(row), id: string(id), data: data}
	return true, nil
}

type runHeap struct{ items []*runReader }

func (h *runHeap) Len() int           { return len(h.items) }
func (h *runHeap) Less(i, j int) bool { return compareEntries(&h.items[i].cur, &h.items[j].cur) < 0 }
func (h *runHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *runHeap) Push(x any)         { h.items = append(h.items, x.(*runReader)) }
func (h *runHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// appendRow encodes a row: per value a kind tag (0 = null, kind+1
// otherwise), the repetition and definition levels, the column index and
// the payload.
func appendRow(b []byte, r parquet.Row) []byte {
	b = binary.AppendUvarint(b, uint64(len(r)))
	for _, v := range r {
		tag := byte(0)
		if !v.IsNull() {
			tag = byte(v.Kind()) + 1
		}
		b = append(b, tag, byte(v.RepetitionLevel()), byte(v.DefinitionLevel()))
		b = binary.AppendUvarint(b, uint64(v.Column()))
		if v.IsNull() {
			continue
		}
		switch v.Kind() {
		case parquet.Boolean:
			if v.Boolean() {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case parquet.Int32:
			b = binary.LittleEndian.AppendUint32(b, uint32(v.Int32()))
		case parquet.Int64:
			b = binary.LittleEndian.AppendUint64(b, uint64(v.Int64()))
		case parquet.Float:
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v.Float()))
		case parquet.Double:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Double()))
		case parquet.Int96:
			i96 := v.Int96()
			for _, w := range i96 {
				b = binary.LittleEndian.AppendUint32(b, w)
			}
		default: // ByteArray, FixedLenByteArray
			b = binary.AppendUvarint(b, uint64(len(v.ByteArray())))
			b = append(b, v.ByteArray()...)
		}
	}
	return b
}

var errBadSpill = errors.New("malformed spill record")

// decodeRow is the inverse of appendRow.
func decodeRow(b []byte) (parquet.Row, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errBadSpill
	}
	b = b[k:]
	r := make(parquet.Row, 0, n)
	for i := uint64(0); i < n; i++ {
		if len(b) < 3 {
			return nil, errBadSpill
		}
		tag, rep, def := b[0], int(b[1]), int(b[2])
		b = b[3:]
		col, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errBadSpill
		}
		b = b[k:]
		var v parquet.Value
		need := func(n int) bool { return len(b) >= n }
		switch tag {
		case 0:
			v = parquet.NullValue()
		case byte(parquet.Boolean) + 1:
			if !need(1) {
				return nil, errBadSpill
			}
			v, b = parquet.BooleanValue(b[0] != 0), b[1:]
		case byte(parquet.Int32) + 1:
			if !need(4) {
				return nil, errBadSpill
			}
			v, b = parquet.Int32Value(int32(binary.LittleEndian.Uint32(b))), b[4:]
		case byte(parquet.Int64) + 1:
			if !need(8) {
				return nil, errBadSpill
			}
			v, b = parquet.Int64Value(int64(binary.LittleEndian.Uint64(b))), b[8:]
		case byte(parquet.Float) + 1:
			if !need(4) {
				return nil, errBadSpill
			}
			v, b = parquet.FloatValue(math.Float32frombits(binary.LittleEndian.Uint32(b))), b[4:]
		case byte(parquet.Double) + 1:
			if !need(8) {
				return nil, errBadSpill
			}
			v, b = parquet.DoubleValue(math.Float64frombits(binary.LittleEndian.Uint64(b))), b[8:]
		case byte(parquet.Int96) + 1:
			if !need(12) {
				return nil, errBadSpill
			}
			var i96 deprecated.Int96
			for j := range i96 {
				i96[j] = binary.LittleEndian.Uint32(b[4*j:])
			}
			v, b = parquet.Int96Value(i96), b[12:]
		case byte(parquet.ByteArray) + 1, byte(parquet.FixedLenByteArray) + 1:
			l, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < l {
				return nil, errBadSpill
			}
			data := b[k : k+int(l)]
			b = b[k+int(l):]
			if tag == byte(parquet.ByteArray)+1 {
				v = parquet.ByteArrayValue(data)
			} else {
				v = parquet.FixedLenByteArrayValue(data)
			}
		default:
			return nil, errBadSpill
		}
		r = append(r, v.Level(rep, def, int(col)))
	}
	return r, nil
}

// spillAll reads every raw row of the file into the sorter and returns the
// rows, decoded, grouped by dialog in order of first appearance.
func (s *parquetSource) spillAll(ctx context.Context, sorter *spillSorter, spans *dialogSpans) (func() (turnRec, error), error) {
	next := s.rawRows(ctx)
	idLeaf := s.canon[slotDialogID].leaf
	var idBuf []byte
	for {
		r, row, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		idBuf = idBuf[:0]
		for _, v := range r {
			if v.Column() == idLeaf && !v.IsNull() {
				idBuf = appendID(idBuf, v)
				break
			}
		}
		// Null or empty ids were rejected by the detection pass.
		id := string(idBuf)
		if err := sorter.add(spans.firstRow(id), row, id, r); err != nil {
			return nil, err
		}
	}
	entries, err := sorter.iterate()
	if err != nil {
		return nil, err
	}
	return func() (turnRec, error) {
		if err := ctx.Err(); err != nil {
			return turnRec{}, err
		}
		e, err := entries()
		if err != nil {
			return turnRec{}, err
		}
		r, err := decodeRow(e.data)
		if err != nil {
			return turnRec{}, fmt.Errorf("reading spilled row %d of %s: %w", e.row, s.path, err)
		}
		return s.decode(r, e.row)
	}, nil
}
