package predictions

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/aem-dev/aem/internal/safefile"
	"github.com/aem-dev/aem/metrics/trials"
)

// Store holds the conversations read by Open in a temporary file sorted by
// (conversation id, trial), with a sparse in-memory index (one key per
// 32 KiB), so memory does not grow with the number of conversations beyond
// the index and one bit per conversation that records which were looked
// up. A Store is for use by one goroutine.
type Store struct {
	f     *os.File
	index []indexEntry
	n     int
	used  []uint64
	stats Stats
	files []string
}

type indexEntry struct {
	key string
	off int64
	ord int
}

// Stats counts what Open read.
type Stats struct {
	Files         int    // files read
	Format        Format // the format of the files
	Records       int64  // chat-log lines or spans read
	Used          int64  // spans that contributed a step or a conversation id (spans only)
	Conversations int    // conversations (id and trial)
	Steps         int64  // predicted calls and replies (the user's messages are not counted)
	MalformedArgs int64  // calls whose arguments are not one JSON object
}

const indexEvery = 32 << 10

// convKey orders conversations by id, then trial (none first). The id is
// length-prefixed so any id (NUL bytes included) keeps the prefix property
// Lookup needs.
func convKey(id string, trial *int64) string {
	if trial == nil {
		return idPrefix(id) + "\x00"
	}
	return idPrefix(id) + "\x01" + string(binary.BigEndian.AppendUint64(nil, uint64(*trial)))
}

func idPrefix(id string) string {
	return string(binary.AppendUvarint(nil, uint64(len(id)))) + id
}

// storeWriter builds a Store from conversations given in key order.
type storeWriter struct {
	s       *Store
	w       *bufio.Writer
	off     int64
	indexed int64
	lastKey string
	last    Source
	buf     []byte
}

func newStoreWriter(dir string) (*storeWriter, error) {
	f, err := os.CreateTemp(dir, "aem-predictions-*.store")
	if err != nil {
		return nil, fmt.Errorf("creating the predictions store: %w", err)
	}
	return &storeWriter{s: &Store{f: f}, w: bufio.NewWriterSize(f, 1<<20), indexed: -indexEvery}, nil
}

// add appends c; keys must come in increasing order. The same (id, trial)
// twice is an input error naming both places.
func (sw *storeWriter) add(c Conversation) error {
	key := convKey(c.ID, c.Trial)
	if sw.s.n > 0 && key == sw.lastKey {
		return rowError(ErrInvalidRecord, c.Source.File, -1, c.Source.Line, "conversation_id",
			fmt.Sprintf("conversation %q%s appears twice (also at %s)", c.ID, trials.Note(c.Trial), where(sw.last)),
			"give repeated runs of a conversation distinct \"trial\" numbers, or remove the duplicate", nil)
	}
	if sw.s.n > 0 && c.Trial != nil && sw.lastKey == convKey(c.ID, nil) {
		return rowError(ErrInvalidRecord, c.Source.File, -1, c.Source.Line, "trial",
			fmt.Sprintf("conversation %q has trial %d here and a run without a trial at %s", c.ID, *c.Trial, where(sw.last)),
			"number every run of a conversation with a \"trial\", or none", nil)
	}
	val, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encoding conversation %q: %w", c.ID, err)
	}
	if sw.off-sw.indexed >= indexEvery {
		sw.s.index = append(sw.s.index, indexEntry{key: key, off: sw.off, ord: sw.s.n})
		sw.indexed = sw.off
	}
	sw.buf = appendRecord(sw.buf[:0], key, val)
	if _, err := sw.w.Write(sw.buf); err != nil {
		return fmt.Errorf("writing the predictions store: %w", err)
	}
	sw.off += int64(len(sw.buf))
	sw.lastKey, sw.last = key, c.Source
	sw.s.n++
	sw.s.stats.Conversations++
	for _, st := range c.Steps {
		if st.Kind != StepUser {
			sw.s.stats.Steps++
		}
		if st.ArgsError != "" {
			sw.s.stats.MalformedArgs++
		}
	}
	return nil
}

func (sw *storeWriter) finish() (*Store, error) {
	if err := sw.w.Flush(); err != nil {
		sw.s.Close()
		return nil, fmt.Errorf("writing the predictions store: %w", err)
	}
	sw.s.used = make([]uint64, (sw.s.n+63)/64)
	return sw.s, nil
}

func where(s Source) string {
	switch {
	case s.Line > 0:
		return fmt.Sprintf("%s line %d", s.File, s.Line)
	case s.TraceID != "":
		return fmt.Sprintf("%s trace %s", s.File, s.TraceID)
	}
	return s.File
}

// Len is the number of conversations (counting each trial).
func (s *Store) Len() int { return s.n }

// Stats says what Open read.
func (s *Store) Stats() Stats { return s.stats }

// Lookup returns every trial of conversation id, by trial, and marks them
// used (see Unused). None is not an error: the gold dialog then has no
// predictions.
func (s *Store) Lookup(id string) ([]Conversation, error) {
	prefix := idPrefix(id)
	i := sort.Search(len(s.index), func(i int) bool { return s.index[i].key >= prefix })
	start, ord := int64(0), 0
	if i > 0 {
		start, ord = s.index[i-1].off, s.index[i-1].ord
	}
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, start, 1<<62), 32<<10)
	var out []Conversation
	for ; ord < s.n; ord++ {
		key, val, err := readRecord(r)
		if err != nil {
			return nil, fmt.Errorf("reading the predictions store: %w", noEOF(err))
		}
		if key < prefix {
			continue
		}
		if !strings.HasPrefix(key, prefix) {
			break
		}
		var c Conversation
		if err := json.Unmarshal(val, &c); err != nil {
			return nil, fmt.Errorf("decoding the predictions store: %w", err)
		}
		s.used[ord/64] |= 1 << (ord % 64)
		out = append(out, c)
	}
	return out, nil
}

// Each calls fn for every conversation in (id, trial) order, with whether
// Lookup has returned it.
func (s *Store) Each(fn func(c Conversation, used bool) error) error {
	r := bufio.NewReaderSize(io.NewSectionReader(s.f, 0, 1<<62), 1<<20)
	for ord := 0; ord < s.n; ord++ {
		_, val, err := readRecord(r)
		if err != nil {
			return fmt.Errorf("reading the predictions store: %w", noEOF(err))
		}
		var c Conversation
		if err := json.Unmarshal(val, &c); err != nil {
			return fmt.Errorf("decoding the predictions store: %w", err)
		}
		if err := fn(c, s.used[ord/64]&(1<<(ord%64)) != 0); err != nil {
			return err
		}
	}
	return nil
}

// Close removes the store's temporary file.
func (s *Store) Close() error {
	if s == nil || s.f == nil {
		return nil
	}
	name := s.f.Name()
	err := s.f.Close()
	if rerr := os.Remove(name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		err = errors.Join(err, rerr)
	}
	s.f = nil
	return err
}

// Fingerprint identifies a joined input, for resume: the sha256 of the gold
// file's, every predictions file's sha256 and the join settings.
func Fingerprint(gold string, st *Store, settings string) (string, error) {
	h := sha256.New()
	for _, path := range append([]string{gold}, st.files...) {
		sum, err := safefile.SHA256(path)
		if err != nil {
			return "", fmt.Errorf("fingerprinting the predictions: %w", err)
		}
		fmt.Fprintf(h, "%s %s\n", sum, path)
	}
	h.Write([]byte(settings))
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
