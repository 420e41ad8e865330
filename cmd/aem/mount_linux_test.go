//go:build linux

package main

import "golang.org/x/sys/unix"

func mountTmpfs(dir, size string) error {
	return unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size)
}

func unmount(dir string) { _ = unix.Unmount(dir, unix.MNT_DETACH) }
