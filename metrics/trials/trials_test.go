package trials

import (
	"math"
	"testing"
)

func TestPerTaskAndSummarize(t *testing.T) {
	var outcomes []Outcome
	add := func(task string, passes ...bool) {
		for i, p := range passes {
			outcomes = append(outcomes, Outcome{Task: task, Trial: i + 1, Pass: p})
		}
	}
	add("always", true, true, true, true)
	add("never", false, false, false, false)
	add("flaky", true, false, true, false) // n=4, c=2
	tasks := PerTask(outcomes)
	flaky := tasks[2]
	// pass@2 = 1 - C(2,2)/C(4,2) = 5/6; pass^2 = C(2,2)/C(4,2) = 1/6; pass^4 = 0; pass@4 = 1.
	want := map[string][2]float64{"pass@1": {flaky.PassAt[0], 0.5}, "pass@2": {flaky.PassAt[1], 5.0 / 6}, "pass@4": {flaky.PassAt[3], 1},
		"pass^1": {flaky.PassHat[0], 0.5}, "pass^2": {flaky.PassHat[1], 1.0 / 6}, "pass^4": {flaky.PassHat[3], 0}}
	for name, gw := range want {
		if math.Abs(gw[0]-gw[1]) > 1e-12 {
			t.Errorf("flaky %s = %v, want %v", name, gw[0], gw[1])
		}
	}
	if !flaky.Flaky || tasks[0].Flaky || tasks[1].Flaky {
		t.Errorf("flaky flags: %+v", tasks)
	}
	s := Summarize(tasks)
	if s.Tasks != 3 || s.K != 4 || s.Flaky != 1 || math.Abs(s.FlakyShare-1.0/3) > 1e-12 {
		t.Errorf("summary %+v", s)
	}
	// pass^4 over tasks: only "always" passes all four.
	if math.Abs(s.PassHat[3]-1.0/3) > 1e-12 || math.Abs(s.PassAt[0]-0.5) > 1e-12 {
		t.Errorf("pass^4 = %v, pass@1 = %v", s.PassHat[3], s.PassAt[0])
	}
	// pass^k never rises with k; pass@k never falls.
	for k := 1; k < s.K; k++ {
		if s.PassHat[k] > s.PassHat[k-1]+1e-12 || s.PassAt[k] < s.PassAt[k-1]-1e-12 {
			t.Errorf("not monotone at k=%d: %v %v", k+1, s.PassAt, s.PassHat)
		}
	}
}

func TestUnevenTrials(t *testing.T) {
	tasks := PerTask([]Outcome{{"a", 1, true}, {"a", 2, true}, {"a", 3, false}, {"b", 1, true}})
	s := Summarize(tasks)
	if s.K != 1 || len(s.PassHat) != 1 || math.Abs(s.PassHat[0]-(2.0/3+1)/2) > 1e-12 {
		t.Errorf("summary %+v", s)
	}
	if Summarize(nil).Tasks != 0 {
		t.Error("empty summary")
	}
}
