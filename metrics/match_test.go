package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkTurn builds a Tool turn JSON object; gold or pred "" leaves it out.
func toolTurn(no int, tag, gold, pred string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"turn_no":%d,"turn":"Tool","tags":[%q]`, no, tag)
	if gold != "" {
		fmt.Fprintf(&b, `,"gold_turn":{"tool_id":"geo","action":"lookup","args":{"city":%s}}`, gold)
	}
	if pred != "" {
		fmt.Fprintf(&b, `,"predict_turn":{"tool_id":"geo","action":"lookup","args":{"city":%s}}`, pred)
	}
	return b.String() + "}"
}

func blockDialog(t testing.TB, turns ...string) Dialog {
	return dialogJSON(t, `{"dialog_id":"blk","turns":[`+strings.Join(turns, ",")+`]}`)
}

type match struct {
	turn, pred int
	pass       bool
}

func matches(r DialogResult) []match {
	var out []match
	for _, v := range r.Turns {
		out = append(out, match{v.TurnNo, v.PredictTurnNo, v.Pass})
	}
	return out
}

func TestOrderInvariantBlocks(t *testing.T) {
	const B = "OrderInvariant_geo"
	tests := []struct {
		name  string
		turns []string
		want  []match
	}{
		{"valid reordering is never penalised", []string{
			toolTurn(1, B, `"Paris"`, `"Rome"`), toolTurn(2, B, `"Rome"`, `"Oslo"`), toolTurn(3, B, `"Oslo"`, `"Paris"`)},
			[]match{{1, 3, true}, {2, 1, true}, {3, 2, true}}},
		{"identity kept on ties", []string{
			toolTurn(1, B, `"Paris"`, `"Paris"`), toolTurn(2, B, `"Paris"`, `"Paris"`)},
			[]match{{1, 1, true}, {2, 2, true}}},
		{"greedy would be wrong", []string{ // greedy pairs 1↔1 (both pass) and strands gold 2
			toolTurn(1, B, `{"$any":["Paris","Lyon"]}`, `"Paris"`), toolTurn(2, B, `"Paris"`, `"Lyon"`)},
			[]match{{1, 2, true}, {2, 1, true}}},
		{"same tag elsewhere in the dialog joins the block", []string{
			toolTurn(1, B, `"Paris"`, `"Rome"`), toolTurn(2, "other", `"Bern"`, `"Bern"`), toolTurn(3, B, `"Rome"`, `"Paris"`)},
			[]match{{1, 3, true}, {2, 2, true}, {3, 1, true}}},
		{"different groups do not mix", []string{
			toolTurn(1, "OrderInvariant_a", `"Paris"`, `"Rome"`), toolTurn(2, "OrderInvariant_b", `"Rome"`, `"Paris"`)},
			[]match{{1, 1, false}, {2, 2, false}}},
		{"extra prediction in block is unexpected", []string{
			toolTurn(1, B, `"Paris"`, `"Rome"`), toolTurn(2, B, `"Rome"`, `"Paris"`), toolTurn(3, B, "", `"Oslo"`)},
			[]match{{1, 2, true}, {2, 1, true}, {3, 3, false}}},
		{"missing prediction in block", []string{
			toolTurn(1, B, `"Paris"`, ""), toolTurn(2, B, `"Rome"`, `"Paris"`)},
			[]match{{1, 2, true}, {2, 0, false}}},
		{"failing pair beats splitting it", []string{
			toolTurn(1, B, `"Paris"`, `"Madrid"`), toolTurn(2, B, `"Rome"`, `"Paris"`)},
			[]match{{1, 2, true}, {2, 1, false}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := evalAll(t, withThreshold(0.99), blockDialog(t, tc.turns...))[0]
			got := matches(r)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestOrderInvariantMixedRoles(t *testing.T) {
	d := dialogJSON(t, `{"dialog_id":"m","turns":[
		{"turn_no":1,"turn":"Tool","tags":["OrderInvariant_x"],"gold_turn":{"tool_id":"a","action":"b","args":{}},"predict_turn":{"tool_id":"a","action":"b","args":{}}},
		{"turn_no":2,"turn":"Agent","tags":["OrderInvariant_x"],"gold_turn":{"response":"Done."},"predict_turn":{"response":"Done."}}]}`)
	r := evalAll(t, DefaultConfig(), d)[0]
	if got := fmt.Sprint(matches(r)); got != "[{1 1 true} {2 2 true}]" {
		t.Errorf("got %s", got)
	}
}

// TestAssignmentOptimal compares the Hungarian assignment with brute force.
func TestAssignmentOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + trial%6
		w := make([][]int64, n)
		for i := range w {
			w[i] = make([]int64, n)
			for j := range w[i] {
				w[i][j] = rng.Int64N(20)
			}
		}
		asg := maxWeightAssignment(w)
		seen := map[int]bool{}
		var got int64
		for i, j := range asg {
			if seen[j] {
				t.Fatalf("trial %d: column %d assigned twice", trial, j)
			}
			seen[j] = true
			got += w[i][j]
		}
		if best := bruteForce(w); got != best {
			t.Fatalf("trial %d: Hungarian %d, brute force %d for %v", trial, got, best, w)
		}
		if again := maxWeightAssignment(w); fmt.Sprint(again) != fmt.Sprint(asg) {
			t.Fatalf("trial %d: not deterministic", trial)
		}
	}
}

func bruteForce(w [][]int64) int64 {
	n := len(w)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	var best int64 = -1
	var rec func(k int)
	rec = func(k int) {
		if k == n {
			var s int64
			for i, j := range perm {
				s += w[i][j]
			}
			best = max(best, s)
			return
		}
		for i := k; i < n; i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

func TestLargeBlock(t *testing.T) {
	const n = 60
	var turns []string
	for i := 1; i <= n; i++ {
		turns = append(turns, toolTurn(i, "OrderInvariant_big", fmt.Sprintf(`"city-%d"`, i), fmt.Sprintf(`"city-%d"`, n+1-i)))
	}
	r := evalAll(t, withThreshold(0.99), blockDialog(t, turns...))[0]
	if r.PassedCount != n {
		t.Fatalf("passed %d of %d", r.PassedCount, n)
	}
	for _, v := range r.Turns {
		if v.PredictTurnNo != n+1-v.TurnNo {
			t.Fatalf("turn %d matched %d", v.TurnNo, v.PredictTurnNo)
		}
	}
}
