//go:build !linux

package main

import "errors"

func mountTmpfs(dir, size string) error { return errors.New("tmpfs is mounted on Linux only") }

func unmount(string) {}
