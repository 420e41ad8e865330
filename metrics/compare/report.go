package compare

import (
	"context"
	"fmt"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/trials"
)

// Rate is a share of units in one run.
type Rate struct {
	Key    string  `json:"key"`
	Units  int     `json:"units"`
	Passed int     `json:"passed"`
	Value  float64 `json:"value"`
}

// RunStats describes one run on its own (all its turns, unpaired).
type RunStats struct {
	Name            string        `json:"name"`
	Identity        Identity      `json:"identity"`
	Turns           int           `json:"turns"`
	Passed          int           `json:"passed"`
	Correctness     float64       `json:"correctness"`
	Dialogs         int           `json:"dialogs"`
	DialogsPassed   int           `json:"dialogs_passed"`
	DialogPassRate  float64       `json:"dialog_pass_rate"`
	MeanDialogScore float64       `json:"mean_dialog_score"`
	SubMetrics      []Rate        `json:"sub_metrics"`
	ChainBuckets    []Rate        `json:"chain_buckets"`
	FailureReasons  []ReasonCount `json:"failure_reasons"`
	// Trials is the run's reliability over repeated trials (Run.Trials);
	// absent for a run without trials.
	Trials *trials.Summary `json:"trials,omitempty"`
}

// NewRunStats computes a run's own statistics.
func NewRunStats(r Run) RunStats {
	s := RunStats{Name: r.Name, Identity: r.Identity, Turns: len(r.Turns), Dialogs: len(r.Dialogs), Trials: r.Trials}
	type acc struct{ n, p int }
	subs := map[string]*acc{}
	bks := map[string]*acc{}
	rs := map[string]*ReasonCount{}
	add := func(m map[string]*acc, k string, pass bool) {
		a := m[k]
		if a == nil {
			a = &acc{}
			m[k] = a
		}
		a.n++
		if pass {
			a.p++
		}
	}
	for _, t := range r.Turns {
		if t.Pass {
			s.Passed++
		} else {
			k := reasonOf(t)
			rc := rs[k]
			if rc == nil {
				rc = &ReasonCount{Reason: k}
				rs[k] = rc
			}
			countReason(rc, t, func(TurnVerdict) bool { return true })
		}
		for _, sub := range subMetrics {
			if o := outcome(t, sub); assessed(o) {
				add(subs, sub+"."+string(t.Kind), o == metrics.OutcomePass)
			}
		}
		if t.ChainBucket != "" {
			add(bks, t.ChainBucket, t.Pass)
		}
	}
	if s.Turns > 0 {
		s.Correctness = float64(s.Passed) / float64(s.Turns)
	}
	var score float64
	for _, d := range r.Dialogs {
		if d.TestPass {
			s.DialogsPassed++
		}
		score += d.Score
	}
	if s.Dialogs > 0 {
		s.DialogPassRate = float64(s.DialogsPassed) / float64(s.Dialogs)
		s.MeanDialogScore = score / float64(s.Dialogs)
	}
	rates := func(m map[string]*acc, known []string) []Rate {
		present := map[string]bool{}
		for k := range m {
			present[k] = true
		}
		out := []Rate{}
		for _, k := range orderKeys(present, known) {
			a := m[k]
			out = append(out, Rate{Key: k, Units: a.n, Passed: a.p, Value: float64(a.p) / float64(a.n)})
		}
		return out
	}
	var subKeys []string
	for _, k := range kinds {
		for _, sub := range subMetrics {
			subKeys = append(subKeys, sub+"."+string(k))
		}
	}
	s.SubMetrics = rates(subs, subKeys)
	s.ChainBuckets = rates(bks, buckets)
	s.FailureReasons = orderedCounts(rs)
	return s
}

// TrendRow is one metric across all runs. Values are each run's own
// figure over all its turns (nil when the run has none); Diffs and
// Verdicts come from the paired comparison of each run with the base (nil
// and "" for the base, or when the comparison has no such Stat).
type TrendRow struct {
	Metric   string     `json:"metric"`
	Values   []*float64 `json:"values"`
	Diffs    []*float64 `json:"diffs_vs_base"`
	Verdicts []string   `json:"verdicts"`
}

// Report is everything compare.json holds.
type Report struct {
	Version     int          `json:"version"`
	Options     Options      `json:"options"`
	Base        string       `json:"base"`
	Runs        []RunStats   `json:"runs"`
	Mismatches  []Mismatch   `json:"mismatches"`
	Comparisons []Comparison `json:"comparisons"`
	Trend       []TrendRow   `json:"trend"`
	Gate        Gate         `json:"gate"`
}

// CompareRuns compares runs[1:] each with runs[0], the base, and builds
// the trend table. The gate fails when any candidate fails it. Run names
// must be distinct. Errors as for Compare, plus ErrTooFewRuns.
func CompareRuns(ctx context.Context, runs []Run, opts Options) (*Report, error) {
	if len(runs) < 2 {
		return nil, fmt.Errorf("%w (got %d)", ErrTooFewRuns, len(runs))
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Name] {
			return nil, fmt.Errorf("%w: two runs are named %q; give each run a distinct name", ErrInvalidOptions, r.Name)
		}
		seen[r.Name] = true
	}
	base := runs[0]
	rep := &Report{Version: ReportVersion, Options: opts, Base: base.Name, Mismatches: []Mismatch{}}
	for _, r := range runs[1:] {
		rep.Mismatches = append(rep.Mismatches, CheckIdentity(base, r)...)
	}
	if len(rep.Mismatches) > 0 && !opts.AllowMismatch {
		return nil, &MismatchError{Base: base.Name, Mismatches: rep.Mismatches}
	}
	for _, r := range runs {
		rep.Runs = append(rep.Runs, NewRunStats(r))
	}
	rep.Gate = Gate{Alpha: opts.Alpha, Margin: opts.Margin, Rule: gateRule, Failures: []GateFailure{}}
	for _, r := range runs[1:] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := Compare(ctx, base, r, opts)
		if err != nil {
			return nil, fmt.Errorf("comparing %s with base %s: %w", r.Name, base.Name, err)
		}
		rep.Comparisons = append(rep.Comparisons, *c)
		if c.Gate.Failed {
			rep.Gate.Failed = true
			rep.Gate.Failures = append(rep.Gate.Failures, c.Gate.Failures...)
		}
	}
	rep.Trend = trend(rep)
	return rep, nil
}

func trend(rep *Report) []TrendRow {
	n := len(rep.Runs)
	type metric struct {
		name  string
		value func(RunStats) *float64
	}
	f := func(v float64) *float64 { return &v }
	rateOf := func(rs []Rate, key string) *float64 {
		for _, r := range rs {
			if r.Key == key {
				return f(r.Value)
			}
		}
		return nil
	}
	ms := []metric{
		{GroupOverall + ":correctness", func(s RunStats) *float64 {
			if s.Turns == 0 {
				return nil
			}
			return f(s.Correctness)
		}},
	}
	// Sub-metrics and buckets present in any run, in report order.
	subSeen, bkSeen := map[string]bool{}, map[string]bool{}
	for _, s := range rep.Runs {
		for _, r := range s.SubMetrics {
			subSeen[r.Key] = true
		}
		for _, r := range s.ChainBuckets {
			bkSeen[r.Key] = true
		}
	}
	var subKeys []string
	for _, k := range kinds {
		for _, sub := range subMetrics {
			subKeys = append(subKeys, sub+"."+string(k))
		}
	}
	for _, k := range orderKeys(subSeen, subKeys) {
		ms = append(ms, metric{GroupSubMetric + ":" + k, func(s RunStats) *float64 { return rateOf(s.SubMetrics, k) }})
	}
	for _, k := range orderKeys(bkSeen, buckets) {
		ms = append(ms, metric{GroupChainBucket + ":" + k, func(s RunStats) *float64 { return rateOf(s.ChainBuckets, k) }})
	}
	ms = append(ms, metric{GroupDialog + ":test_pass", func(s RunStats) *float64 {
		if s.Dialogs == 0 {
			return nil
		}
		return f(s.DialogPassRate)
	}})
	var rows []TrendRow
	for _, m := range ms {
		row := TrendRow{Metric: m.name, Values: make([]*float64, n), Diffs: make([]*float64, n), Verdicts: make([]string, n)}
		for i, s := range rep.Runs {
			row.Values[i] = m.value(s)
		}
		for i, c := range rep.Comparisons {
			for _, st := range c.AllStats() {
				if st.Name() == m.name && st.Units > 0 {
					row.Diffs[i+1] = f(st.Diff)
					row.Verdicts[i+1] = st.Verdict
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}
