package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Data drawn from a known logistic model give back its coefficients, and
// the fit is a stationary point of the penalised likelihood.
func TestFitLogisticRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	truth := Logistic{Intercept: -5.5, Slope: 10}
	n := 20000
	x, labels := make([]float64, n), make([]bool, n)
	for i := range x {
		x[i] = rng.Float64()
		labels[i] = rng.Float64() < truth.P(x[i])
	}
	got, err := FitLogistic(x, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.Intercept-truth.Intercept) > 0.3 || math.Abs(got.Slope-truth.Slope) > 0.5 {
		t.Errorf("fit %+v, want near %+v", got, truth)
	}
	if p := got.At(0.5); math.Abs(p-0.55) > 0.01 {
		t.Errorf("P = 0.5 at %v, want near 0.55", p)
	}
	// Stationary: the gradient in the standardised coordinates is zero.
	mean, sd := MeanSD(x)
	var ga, gb float64
	for i, v := range x {
		y := 0.0
		if labels[i] {
			y = 1
		}
		ga += got.P(v) - y
		gb += (got.P(v) - y) * (v - mean) / sd
	}
	gb += 1 * got.Slope * sd // l2 * b, with b the standardised slope
	if math.Abs(ga) > 1e-6 || math.Abs(gb) > 1e-6 {
		t.Errorf("gradient (%g, %g) at the fit", ga, gb)
	}
}

func TestFitLogisticEdges(t *testing.T) {
	// Separable labels: a finite, steep slope through the gap.
	sep, err := FitLogistic([]float64{0.1, 0.2, 0.3, 0.7, 0.8, 0.9}, []bool{false, false, false, true, true, true}, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(sep.Slope, 0) || sep.Slope <= 0 || sep.P(0.3) > 0.1 || sep.P(0.7) < 0.9 || math.Abs(sep.At(0.5)-0.5) > 1e-9 {
		t.Errorf("separable: %+v, P(0.3) %v, P(0.7) %v, P = 0.5 at %v", sep, sep.P(0.3), sep.P(0.7), sep.At(0.5))
	}
	// Labels falling with x: a negative slope.
	neg, err := FitLogistic([]float64{0.1, 0.2, 0.3, 0.4}, []bool{true, true, false, false}, 1)
	if err != nil || neg.Slope >= 0 {
		t.Errorf("falling labels: %+v, %v", neg, err)
	}
	// One class: the intercept goes far, the slope stays 0.
	one, err := FitLogistic([]float64{0.1, 0.5, 0.9}, []bool{true, true, true}, 1)
	if err != nil || one.P(0.5) < 0.99 || math.Abs(one.Slope) > 1e-6 {
		t.Errorf("one class: %+v, %v", one, err)
	}
	for _, tc := range []struct {
		x      []float64
		labels []bool
		want   error
	}{
		{nil, nil, ErrEmpty},
		{[]float64{1}, []bool{true, false}, ErrLength},
		{[]float64{math.Inf(1), 0}, []bool{true, false}, ErrNaN},
		{[]float64{0.5, 0.5}, []bool{true, false}, ErrUndefined},
	} {
		if _, err := FitLogistic(tc.x, tc.labels, 1); !errors.Is(err, tc.want) {
			t.Errorf("FitLogistic(%v, %v): %v, want %v", tc.x, tc.labels, err, tc.want)
		}
	}
}
