package rundir

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Shard selects one of Count disjoint subsets of the dialogs. Dialog d is
// in shard FNV-1a-64(d.ID) mod Count, so a shard's content depends only on
// the dialog IDs, never on the other shards, and every trial of a task
// (the same dialog_id) is in the same shard.
type Shard struct {
	Index int
	Count int
}

// Enabled reports whether the shard selects a strict subset.
func (s Shard) Enabled() bool { return s.Count > 1 }

// String formats the shard as "index/count".
func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Contains reports whether the dialog with this ID belongs to the shard.
func (s Shard) Contains(dialogID string) bool {
	if !s.Enabled() {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(dialogID))
	return h.Sum64()%uint64(s.Count) == uint64(s.Index)
}

// Validate checks 0 <= Index < Count (or the zero Shard).
func (s Shard) Validate() error {
	if s.Count == 0 && s.Index == 0 {
		return nil
	}
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("%w: shard %s: want 0 <= index < count", ErrBadShard, s)
	}
	return nil
}

// ParseShard parses "i/n" (0-based index i of n shards), as given to --shard.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("%w: shard %q: want INDEX/COUNT, e.g. 0/4", ErrBadShard, s)
	}
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err := errors.Join(err1, err2); err != nil {
		return Shard{}, fmt.Errorf("%w: shard %q: want INDEX/COUNT, e.g. 0/4: %w", ErrBadShard, s, err)
	}
	if cnt < 1 {
		return Shard{}, fmt.Errorf("%w: shard %q: the count must be at least 1", ErrBadShard, s)
	}
	sh := Shard{Index: idx, Count: cnt}
	return sh, sh.Validate()
}
