package judge_test

import (
	"testing"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
)

// newServer starts a judgetest.Server closed when the test ends.
func newServer(t *testing.T) *judgetest.Server {
	t.Helper()
	s := judgetest.NewServer()
	t.Cleanup(s.Close)
	return s
}

// newTestJudge returns a Judge on s with a fake clock (which also stamps
// s's requests), jitter fixed at 0.5, and opts applied.
func newTestJudge(t *testing.T, s *judgetest.Server, opts ...func(*judge.Options)) (*judge.Judge, *judgetest.Clock) {
	t.Helper()
	clock := judgetest.NewClock()
	s.SetClock(clock)
	o := judge.Options{URL: s.URL(), Model: "test-model", Clock: clock, Jitter: func() float64 { return 0.5 }}
	for _, fn := range opts {
		fn(&o)
	}
	j, err := judge.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j, clock
}

// value is a value comparison of gold and predicted.
func value(gold, predicted string) judge.Comparison {
	return judge.Comparison{Kind: judge.KindValue, Field: "weather.get.city", Gold: gold, Predicted: predicted}
}
