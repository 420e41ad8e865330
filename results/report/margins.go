package report

import (
	"math"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// movable reports whether moving the thresholds moves this comparison's
// verdict: the scorer decided it and no judge did (a judge's decision is
// held to its fixed threshold).
func movable(fs *rundir.FieldScoreRow) bool { return fs.ScorerDecided() && !fs.Judged() }

type marginAcc struct {
	m       Margins
	entries map[string]*entryAcc
	// fail[i] and pass[i] count the turn verdicts a move by Deltas[i]
	// flips.
	fail, pass []int
}

type entryAcc struct {
	e          MarginEntry
	thresholds map[float64]int
}

// maxThresholdValues bounds the distinct thresholds counted per entry (an
// entry holds one value; the default entry one per run).
const maxThresholdValues = 64

func newMarginAcc() marginAcc {
	return marginAcc{entries: map[string]*entryAcc{}, fail: make([]int, len(Deltas)), pass: make([]int, len(Deltas))}
}

// turn adds the turn's comparisons to the histograms, and to the flips:
// a passing turn fails when thresholds rise by more than its narrowest
// margin; a failing turn whose every failure is a movable comparison
// passes when they drop by its widest shortfall.
func (a *marginAcc) turn(t *rundir.TurnRow) {
	narrowest, widest := math.Inf(1), 0.0
	other := !t.Pass && t.Structure == string(metrics.OutcomeFail)
	for _, c := range t.FailedChecks {
		other = other || c != string(metrics.ReasonPriorActionFailed) && !metrics.Reason(c).ThresholdBound()
	}
	// A reply's coverage follows from its clauses (below), except for a
	// clause whose anchors are missing: no threshold covers it.
	for _, c := range t.Clauses {
		other = other || c.Required && c.Pass && !c.Covered
	}
	scores := t.AllScores()
	for i := range scores {
		fs := &scores[i]
		if fs.Judged() {
			a.m.Judged++
		}
		if fs.Method == metrics.MethodCoverage {
			continue
		}
		if !movable(fs) {
			other = other || !fs.Pass
			continue
		}
		a.add(fs)
		d := fs.Score - fs.Threshold
		if fs.Pass {
			narrowest = math.Min(narrowest, d)
		} else {
			widest = math.Max(widest, -d)
		}
	}
	for i, delta := range Deltas {
		switch {
		case t.Pass && narrowest < delta:
			a.fail[i]++
		case !t.Pass && !other && widest > 0 && widest <= delta:
			a.pass[i]++
		}
	}
}

func (a *marginAcc) add(fs *rundir.FieldScoreRow) {
	a.m.Compared++
	from := fs.ThresholdFrom
	if from == "" {
		from = "(unnamed)"
	}
	e := a.entries[from]
	if e == nil {
		e = &entryAcc{e: MarginEntry{From: from, Bins: make([]int, bins), Near: make([]int, len(Deltas))}, thresholds: map[float64]int{}}
		a.entries[from] = e
	}
	e.e.Compared++
	if fs.Pass {
		e.e.Passed++
	}
	if _, ok := e.thresholds[fs.Threshold]; ok || len(e.thresholds) < maxThresholdValues {
		e.thresholds[fs.Threshold]++
	}
	d := fs.Score - fs.Threshold
	switch i := int(math.Floor((d - BinLow) / BinWidth)); {
	case i < 0:
		e.e.Below++
	case i >= bins:
		e.e.Above++
	default:
		e.e.Bins[i]++
	}
	for i, delta := range Deltas {
		if math.Abs(d) <= delta {
			e.e.Near[i]++
		}
	}
}

func (a *marginAcc) result() Margins {
	m := a.m
	for _, e := range a.entries {
		best, n := 0.0, -1
		for v, c := range e.thresholds {
			if c > n || c == n && v < best {
				best, n = v, c
			}
		}
		e.e.Threshold = best
		m.Entries = append(m.Entries, e.e)
	}
	slices.SortFunc(m.Entries, func(x, y MarginEntry) int {
		if x.Compared != y.Compared {
			return y.Compared - x.Compared
		}
		return strings.Compare(x.From, y.From)
	})
	for i, d := range Deltas {
		m.Shifts = append(m.Shifts, Shift{Delta: d, Fail: a.fail[i], Pass: a.pass[i]})
	}
	return m
}

// latencyAcc counts turns and passes in fine logarithmic latency bins, so
// that groups of about equal size can be formed at the end in bounded
// memory.
type latencyAcc struct {
	turns, passed [latencyBins]int
	n             int
}

// Fine bins: 20 per decade from 0.1 ms to 10^7 ms, the first and last
// open-ended.
const (
	latencyBins   = 160
	latencyPerDec = 20
	latencyMinLog = -1
	latencyGroups = 8
	minGroupShare = 0.5 // a group holds at least this share of n/latencyGroups turns
)

func latencyBin(ms float64) int {
	if !(ms > 0) {
		return 0
	}
	i := int(math.Floor((math.Log10(ms) - latencyMinLog) * latencyPerDec))
	return min(max(i, 0), latencyBins-1)
}

func binEdge(i int) float64 {
	if i <= 0 {
		return 0
	}
	return math.Pow(10, float64(i)/latencyPerDec+latencyMinLog)
}

func (a *latencyAcc) add(ms float64, pass bool) {
	i := latencyBin(ms)
	a.n++
	a.turns[i]++
	if pass {
		a.passed[i]++
	}
}

// groups merges adjacent bins into about n groups of equal size.
func (a *latencyAcc) groups(n int) *Latency {
	if a.n == 0 {
		return nil
	}
	l := &Latency{Turns: a.n}
	target := float64(a.n) / float64(n)
	var g LatencyGroup
	open := false
	for i := range latencyBins {
		if a.turns[i] == 0 {
			continue
		}
		if !open {
			g = LatencyGroup{From: binEdge(i)}
			open = true
		}
		g.Turns += a.turns[i]
		g.Passed += a.passed[i]
		g.To = binEdge(i + 1)
		if float64(g.Turns) >= target {
			l.Groups = append(l.Groups, g)
			open = false
		}
	}
	if open {
		if last := len(l.Groups) - 1; last >= 0 && float64(g.Turns) < minGroupShare*target {
			l.Groups[last].Turns += g.Turns
			l.Groups[last].Passed += g.Passed
			l.Groups[last].To = g.To
		} else {
			l.Groups = append(l.Groups, g)
		}
	}
	return l
}
