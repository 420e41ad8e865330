// Package diskcache is a persistent, size-bounded key-value cache in one
// bbolt file, shared by the caches that must survive between runs: the
// embedding cache (package embed: sentence vectors) and the judge cache
// (package judge: an LLM judge's answers).
//
// bbolt gives a nightly job what it needs: every write is a transaction (a
// crash mid-write leaves the previous state), readers never block the
// writer, and the file is locked (flock) by one process at a time. On top of
// it the package adds a checksum per value (a damaged value is a miss, and
// the next Put overwrites it), eviction of the oldest entries by insertion
// past a byte bound, release of the file's mapped pages so a long run's
// resident memory does not grow with the file (see releaseKeys), and a
// Bloom filter of the keys held, so that looking up a key the file does not
// hold reads none of it (see present).
//
// Keys are 32-byte hashes chosen by the caller (Key builds one); values are
// opaque bytes. Open fails with ErrLocked when another process holds the
// file, and with ErrCorrupt when the file is not a bbolt database (or, with
// Options.DiscardCorrupt, moves it aside and starts an empty one).
//
// A Cache is safe for concurrent use.
package diskcache
