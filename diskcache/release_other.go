//go:build !linux

package diskcache

import bolt "go.etcd.io/bbolt"

// releaseMapped is a no-op where MADV_DONTNEED on a shared file mapping is
// not known to be safe; the cache's mapped pages then count in RSS.
func releaseMapped(*bolt.DB, *bolt.Tx) {}
