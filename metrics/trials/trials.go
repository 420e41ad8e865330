// Package trials measures reliability over repeated trials of the same
// task, as τ-bench does: pass@k (at least one of k trials passes) and
// pass^k (all k trials pass), and the share of flaky tasks (some trials
// pass, some fail). Pure: no I/O.
//
// For a task with n trials of which c pass, the estimates for k <= n are
// the unbiased ones over all k-subsets of its trials:
//
//	pass@k = 1 - C(n-c, k) / C(n, k)
//	pass^k = C(c, k) / C(n, k)
//
// and a run's figure for k is their mean over the tasks with at least k
// trials. With k = n, pass^k is the share of tasks whose every trial
// passed.
package trials

import (
	"cmp"
	"fmt"
	"slices"
)

// Note names a dialog's trial in messages and reports: " trial 2", or ""
// for a dialog that is not one of repeated trials (nil).
func Note(trial *int64) string {
	if trial == nil {
		return ""
	}
	return fmt.Sprintf(" trial %d", *trial)
}

// Outcome is one trial's verdict (a dialog's test_pass).
type Outcome struct {
	Task  string
	Trial int
	Pass  bool
}

// Task is one task's trials.
type Task struct {
	Task   string `json:"task"`
	Trials int    `json:"trials"`
	Passed int    `json:"passed"`
	// PassAt[k-1] and PassHat[k-1] are the task's pass@k and pass^k.
	PassAt  []float64 `json:"pass_at_k"`
	PassHat []float64 `json:"pass_hat_k"`
	Flaky   bool      `json:"flaky"`
}

// Summary is the reliability of a set of tasks.
type Summary struct {
	Tasks int `json:"tasks"`
	// K is the largest k every task reaches (the fewest trials of a task).
	K int `json:"k"`
	// PassAt[k-1] and PassHat[k-1] are the means over the tasks of pass@k
	// and pass^k, for k = 1..K.
	PassAt  []float64 `json:"pass_at_k"`
	PassHat []float64 `json:"pass_hat_k"`
	// Flaky counts the tasks with both passing and failing trials.
	Flaky      int     `json:"flaky_tasks"`
	FlakyShare float64 `json:"flaky_share"`
}

// PerTask groups outcomes by task (tasks in first-seen order) and computes
// each task's figures.
func PerTask(outcomes []Outcome) []Task {
	index := map[string]int{}
	var tasks []Task
	for _, o := range outcomes {
		i, ok := index[o.Task]
		if !ok {
			i = len(tasks)
			index[o.Task] = i
			tasks = append(tasks, Task{Task: o.Task})
		}
		tasks[i].Trials++
		if o.Pass {
			tasks[i].Passed++
		}
	}
	for i := range tasks {
		t := &tasks[i]
		for k := 1; k <= t.Trials; k++ {
			t.PassAt = append(t.PassAt, 1-choose(t.Trials-t.Passed, k)/choose(t.Trials, k))
			t.PassHat = append(t.PassHat, choose(t.Passed, k)/choose(t.Trials, k))
		}
		t.Flaky = t.Passed > 0 && t.Passed < t.Trials
	}
	return tasks
}

// Summarize averages per-task figures over tasks.
func Summarize(tasks []Task) Summary {
	s := Summary{Tasks: len(tasks)}
	if len(tasks) == 0 {
		return s
	}
	s.K = slices.MinFunc(tasks, func(a, b Task) int { return cmp.Compare(a.Trials, b.Trials) }).Trials
	s.PassAt, s.PassHat = make([]float64, s.K), make([]float64, s.K)
	for _, t := range tasks {
		for k := range s.K {
			s.PassAt[k] += t.PassAt[k] / float64(len(tasks))
			s.PassHat[k] += t.PassHat[k] / float64(len(tasks))
		}
		if t.Flaky {
			s.Flaky++
		}
	}
	s.FlakyShare = float64(s.Flaky) / float64(len(tasks))
	return s
}

// choose is the binomial coefficient C(n, k) as a float (0 when k > n).
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}
