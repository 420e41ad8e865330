package embed

import (
	"container/list"
	"sync"
)

// memo is the in-run, in-memory LRU of vectors keyed by (sanitized) text. It
// makes a string that repeats across a run (gold values repeat a lot) reach
// the model, and the disk cache, once. Safe for concurrent use.
type memo struct {
	mu    sync.Mutex
	cap   int
	ll    *list.List
	items map[string]*list.Element
}

type memoEntry struct {
	key string
	vec []float32
}

func newMemo(capacity int) *memo {
	return &memo{cap: capacity, ll: list.New(), items: make(map[string]*list.Element)}
}

func (m *memo) get(k string) ([]float32, bool) {
	if m.cap <= 0 {
		return nil, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[k]; ok {
		m.ll.MoveToFront(e)
		return e.Value.(*memoEntry).vec, true
	}
	return nil, false
}

func (m *memo) add(k string, v []float32) {
	if m.cap <= 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[k]; ok {
		m.ll.MoveToFront(e)
		e.Value.(*memoEntry).vec = v
		return
	}
	m.items[k] = m.ll.PushFront(&memoEntry{key: k, vec: v})
	for m.ll.Len() > m.cap {
		last := m.ll.Back()
		m.ll.Remove(last)
		delete(m.items, last.Value.(*memoEntry).key)
	}
}
