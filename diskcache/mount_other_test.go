//go:build !linux

package diskcache

import "testing"

func mountTiny(t *testing.T, size int) string {
	t.Skip("a full disk is tested on Linux only (a small tmpfs)")
	return ""
}
