package diskcache

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"
)

// PruneOptions says what Prune deletes. The zero value deletes nothing.
type PruneOptions struct {
	// MaxBytes: delete the oldest segments while the files pass it (0:
	// no size limit).
	MaxBytes int64
	// Before: delete the segments last written before it (zero: no age
	// limit). A segment is written in one stretch, so its file's
	// modification time is when its newest entry was stored; entries are
	// dated by when they were stored, not when they were last read.
	Before time.Time
}

// Pruned says what Prune deleted and what is left.
type Pruned struct {
	Segments     int   // segments deleted
	Bytes        int64 // bytes freed
	Entries      int   // entries forgotten
	BytesLeft    int64
	EntriesLeft  int
	SegmentsLeft int
}

// Prune opens the cache in dir (taking its lock, waiting up to
// lockTimeout for a run that holds it), deletes whole segments, oldest
// first, while the files pass o.MaxBytes or the oldest was last written
// before o.Before, and closes it. The segment in use goes too when it
// qualifies: nothing writes while the lock is held. A directory that
// does not exist holds nothing to prune.
func Prune(dir string, o PruneOptions, lockTimeout time.Duration) (Pruned, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return Pruned{}, nil
	}
	c, err := Open(dir, Options{MaxBytes: math.MaxInt64, LockTimeout: lockTimeout})
	if err != nil {
		return Pruned{}, err
	}
	p, err := c.prune(o)
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return p, err
}

// prune deletes segments, oldest first, while one of o's limits holds.
func (c *Cache) prune(o PruneOptions) (Pruned, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	var p Pruned
	entries := len(c.index)
	gone := map[uint32]bool{}
	for len(c.order) > 0 {
		s := c.segs[c.order[0]]
		old := false
		if !o.Before.IsZero() {
			info, err := s.f.Stat()
			if err != nil {
				return p, fmt.Errorf("pruning the cache %s: %w", c.dir, err)
			}
			old = info.ModTime().Before(o.Before)
		}
		if !old && (o.MaxBytes <= 0 || c.bytes <= o.MaxBytes) {
			break
		}
		if s == c.active {
			c.active = nil
		}
		c.order = c.order[1:]
		delete(c.segs, s.seq)
		gone[s.seq] = true
		c.bytes -= s.size + s.idxSize
		p.Segments++
		p.Bytes += s.size + s.idxSize
		s.f.Close()
		for _, name := range []string{segName(s.seq), idxName(s.seq)} {
			if err := os.Remove(filepath.Join(c.dir, name)); err != nil && !os.IsNotExist(err) {
				return p, fmt.Errorf("pruning the cache %s: %w", c.dir, err)
			}
		}
	}
	for k, l := range c.index {
		if seq, _ := splitLoc(l); gone[seq] {
			delete(c.index, k)
		}
	}
	p.Entries = entries - len(c.index)
	p.BytesLeft, p.EntriesLeft, p.SegmentsLeft = c.bytes, len(c.index), len(c.order)
	return p, nil
}

// Usage is what a cache directory holds, read from its files' sizes and
// dates without opening it (a run may hold its lock).
type Usage struct {
	Bytes    int64 // the segment and index files
	Segments int
	// Oldest and Newest are when the oldest and the newest segment were
	// last written; zero without segments.
	Oldest, Newest time.Time
}

// DirUsage returns the usage of the cache directory dir; a directory that
// does not exist holds nothing.
func DirUsage(dir string) (Usage, error) {
	var u Usage
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("reading the cache directory %s: %w", dir, err)
	}
	for _, e := range ents {
		_, ext, ok := parseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		u.Bytes += info.Size()
		if ext != segExt {
			continue
		}
		u.Segments++
		if t := info.ModTime(); u.Oldest.IsZero() || t.Before(u.Oldest) {
			u.Oldest = t
		}
		if t := info.ModTime(); t.After(u.Newest) {
			u.Newest = t
		}
	}
	return u, nil
}
