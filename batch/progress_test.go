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
