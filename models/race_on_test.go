//go:build race

package models

// raceEnabled: the race detector slows the pure-Go backend ~20x, so its reference
// test runs a subset of the sentences under -race (all of them otherwise).
const raceEnabled = true
