package stats

import (
	"fmt"
	"math"
)

// Logistic is a fitted one-variable logistic regression: P(pass | x) =
// 1 / (1 + exp(-(Intercept + Slope*x))).
type Logistic struct {
	Intercept, Slope float64
}

// P is the fitted probability of a pass at x.
func (l Logistic) P(x float64) float64 { return 1 / (1 + math.Exp(-(l.Intercept + l.Slope*x))) }

// At is the x where the fitted probability is p (0 < p < 1); ±Inf when
// the slope is 0.
func (l Logistic) At(p float64) float64 {
	return (math.Log(p/(1-p)) - l.Intercept) / l.Slope
}

// FitLogistic fits P(pass | x) by maximum likelihood with a ridge penalty
// of l2/2 on the slope of the standardised x (so that labels a threshold
// separates perfectly still give a finite, steep slope): Newton's method
// from zero, to convergence. x must be finite and not all equal.
func FitLogistic(x []float64, labels []bool, l2 float64) (Logistic, error) {
	if len(x) != len(labels) {
		return Logistic{}, fmt.Errorf("logistic fit: %w", ErrLength)
	}
	if len(x) == 0 {
		return Logistic{}, fmt.Errorf("logistic fit: %w", ErrEmpty)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Logistic{}, fmt.Errorf("logistic fit: x %d is %v: %w", i, v, ErrNaN)
		}
	}
	mean, sd := MeanSD(x)
	if sd == 0 {
		return Logistic{}, fmt.Errorf("logistic fit: every x is %v: %w", mean, ErrUndefined)
	}
	z := make([]float64, len(x))
	for i, v := range x {
		z[i] = (v - mean) / sd
	}
	y := make([]float64, len(labels))
	for i, l := range labels {
		if l {
			y[i] = 1
		}
	}
	// The penalised negative log-likelihood of (a, b) on z.
	loss := func(a, b float64) float64 {
		sum := l2 * b * b / 2
		for i, zi := range z {
			t := a + b*zi
			// log(1 + exp(t)) - y*t, computed without overflow.
			sum += math.Max(t, 0) + math.Log1p(math.Exp(-math.Abs(t))) - y[i]*t
		}
		return sum
	}
	var a, b float64
	cur := loss(a, b)
	for iter := 0; iter < 100; iter++ {
		var ga, gb, haa, hab, hbb float64
		for i, zi := range z {
			p := 1 / (1 + math.Exp(-(a + b*zi)))
			w := p * (1 - p)
			ga += p - y[i]
			gb += (p - y[i]) * zi
			haa += w
			hab += w * zi
			hbb += w * zi * zi
		}
		gb += l2 * b
		hbb += l2
		det := haa*hbb - hab*hab
		if !(det > 0) {
			break // flat: every p is 0 or 1 to the float's precision
		}
		da, db := (hbb*ga-hab*gb)/det, (haa*gb-hab*ga)/det
		// Damped Newton: halve the step until the loss does not rise.
		step := 1.0
		for ; step > 1e-10; step /= 2 {
			if l := loss(a-step*da, b-step*db); l <= cur {
				a, b, cur = a-step*da, b-step*db, l
				break
			}
		}
		if step <= 1e-10 || math.Abs(step*da) < 1e-12 && math.Abs(step*db) < 1e-12 {
			break
		}
	}
	return Logistic{Intercept: a - b*mean/sd, Slope: b / sd}, nil
}
