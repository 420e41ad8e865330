package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// passEpsilon absorbs float rounding when comparing a score with PassScore.
const passEpsilon = 1e-9

// compose turns verdicts into the dialog result; ctx are the verdicts of
// read-only calls kept as context, listed among the turns, never counted.
func compose(d Dialog, cfg Config, js []decided, ctx []Verdict) DialogResult {
	res := DialogResult{DialogID: d.ID, TurnCount: len(js), ContextTurns: len(ctx), Turns: make([]Verdict, 0, len(js)+len(ctx))}
	failed := 0
	for _, j := range js {
		res.Turns = append(res.Turns, j.v)
		if j.v.Pass {
			res.PassedCount++
			continue
		}
		if failed++; failed == 1 {
			res.FirstFailureTurn = j.v.TurnNo
		}
		if j.v.RootCause {
			if res.RootCauseCount == 0 {
				res.RootCause = j.v.OwnReason
			}
			res.RootCauseCount++
		} else {
			res.CascadingCount++
		}
	}
	res.StructureRate = rate(js, func(v Verdict) Outcome { return v.Structure })
	res.CompletenessRate = rate(js, func(v Verdict) Outcome { return v.Completeness })
	res.TruthfulnessRate = rate(js, func(v Verdict) Outcome { return v.Truthfulness })
	if len(js) > 0 {
		res.SuccessRate = float64(res.PassedCount) / float64(len(js))
	}
	res.Score = score(cfg.Composition, js, res.SuccessRate)
	res.TestPass = len(js) > 0 && res.Score+passEpsilon >= cfg.Composition.PassScore && minRatesMet(cfg.Composition, res)
	if len(js) == 0 && len(ctx) > 0 {
		// Only read-only calls, on either side: no state-changing call was
		// expected and none was made.
		res.SuccessRate, res.Score, res.TestPass = 1, 1, true
	}
	if len(ctx) > 0 {
		res.Turns = append(res.Turns, ctx...)
		slices.SortStableFunc(res.Turns, func(a, b Verdict) int {
			return cmp.Or(cmp.Compare(a.TurnNo, b.TurnNo), cmp.Compare(a.PredictTurnNo, b.PredictTurnNo))
		})
	}
	res.Label = "fail"
	if res.TestPass {
		res.Label = "pass"
	}
	res.Reason = reason(js, res)
	return res
}

// rate is the share of verdicts passing a sub-metric among those where it
// applies; 1 when it applies to none.
func rate(js []decided, get func(Verdict) Outcome) float64 {
	pass, applies := 0, 0
	for _, j := range js {
		switch get(j.v) {
		case OutcomePass:
			pass++
			applies++
		case OutcomeFail:
			applies++
		}
	}
	if applies == 0 {
		return 1
	}
	return float64(pass) / float64(applies)
}

// score applies the composition rule. Weighted: sum of weights of passing
// turns over the sum of all weights (nil weight = 1; all-zero weights give
// the unweighted rate). Gating: the unweighted rate, capped at GateCap
// when a critical turn fails.
func score(c Composition, js []decided, successRate float64) float64 {
	switch c.Rule {
	case RuleWeighted:
		return weightedShare(js, successRate)
	case RuleGating:
		for _, j := range js {
			if j.row.Critical && !j.v.Pass {
				return min(successRate, c.GateCap)
			}
		}
	}
	return successRate
}

// weightedShare is the passing turns' share of the weight. Every weight is
// divided by the largest first, so the sums stay at most the number of
// turns and cannot overflow, whatever finite weights the input holds (two
// turns weighted 1e308, one passing, give 0.5).
func weightedShare(js []decided, successRate float64) float64 {
	weight := func(j decided) float64 {
		if j.row.Weight != nil {
			return *j.row.Weight
		}
		return 1
	}
	largest := 0.0
	for _, j := range js {
		largest = max(largest, weight(j))
	}
	if largest == 0 {
		return successRate
	}
	var passed, total float64
	for _, j := range js {
		w := weight(j) / largest
		total += w
		if j.v.Pass {
			passed += w
		}
	}
	return passed / total
}

func minRatesMet(c Composition, r DialogResult) bool {
	got := map[string]float64{SubStructure: r.StructureRate, SubCompleteness: r.CompletenessRate, SubTruthfulness: r.TruthfulnessRate}
	for k, want := range c.MinRates {
		if got[k]+passEpsilon < want {
			return false
		}
	}
	return true
}

// reason writes the human-readable summary naming the failing turns, e.g.
// "4 of 5 turns failed: turn 2 inconsistent_parameter_values (root cause);
// turns 3-5 prior_action_failed from turn 2".
func reason(js []decided, r DialogResult) string {
	switch {
	case r.TurnCount == 0 && r.ContextTurns > 0:
		return fmt.Sprintf("no state-changing call expected or made; %d read-only call(s) kept as context", r.ContextTurns)
	case r.TurnCount == 0:
		return "no scored turns: the dialog has no Agent or Tool turns"
	case r.PassedCount == r.TurnCount:
		return fmt.Sprintf("all %d turns passed", r.TurnCount)
	}
	cascades := map[int][]int{}
	for _, j := range js {
		if !j.v.Pass && !j.v.RootCause {
			cascades[j.v.CascadeFrom] = append(cascades[j.v.CascadeFrom], j.v.TurnNo)
		}
	}
	var parts []string
	done := map[int]bool{}
	for _, j := range js {
		if j.v.Pass || !j.v.RootCause {
			continue
		}
		parts = append(parts, fmt.Sprintf("turn %d %s%s (root cause)", j.v.TurnNo, j.v.OwnReason, failedAt(j.v)))
		if t := j.v.TurnNo; !done[t] && len(cascades[t]) > 0 {
			done[t] = true
			parts = append(parts, fmt.Sprintf("%s %s from turn %d", turnList(cascades[t]), ReasonPriorActionFailed, t))
		}
	}
	failed := r.TurnCount - r.PassedCount
	return fmt.Sprintf("%d of %d turns failed: %s", failed, r.TurnCount, strings.Join(parts, "; "))
}

// failedAt names where a turn failed invalid_parameter_type (" at
// tool.action.table[1][0]", the first such value), or the first fact a
// reply contradicts (`: amount "$89.00" vs "$98.00"`); "" otherwise.
func failedAt(v Verdict) string {
	for _, fs := range v.FieldScores {
		switch {
		case v.OwnReason == ReasonInvalidType && fs.Method == MethodType:
			return " at " + fs.Field
		case fs.Method == MethodContradicted:
			return ": " + strings.Replace(strings.TrimPrefix(fs.Field, FactPrefix), "):", "", 1)
		}
	}
	return ""
}

// turnList formats sorted turn numbers with runs collapsed: "turn 3",
// "turns 3-5", "turns 3, 5, 7-9".
func turnList(turns []int) string {
	var uniq []int
	for _, t := range turns {
		if len(uniq) == 0 || uniq[len(uniq)-1] != t {
			uniq = append(uniq, t)
		}
	}
	if len(uniq) == 1 {
		return "turn " + strconv.Itoa(uniq[0])
	}
	var parts []string
	for i := 0; i < len(uniq); {
		k := i
		for k+1 < len(uniq) && uniq[k+1] == uniq[k]+1 {
			k++
		}
		if k == i {
			parts = append(parts, strconv.Itoa(uniq[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", uniq[i], uniq[k]))
		}
		i = k + 1
	}
	return "turns " + strings.Join(parts, ", ")
}
