package main

import (
	"errors"

	"github.com/aem-dev/aem/batch/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/compare"
	"github.com/aem-dev/aem/metrics/sweep"
)

// errorStatus maps an error that is not a usage error or an interruption
// to its exit status.
func errorStatus(err error) int {
	switch {
	case errors.Is(err, compare.ErrRegression):
		return exitRegression
	case errors.Is(err, sweep.ErrWeak):
		return exitWeak
	case errors.Is(err, badinput.ErrInvalid),
		errors.Is(err, metrics.ErrBadDialog),
		errors.Is(err, metrics.ErrBadSpec),
		errors.Is(err, metrics.ErrGoldSchema):
		return exitInvalidRows
	}
	return exitError
}
