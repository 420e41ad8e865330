package rundir

import "testing"

func TestCorrelations(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		p, s float64
		ok   bool
	}{
		{"perfect", []float64{1, 2, 3, 4}, []float64{2, 4, 6, 8}, 1, 1, true},
		{"inverse", []float64{1, 2, 3}, []float64{3, 2, 1}, -1, -1, true},
		{"monotone not linear", []float64{1, 2, 3, 4}, []float64{1, 4, 9, 100}, 0.81598, 1, true},
		{"ties", []float64{1, 1, 2, 3}, []float64{0.5, 0.5, 0.2, 0.1}, -0.97106, -1, true},
		{"constant", []float64{1, 1, 1}, []float64{1, 2, 3}, 0, 0, false},
		{"one point", []float64{1}, []float64{1}, 0, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, s, ok := correlations(c.x, c.y)
			if ok != c.ok || abs(p-c.p) > 1e-4 || abs(s-c.s) > 1e-9 {
				t.Errorf("correlations = %v %v %v, want %v %v %v", p, s, ok, c.p, c.s, c.ok)
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}
