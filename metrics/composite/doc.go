// Package composite is the fitted composite scorer: a small logistic
// regression over the features of a comparison (package features: the
// embedding cosine plus lexical evidence) that gives the probability that a
// careful person would call the predicted text equivalent to the gold one.
//
// A Model is inspectable and serialisable: feature names, the
// standardisation (mean and scale of each feature), one coefficient per
// standardised feature, the intercept, the decision threshold on the
// probability, the embedding model it was fitted with, and the held-out
// figures of the fit. Fit estimates one by penalised maximum likelihood
// (Newton's method; light L2 penalty on the standardised coefficients, so
// a feature that separates the labels perfectly cannot send its weight to
// infinity). Choosing the threshold and cross-validating the fit is the
// caller's (package sweep does both, by dialog).
//
// The package is pure: no I/O, deterministic, safe for concurrent use.
package composite
