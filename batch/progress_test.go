package batch

import (
	"testing"
	"time"
)

func TestStatsRates(t *testing.T) {
	s := Stats{Elapsed: 2 * time.Second, TurnsDone: 1100, ResumedTurns: 100, CacheHits: 3, CacheMisses: 1, RowsRead: 250}
	if got := s.TurnsPerSecond(); got != 500 {
		t.Errorf("TurnsPerSecond = %v, want 500", got)
	}
	if got := s.CacheHitRate(); got != 0.75 {
		t.Errorf("CacheHitRate = %v, want 0.75", got)
	}
	if d, ok := s.ETA(1000); !ok || d != 6*time.Second {
		t.Errorf("ETA = %v %v, want 6s", d, ok)
	}
	if _, ok := s.ETA(-1); ok {
		t.Error("ETA with unknown total")
	}
	if (Stats{}).TurnsPerSecond() != 0 || (Stats{}).CacheHitRate() != 0 {
		t.Error("zero stats")
	}
}

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
