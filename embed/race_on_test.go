//go:build race

package embed

// raceEnabled: the race detector slows the go backend about 20x, so its
// reference check runs on a subset of the sentences under -race (every
// sentence otherwise; see goReferenceSubset).
const raceEnabled = true
