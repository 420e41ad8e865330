package main

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/batch"
	"github.com/aem-dev/aem/embed"
	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/metrics/sweep"
	"github.com/aem-dev/aem/rundir"
)

// errFlagValue marks an error caused by the value of a flag that parsed but
// cannot be used (--threshold 2): a usage error, exit status 2. Wrap such
// errors with it where flag values are resolved into settings.
var errFlagValue = errors.New("invalid flag value")

// isFlagValue reports whether err is about the value of a flag rather than
// about input data or the environment: errFlagValue, or the options
// sentinel of a package the flags configure. runCommand turns such errors
// into usage errors, whichever command returns them. An error about the
// content of an input file (badinput.ErrInvalid) is never one.
func isFlagValue(err error) bool {
	if errors.Is(err, badinput.ErrInvalid) {
		return false
	}
	for _, s := range []error{errFlagValue, batch.ErrInvalidOptions, golden.ErrBadMapping, rundir.ErrBadShard,
		compare.ErrInvalidOptions, embed.ErrInvalidOptions, judge.ErrInvalidOptions} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// errorStatus maps an error that is not a usage error or an interruption
// to its exit status.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, compare.ErrRegression):
		return exitRegression
	case errors.Is(err, sweep.ErrWeak), errors.Is(err, sweep.ErrFewLabels):
		return exitWeak
	case errors.Is(err, badinput.ErrInvalid),
		errors.As(err, new(*sweep.Error)), // labels that cannot calibrate: none, one class, too few
		errors.Is(err, metrics.ErrBadDialog),
		errors.Is(err, metrics.ErrBadSpec),
		errors.Is(err, batch.ErrCorruptCheckpoint): // whichever file of it is damaged
		return exitInvalidRows
	case errors.Is(err, rundir.ErrOutput), // where -o points would overwrite what aem must not
		errors.Is(err, batch.ErrCheckpointExists), // an unfinished run there, and no --resume
		errors.Is(err, batch.ErrResumeMismatch):   // --resume with other input or settings
		return exitUsage
	}
	return exitError
}

// exampleDir is where the bundled example lives in aem's source checkout;
// the README's examples read it by this relative path.
const exampleDir = "datasets/example"

// exampleHint says where to run a README example from when err is a
// file of the bundled example that is not there: the example ships with
// the source checkout, not with an installed aem. "" otherwise.
func exampleHint(err error) string {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	p := filepath.ToSlash(filepath.Clean(pe.Path))
	if !strings.HasPrefix(p, exampleDir+"/") {
		return ""
	}
	return fmt.Sprintf("%s/ is the bundled example of aem's source checkout, and this directory has none: run the README's examples from the checkout's root (git clone the aem repository and cd into it), or give the path of your checkout's %s/", exampleDir, exampleDir)
}
