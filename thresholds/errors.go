package thresholds

import (
	"errors"

	"github.com/aem-dev/aem/internal/badinput"
)

// ErrInvalid is matched (errors.Is) by every refusal of a thresholds file,
// beside badinput.ErrInvalid (exit status 3 in the CLI). A refusal is a
// *badinput.RowError whose Field is the key's JSON path ("version",
// "sub_metrics.truthfulness.values"; empty for the file as a whole).
var ErrInvalid = errors.New("invalid thresholds file")

// refuse is the one place this package builds an error about a file's
// content. file "" stands for data not read from a named file.
func refuse(file, key, problem, fix string, cause error) error {
	if file == "" {
		file = "thresholds file"
	}
	return &badinput.RowError{File: file, Row: badinput.NoRow, Field: key, Problem: problem, Fix: fix, Kind: ErrInvalid, Err: cause}
}
