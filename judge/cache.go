package judge

import (
	"encoding/json"
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
}

// openStore opens the persistent cache in o.CacheDir, or a map without one.
func openStore(o Options) (store, error) {
	if o.CacheDir == "" {
		return &memStore{m: map[[32]byte]Answer{}}, nil
	}
	c, _, err := diskcache.Open(filepath.Join(o.CacheDir, CacheFileName), diskcache.Options{
		MaxBytes:       o.CacheMaxBytes,
		LockTimeout:    o.CacheLockTimeout,
		DiscardCorrupt: o.DiscardCorruptCache,
		Holds:          "cached judge answers",
		DiscardHint:    "--cache-discard-corrupt",
	})
	if err != nil {
		return nil, err
	}
	return diskStore{c}, nil
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
