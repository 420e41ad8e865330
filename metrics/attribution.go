package metrics

import (
	"slices"
)

// Chain buckets recorded in Verdict.ChainBucket.
const (
	BucketSingle    = "single"
	BucketTwoStep   = "two_step"
	BucketThreePlus = "three_plus"
)

// chainInfo places a turn in its action chain.
type chainInfo struct{ id, length int }

// chains groups Tool rows into action chains: consecutive Tool rows form a
// chain until an Agent (response) row interrupts it. User rows are context
// and do not interrupt a chain. Rows are in TurnNo order.
func chains(rows []Turn) map[int]chainInfo {
	info := map[int]chainInfo{}
	id := 0
	var cur []int
	flush := func() {
		for _, t := range cur {
			info[t] = chainInfo{id: id, length: len(cur)}
		}
		cur = nil
		id++
	}
	for _, r := range rows {
		switch r.Role {
		case RoleTool:
			cur = append(cur, r.TurnNo)
		case RoleAgent:
			if len(cur) > 0 {
				flush()
			}
		}
	}
	if len(cur) > 0 {
		flush()
	}
	return info
}

// ChainBucket names the bucket of an action chain length: "single",
// "two_step" or "three_plus"; "" for 0 (response turns).
func ChainBucket(length int) string {
	switch {
	case length <= 0:
		return ""
	case length == 1:
		return BucketSingle
	case length == 2:
		return BucketTwoStep
	}
	return BucketThreePlus
}

// attribute records chain lengths and splits failures into root causes and
// cascades. js is in (TurnNo, PredictTurnNo) order, so every earlier turn's
// attribution is final when a turn is looked at.
func attribute(js []decided, rows []Turn, policy CascadePolicy) {
	info := chains(rows)
	byTurn := map[int]*Turn{}
	for i := range rows {
		byTurn[rows[i].TurnNo] = &rows[i]
	}
	wrong := make([]map[string]bool, len(js))
	chainRoot := map[int]int{}
	for i := range js {
		v := &js[i].v
		if v.Kind == KindAction {
			v.ChainLength = info[js[i].row.TurnNo].length
			v.ChainBucket = ChainBucket(v.ChainLength)
		}
		if v.Pass {
			continue // its wrong tokens are never read (firstCarrier)
		}
		wrong[i] = wrongTokens(js[i].diffs)
		var root int
		var cascade bool
		switch {
		case policy == CascadeChain:
			root, cascade = chainCascade(v, info, chainRoot)
		case js[i].row.DependsOn != nil:
			root, cascade = dependencyRoot(js[:i], js[i].row, byTurn)
		default:
			root, cascade = evidenceRoot(js[:i], wrong[:i], js[i])
		}
		markRoot(v, root, cascade)
	}
}

// markRoot turns a failed verdict into a cascade of root, or a root cause.
func markRoot(v *Verdict, root int, cascade bool) {
	if !cascade {
		v.RootCause = true
		return
	}
	v.RootCause, v.CascadeFrom = false, root
	v.FailureReason = ReasonPriorActionFailed
	if !slices.Contains(v.FailedChecks, ReasonPriorActionFailed) {
		v.FailedChecks = append(v.FailedChecks, ReasonPriorActionFailed)
	}
}

// chainCascade: the first failed action turn of a chain is its root; every
// later failed action turn in the chain cascades from it. Response turns
// are never chain cascades.
func chainCascade(v *Verdict, info map[int]chainInfo, chainRoot map[int]int) (int, bool) {
	if v.Kind != KindAction {
		return 0, false
	}
	id := info[v.TurnNo].id
	if r, ok := chainRoot[id]; ok {
		return r, true
	}
	chainRoot[id] = v.TurnNo
	return 0, false
}

// rootOf is the root cause a failed verdict stands for.
func rootOf(v Verdict) int {
	if v.RootCause {
		return v.TurnNo
	}
	return v.CascadeFrom
}

// dependencyRoot follows depends_on transitively (through turns that give
// it) and returns the earliest root among the failed turns it reaches.
func dependencyRoot(prev []decided, row *Turn, byTurn map[int]*Turn) (int, bool) {
	reach := map[int]bool{}
	stack := slices.Clone(row.DependsOn)
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if reach[t] {
			continue
		}
		reach[t] = true
		if r := byTurn[t]; r != nil {
			stack = append(stack, r.DependsOn...)
		}
	}
	root, found := 0, false
	for _, u := range prev {
		if !u.v.Pass && reach[u.v.TurnNo] {
			if r := rootOf(u.v); !found || r < root {
				root, found = r, true
			}
		}
	}
	return root, found
}

// evidenceExplains reports the checks a propagated wrong value can explain.
func evidenceExplains(r Reason) bool {
	return r == ReasonInconsistentValues || r == ReasonIncompleteResponse || r == ReasonInconsistentResponse
}

// evidenceRoot infers a cascade without depends_on: every failing value of
// cur must repeat a wrong token of an earlier failed turn (a token its
// prediction has and its gold lacks). Structural failures, missing and
// unexpected turns are never inferred cascades. The root is that of the
// earliest matching earlier turn.
func evidenceRoot(prev []decided, prevWrong []map[string]bool, cur decided) (int, bool) {
	for _, r := range cur.v.FailedChecks {
		if !evidenceExplains(r) {
			return 0, false
		}
	}
	if len(cur.diffs) == 0 {
		return 0, false
	}
	first := -1
	for _, d := range cur.diffs {
		k := firstCarrier(prev, prevWrong, cur.v.TurnNo, wrongTokens([]valueDiff{d}))
		if k < 0 {
			return 0, false
		}
		if first < 0 || k < first {
			first = k
		}
	}
	return rootOf(prev[first].v), true
}

// firstCarrier is the index of the earliest failed turn before turnNo whose
// wrong tokens meet toks, or -1.
func firstCarrier(prev []decided, prevWrong []map[string]bool, turnNo int, toks map[string]bool) int {
	for k, u := range prev {
		if u.v.Pass || u.v.TurnNo >= turnNo {
			continue
		}
		for t := range toks {
			if prevWrong[k][t] {
				return k
			}
		}
	}
	return -1
}

// wrongTokens are the words of failing predicted values that their gold
// values lack, less stop words.
func wrongTokens(diffs []valueDiff) map[string]bool {
	out := map[string]bool{}
	for _, d := range diffs {
		gold := map[string]bool{}
		for _, g := range d.gold {
			for _, w := range words(g) {
				gold[w] = true
			}
		}
		for _, w := range words(d.pred) {
			if !gold[w] && !isStopWord(w) {
				out[w] = true
			}
		}
	}
	return out
}

// isStopWord reports words that never count as propagated values.
func isStopWord(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with",
		"from", "as", "is", "are", "was", "were", "be", "been", "it", "its", "this", "that",
		"these", "those", "i", "you", "we", "they", "he", "she", "your", "our", "their", "my",
		"has", "have", "had", "do", "does", "did", "not", "no", "yes", "so", "than", "then",
		"there", "here", "will", "would", "can", "could", "should", "may", "might", "also",
		"true", "false", "null":
		return true
	}
	return false
}
