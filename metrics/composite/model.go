package composite

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/aem-dev/aem/metrics/features"
)

// Model is a fitted logistic regression over comparison features. Its JSON
// form is an entry of the thresholds file's "composite" section.
type Model struct {
	// Features names the inputs, a subset of features.Names in any order.
	Features []string `json:"features"`
	// Mean and Scale standardise each feature: z = (x - Mean) / Scale.
	Mean  []float64 `json:"mean"`
	Scale []float64 `json:"scale"`
	// Coefficients weigh the standardised features; Intercept is the
	// log-odds at the mean of every feature.
	Coefficients []float64 `json:"coefficients"`
	Intercept    float64   `json:"intercept"`
	// Threshold is the probability at and above which a comparison passes.
	Threshold float64 `json:"threshold"`
	// L2 is the penalty the fit used (informative).
	L2 float64 `json:"l2"`
	// EmbeddingModel is the model whose cosine the fit saw; a model fitted
	// with one embedding model is meaningless with another.
	EmbeddingModel EmbeddingModel `json:"embedding_model"`
	// HeldOut are the cross-validated figures of the fit, when measured.
	HeldOut *HeldOut `json:"held_out,omitempty"`
}

// EmbeddingModel identifies the embedding model whose cosine a Model uses.
type EmbeddingModel struct {
	ID     string `json:"id"`     // the scorer's ID, e.g. "embed:use-lite@sha256:…"
	SHA256 string `json:"sha256"` // the sha256 of the model's weights
}

// HeldOut are a fit's cross-validated figures, beside those of the plain
// cosine threshold on the same folds.
type HeldOut struct {
	Samples  int `json:"samples"`
	Positive int `json:"positive"`
	Negative int `json:"negative"`
	Folds    int `json:"folds"`
	Figures
	CosineOnly Figures `json:"cosine_only"`
}

// Figures are classification figures of held-out predictions.
type Figures struct {
	Accuracy float64 `json:"accuracy"`
	F1       float64 `json:"f1"`
	MCC      float64 `json:"mcc"`
	ROCAUC   float64 `json:"roc_auc"`
}

// ErrModel means a model is malformed.
var ErrModel = errors.New("invalid composite model")

// Validate checks that the model can be applied: known, distinct feature
// names, one finite mean, positive scale and coefficient per feature, a
// finite intercept and a threshold in [0, 1].
func (m *Model) Validate() error {
	bad := func(format string, a ...any) error { return fmt.Errorf("%w: %s", ErrModel, fmt.Sprintf(format, a...)) }
	n := len(m.Features)
	if n == 0 {
		return bad("no features")
	}
	if len(m.Mean) != n || len(m.Scale) != n || len(m.Coefficients) != n {
		return bad("%d features but %d means, %d scales and %d coefficients", n, len(m.Mean), len(m.Scale), len(m.Coefficients))
	}
	seen := map[string]bool{}
	for i, f := range m.Features {
		if index(f) < 0 {
			return bad("unknown feature %q (known: %v)", f, features.Names())
		}
		if seen[f] {
			return bad("feature %q listed twice", f)
		}
		seen[f] = true
		if !finite(m.Mean[i]) || !finite(m.Coefficients[i]) || !finite(m.Scale[i]) || m.Scale[i] <= 0 {
			return bad("feature %q: mean %v, scale %v, coefficient %v (need finite numbers and a positive scale)", f, m.Mean[i], m.Scale[i], m.Coefficients[i])
		}
	}
	if !finite(m.Intercept) {
		return bad("intercept %v", m.Intercept)
	}
	if !(m.Threshold >= 0 && m.Threshold <= 1) {
		return bad("threshold %v outside [0, 1]", m.Threshold)
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// index is the position of a feature in a features.Vector, or -1.
func index(name string) int { return slices.Index(features.Names(), name) }

// Probability is the model's probability that a comparison with features v
// passes. The model must be valid.
func (m *Model) Probability(v features.Vector) float64 {
	z := m.Intercept
	for i, f := range m.Features {
		z += m.Coefficients[i] * (v[index(f)] - m.Mean[i]) / m.Scale[i]
	}
	return sigmoid(z)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}
