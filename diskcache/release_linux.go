//go:build linux

package diskcache

import (
	"os"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// releaseMapped drops the cache file's mapped pages from this process's
// resident set. bbolt reads through a shared, read-only mapping of the file,
// so every page a run has looked at counts in its RSS and, without this, the
// RSS of a nightly run grows with the cache. MADV_DONTNEED on a shared file
// mapping loses nothing: the data stays in the file and the page cache, and
// the next read faults it back in. tx must be an open transaction: it holds
// bbolt's mmap lock, so the mapping cannot move meanwhile.
func releaseMapped(db *bolt.DB, tx *bolt.Tx) {
	size := uintptr(tx.Size())
	page := uintptr(os.Getpagesize())
	size = (size + page - 1) / page * page
	if size == 0 {
		return
	}
	// Advice only: an error (there is none to expect) changes nothing.
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, db.Info().Data, size, unix.MADV_DONTNEED)
}
