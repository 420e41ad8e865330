//go:build race

package bfcl

// raceEnabled is true under the race detector: TestAgreement then checks
// a sample of the entries.
const raceEnabled = true
