//go:build !race

package bfcl

const raceEnabled = false
