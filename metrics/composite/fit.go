package composite

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/aem-dev/aem/metrics/features"
)

// DefaultL2 is the penalty Fit uses when FitOptions.L2 is 0: half of it
// times the squared standardised coefficients is added to the negative
// log-likelihood (the intercept is not penalised). It is light: with a
// few hundred labels it moves coefficients by a few percent, but it keeps
// them finite when a feature separates the labels perfectly.
const DefaultL2 = 1.0

// FitOptions configures Fit.
type FitOptions struct {
	// L2 is the penalty; 0 means DefaultL2, negative is refused.
	L2 float64
}

// ErrFit means the data cannot be fitted (too few rows, one class only,
// non-finite features).
var ErrFit = errors.New("cannot fit the composite")

// Fit estimates the model for rows x (features.Vector) with labels y,
// using all features. The result has no Threshold, EmbeddingModel or
// HeldOut yet: the caller chooses the threshold on its own objective and
// records where the cosine came from. Fit is deterministic.
func Fit(x []features.Vector, y []bool, opts FitOptions) (*Model, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("%w: %d rows but %d labels", ErrFit, len(x), len(y))
	}
	pos := 0
	for _, l := range y {
		if l {
			pos++
		}
	}
	if pos == 0 || pos == len(y) {
		return nil, fmt.Errorf("%w: %d rows, %d positive: need both classes", ErrFit, len(y), pos)
	}
	lambda := opts.L2
	switch {
	case lambda < 0 || !finite(lambda):
		return nil, fmt.Errorf("%w: L2 penalty %v must be a finite number >= 0", ErrFit, lambda)
	case lambda == 0:
		lambda = DefaultL2
	}
	names := features.Names()
	d := len(names)
	m := &Model{Features: names, Mean: make([]float64, d), Scale: make([]float64, d), Coefficients: make([]float64, d), L2: lambda}
	for r, v := range x {
		for j, f := range v {
			if !finite(f) {
				return nil, fmt.Errorf("%w: row %d: feature %s is %v", ErrFit, r, names[j], f)
			}
		}
	}
	standardise(m, x)
	z := make([][]float64, len(x)) // standardised rows with a leading 1 for the intercept
	for r, v := range x {
		z[r] = make([]float64, d+1)
		z[r][0] = 1
		for j := range d {
			z[r][j+1] = (v[j] - m.Mean[j]) / m.Scale[j]
		}
	}
	beta, err := newton(z, y, lambda)
	if err != nil {
		return nil, err
	}
	m.Intercept = beta[0]
	copy(m.Coefficients, beta[1:])
	return m, nil
}

// standardise sets Mean and Scale (the population standard deviation; 1
// for a constant feature, whose standardised value is then always 0).
func standardise(m *Model, x []features.Vector) {
	n := float64(len(x))
	for j := range m.Mean {
		var s float64
		for _, v := range x {
			s += v[j]
		}
		mean := s / n
		var ss float64
		for _, v := range x {
			ss += (v[j] - mean) * (v[j] - mean)
		}
		sd := math.Sqrt(ss / n)
		if sd < 1e-12 {
			sd = 1
		}
		m.Mean[j], m.Scale[j] = mean, sd
	}
}

// newton minimises the penalised negative log-likelihood of the logistic
// model by Newton's method: beta -= H⁻¹ g, with gradient
// g = Zᵀ(p - y) + λβ and Hessian H = Zᵀ diag(p(1-p)) Z + λI (the intercept,
// column 0, is not penalised). The objective is strictly convex, so the
// iteration converges from zero; steps are halved when they would increase
// the objective.
func newton(z [][]float64, y []bool, lambda float64) ([]float64, error) {
	k := len(z[0])
	beta := make([]float64, k)
	loss := objective(z, y, beta, lambda)
	g := make([]float64, k)
	h := mat.NewSymDense(k, nil)
	for iter := 0; iter < 100; iter++ {
		clear(g)
		h.Zero()
		for r, row := range z {
			p := sigmoid(dot(row, beta))
			t := 0.0
			if y[r] {
				t = 1
			}
			w := math.Max(p*(1-p), 1e-12)
			for a := range k {
				g[a] += (p - t) * row[a]
				for b := a; b < k; b++ {
					h.SetSym(a, b, h.At(a, b)+w*row[a]*row[b])
				}
			}
		}
		for a := 1; a < k; a++ {
			g[a] += lambda * beta[a]
			h.SetSym(a, a, h.At(a, a)+lambda)
		}
		var chol mat.Cholesky
		if !chol.Factorize(h) {
			return nil, fmt.Errorf("%w: the Hessian is singular (a feature is a copy of another or of the intercept)", ErrFit)
		}
		step := mat.NewVecDense(k, nil)
		if err := chol.SolveVecTo(step, mat.NewVecDense(k, g)); err != nil {
			return nil, fmt.Errorf("%w: solving the Newton step: %w", ErrFit, err)
		}
		next := make([]float64, k)
		for scale := 1.0; ; scale /= 2 {
			for a := range k {
				next[a] = beta[a] - scale*step.AtVec(a)
			}
			if l := objective(z, y, next, lambda); l <= loss || scale < 1e-10 {
				loss = l
				break
			}
		}
		moved := 0.0
		for a := range k {
			moved = math.Max(moved, math.Abs(next[a]-beta[a]))
		}
		copy(beta, next)
		if moved < 1e-10 {
			return beta, nil
		}
	}
	return beta, nil
}

// objective is the penalised negative log-likelihood.
func objective(z [][]float64, y []bool, beta []float64, lambda float64) float64 {
	var l float64
	for r, row := range z {
		s := dot(row, beta)
		// -log σ(s) = log(1+e^-s); -log(1-σ(s)) = log(1+e^s)
		if y[r] {
			l += softplus(-s)
		} else {
			l += softplus(s)
		}
	}
	for a := 1; a < len(beta); a++ {
		l += lambda / 2 * beta[a] * beta[a]
	}
	return l
}

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
