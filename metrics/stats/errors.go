package stats

import "errors"

// Sentinel errors returned (wrapped) by this package; test with errors.Is.
var (
	// ErrLength means two paired slices differ in length.
	ErrLength = errors.New("paired inputs differ in length")
	// ErrEmpty means there is no data to compute on.
	ErrEmpty = errors.New("no data")
	// ErrNaN means an input value is NaN or infinite.
	ErrNaN = errors.New("NaN or infinite value")
	// ErrOneClass means the labels are all of one class, so a figure that
	// needs both classes (ROC-AUC, a fitted threshold) is undefined.
	ErrOneClass = errors.New("labels are all of one class")
	// ErrUndefined means a statistic is undefined for the data, e.g. a
	// correlation of a constant series or of fewer than 3 points.
	ErrUndefined = errors.New("statistic undefined for this data")
	// ErrFolds means the data cannot be split into the requested folds.
	ErrFolds = errors.New("cannot split into folds")
)
