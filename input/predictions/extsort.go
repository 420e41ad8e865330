package predictions

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// sorter is an external merge sort of (key, value) records: records are
// sorted in memory up to limit bytes, then written as a sorted run to a
// temporary file; each merges the runs with a heap. Records with equal keys
// come out in the order they were added. Memory holds one run's records
// plus one buffered record per run.
type sorter struct {
	dir   string
	limit int
	mem   []record
	size  int
	runs  []*os.File
}

type record struct {
	key string
	val []byte
}

func newSorter(dir string, limit int) *sorter {
	return &sorter{dir: dir, limit: limit}
}

func (s *sorter) add(key string, val []byte) error {
	s.mem = append(s.mem, record{key: key, val: val})
	s.size += len(key) + len(val) + 48
	if s.size >= s.limit {
		return s.spill()
	}
	return nil
}

func (s *sorter) sortMem() {
	slices.SortStableFunc(s.mem, func(a, b record) int { return strings.Compare(a.key, b.key) })
}

// spill writes the in-memory records as one sorted run.
func (s *sorter) spill() error {
	s.sortMem()
	f, err := os.CreateTemp(s.dir, "aem-predictions-*.run")
	if err != nil {
		return fmt.Errorf("spilling predictions to disk: %w", err)
	}
	s.runs = append(s.runs, f)
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for _, r := range s.mem {
		buf = appendRecord(buf[:0], r.key, r.val)
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("spilling predictions to %s: %w", f.Name(), err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("spilling predictions to %s: %w", f.Name(), err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding %s: %w", f.Name(), err)
	}
	clear(s.mem)
	s.mem, s.size = s.mem[:0], 0
	return nil
}

func appendRecord(b []byte, key string, val []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(val)))
	return append(b, val...)
}

// readRecord reads one record; io.EOF at a clean end.
func readRecord(r *bufio.Reader) (string, []byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", nil, err
	}
	key := make([]byte, n)
	if _, err := io.ReadFull(r, key); err != nil {
		return "", nil, noEOF(err)
	}
	m, err := binary.ReadUvarint(r)
	if err != nil {
		return "", nil, noEOF(err)
	}
	val := make([]byte, m)
	if _, err := io.ReadFull(r, val); err != nil {
		return "", nil, noEOF(err)
	}
	return string(key), val, nil
}

func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// each calls fn for every record in key order and empties the sorter.
func (s *sorter) each(fn func(key string, val []byte) error) error {
	if len(s.runs) == 0 { // everything fits in memory: no disk
		s.sortMem()
		for _, r := range s.mem {
			if err := fn(r.key, r.val); err != nil {
				return err
			}
		}
		s.mem = nil
		return nil
	}
	if err := s.spill(); err != nil {
		return err
	}
	h := &mergeHeap{}
	for i, f := range s.runs {
		c := &cursor{run: i, r: bufio.NewReaderSize(f, 64<<10)}
		if ok, err := c.next(); err != nil {
			return fmt.Errorf("reading spill file %s: %w", f.Name(), err)
		} else if ok {
			heap.Push(h, c)
		}
	}
	for h.Len() > 0 {
		c := (*h)[0]
		if err := fn(c.key, c.val); err != nil {
			return err
		}
		ok, err := c.next()
		if err != nil {
			return fmt.Errorf("reading spill file %s: %w", s.runs[c.run].Name(), err)
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
	}
	return nil
}

// close removes the run files.
func (s *sorter) close() error {
	var errs []error
	for _, f := range s.runs {
		f.Close()
		if err := os.Remove(f.Name()); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	s.runs, s.mem = nil, nil
	return errors.Join(errs...)
}

type cursor struct {
	run int
	r   *bufio.Reader
	key string
	val []byte
}

func (c *cursor) next() (bool, error) {
	k, v, err := readRecord(c.r)
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c.key, c.val = k, v
	return true, nil
}

// mergeHeap orders cursors by key, then by run (earlier runs hold earlier
// records), which keeps equal keys in insertion order.
type mergeHeap []*cursor

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].run < h[j].run
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
