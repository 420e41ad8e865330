package judge

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/aem-dev/aem/diskcache"
)

// cacheKey identifies a comparison's answer: the model, the prompts'
// version and everything the prompt shows the model. The endpoint's URL is
// not part of it: the same model behind another URL answers the same.
func cacheKey(model string, c Comparison) [32]byte {
	return diskcache.Key("aem-judge-cache-v1", model, PromptVersion, string(c.Kind), c.Field, c.Context, c.Gold, c.Predicted)
}

// store keeps answers: a diskcache file, or a map for this Judge only.
// Judge errors are never stored, so a rerun asks again.
type store interface {
	// get returns the stored answer; ok is false for a miss (a damaged
	// entry is a miss and counted as corrupt).
	get(key [32]byte) (a Answer, ok, corrupt bool, err error)
	put(key [32]byte, a Answer) error
	close() error
	dir() string // "" for the in-memory store
}

// OldCacheFile is the bbolt file earlier releases kept answers in: never
// opened, reported so that it can be deleted (its answers are asked for
// again once).
const OldCacheFile = "judgements.bbolt"

// openStore opens the persistent cache in o.CacheDir, or a map without
// one. notices says what opening the cache found besides answers (see
// diskcache.Cache.Notices) and an earlier release's cache file.
func openStore(o Options) (s store, notices []string, err error) {
	if o.CacheDir == "" {
		return &memStore{m: map[[32]byte]Answer{}}, nil, nil
	}
	c, err := diskcache.Open(filepath.Join(o.CacheDir, CacheName), diskcache.Options{
		MaxBytes:       o.CacheMaxBytes,
		LockTimeout:    o.CacheLockTimeout,
		DiscardCorrupt: o.DiscardCorruptCache,
		Sync:           true, // a paid answer is on disk before it counts
	})
	if err != nil {
		return nil, nil, err
	}
	notices = c.Notices()
	old := filepath.Join(o.CacheDir, OldCacheFile)
	if st, err := os.Stat(old); err == nil {
		notices = append(notices, fmt.Sprintf("%s (%d MiB) is an earlier release's cache file, no longer read (its answers are asked for again once): delete it to free the space", old, st.Size()>>20))
	}
	return diskStore{c}, notices, nil
}

type diskStore struct{ c *diskcache.Cache }

func (s diskStore) get(key [32]byte) (a Answer, ok, corrupt bool, err error) {
	n, err := s.c.Get([][32]byte{key}, func(_ int, p []byte) bool {
		ok = decodeAnswer(p, &a)
		return ok
	})
	return a, ok, n > 0, err
}

func (s diskStore) put(key [32]byte, a Answer) error {
	p, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return s.c.Put([][32]byte{key}, [][]byte{p})
}

func (s diskStore) close() error { return s.c.Close() }

func (s diskStore) dir() string { return s.c.Dir() }

// decodeAnswer decodes a stored answer, checking it as strictly as the
// model's (the checksum already holds, so a failure means another format).
func decodeAnswer(p []byte, a *Answer) bool {
	got, err := parseAnswer(string(p))
	*a = got
	return err == nil
}

type memStore struct {
	mu sync.Mutex
	m  map[[32]byte]Answer
}

func (s *memStore) get(key [32]byte) (Answer, bool, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.m[key]
	return a, ok, false, nil
}

func (s *memStore) put(key [32]byte, a Answer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = a
	return nil
}

func (*memStore) close() error { return nil }

func (*memStore) dir() string { return "" }
