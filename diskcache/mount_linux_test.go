//go:build linux

package diskcache

import (
	"fmt"
	"testing"

	"golang.org/x/sys/unix"
)

// mountTiny mounts a tmpfs of size bytes on a new directory for the test,
// or skips the test where that is not allowed (it needs root, or
// CAP_SYS_ADMIN).
func mountTiny(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): run as root to test a full disk; TestFailedWrite covers a failed write", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	return dir
}
