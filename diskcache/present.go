package diskcache

import (
	"sync"

	"github.com/bits-and-blooms/bloom/v3"
	bolt "go.etcd.io/bbolt"
)

// present is a Bloom filter of the keys the file holds, so that looking up
// a key it does not hold (every new string of a cold run) reads no page of
// the file. Each such lookup used to walk the B-tree to a random leaf,
// fault it in (the mapped pages are released every releaseKeys keys) and
// find nothing: about half of a cold fill's time (BENCHMARKS.md, "Session
// 7", under "Session layout and the ceiling").
//
// It answers "maybe" or "no": a key evicted since it was added stays a
// "maybe" and is looked up as before. It is filled from the order bucket
// at Open (every entry has its order record) and from each Put, and built
// again, twice as large, when more keys than it was sized for were added.
// It takes about 2.4 bytes a key held (10 bits at twice the count): 10 MB
// for the four million vectors of a full default embedding cache.
// The file is locked to one process, so no other writer adds keys behind
// its back. A key the filter lost (one stored by a Put that raced a
// rebuild) is only a miss: its value is made again and stored again.
type present struct {
	mu       sync.RWMutex
	filter   *bloom.BloomFilter
	added    uint // keys added since the filter was built
	capacity uint // keys it was sized for at falsePositives
}

const (
	// falsePositives is the share of absent keys the filter calls "maybe"
	// at capacity (about 10 bits a key).
	falsePositives = 0.01
	// minCapacity keeps a filter of an empty or small file from being
	// built again after every few writes.
	minCapacity = 1 << 16
)

// build sizes the filter for twice the keys in tx's order bucket (at least
// minCapacity) and adds them. It walks the bucket twice (to count, then to
// add) and calls release every buildReleaseKeys keys and at the end of
// each walk (else the first walk's tail stays resident while the second
// starts over). The order records lie scattered among the values' pages
// and each page fault maps a 64 KiB window, so an unreleased walk of a
// 4.6 GB cache held about 1.1 GiB resident (TestOpenRSSBounded).
func (p *present) build(tx *bolt.Tx, release func()) {
	n := uint(0)
	walkOrder(tx, release, func([]byte) { n++ })
	p.capacity = max(2*n, minCapacity)
	p.filter = bloom.NewWithEstimates(p.capacity, falsePositives)
	walkOrder(tx, release, func(key []byte) { p.filter.Add(key) })
	p.added = n
}

// buildReleaseKeys is how many order records build reads between releases:
// about 350 leaf pages of some 70 records, each faulting a 64 KiB window,
// so the walk peaks at 21-25 MiB resident (TestOpenRSSBounded: 28-36 MiB
// at 35,000, 15 at 17,500); a release (one madvise over the whole mapping,
// a few ms for a multi-GB file) every 25,000 keys costs under a second
// over a full 8 GiB cache of four million keys.
const buildReleaseKeys = 25_000

// walkOrder calls fn with the key of each order record of tx, releasing
// the mapped pages every buildReleaseKeys records and at the end.
func walkOrder(tx *bolt.Tx, release func(), fn func(key []byte)) {
	cur := tx.Bucket(bucketOrder).Cursor()
	i := 0
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		fn(v)
		if i++; i%buildReleaseKeys == 0 {
			release()
		}
	}
	release()
}

// mayHold reports whether the file may hold key: false means it does not.
func (p *present) mayHold(key [32]byte) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.filter.Test(key[:])
}

// add records keys just stored and reports whether the filter is now past
// its capacity (see build).
func (p *present) add(keys [][32]byte) (full bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range keys {
		p.filter.Add(k[:])
	}
	p.added += uint(len(keys))
	return p.added > p.capacity
}

// rebuild builds the filter again from tx (see build).
func (p *present) rebuild(tx *bolt.Tx, release func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.build(tx, release)
}
