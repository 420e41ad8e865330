package align

import (
	"testing"

	"github.com/aem-dev/aem/metrics"
)

// FuzzJoin builds a gold dialog and predictions from bytes and checks the
// invariants of every join: each scored gold turn appears once (or is
// unscored), each prediction is used once, the user's messages never,
// turn numbers are unique; with user turns ('u'), matches respect them;
// read-only calls (tool c) are listed, never dropped.
func FuzzJoin(f *testing.F) {
	f.Add([]byte("abc"), []byte("axbc"), uint8(0))
	f.Add([]byte("aBCd"), []byte("acbd"), uint8(1))
	f.Add([]byte("a.b"), []byte("b.a."), uint8(3))
	f.Add([]byte("uabuc"), []byte("uaubcc"), uint8(0))
	f.Add([]byte("cuab"), []byte("ucab"), uint8(1))
	f.Fuzz(func(t *testing.T, g, p []byte, mode uint8) {
		if len(g) > 40 || len(p) > 40 {
			return
		}
		d := metrics.Dialog{ID: "f"}
		for i, c := range g {
			tr := metrics.Turn{DialogID: "f", TurnNo: i + 1, HasGold: true, Role: metrics.RoleTool,
				Gold: metrics.Call{ToolID: string('a' + c%4), Action: metrics.CallAction, Args: map[string]any{}}}
			switch {
			case c == '.':
				tr.Role, tr.GoldResponse = metrics.RoleAgent, "ok"
			case c == 'u':
				tr.Role, tr.GoldResponse, tr.Gold = metrics.RoleUser, "hi", metrics.Call{}
			case c >= 'A' && c <= 'Z':
				tr.Tags = []string{metrics.OrderInvariantPrefix + "x"}
			}
			d.Turns = append(d.Turns, tr)
		}
		var pred []Step
		for _, c := range p {
			if c == '.' {
				pred = append(pred, Step{Role: metrics.RoleAgent, Response: "ok"})
				continue
			}
			if c == 'u' {
				pred = append(pred, Step{Role: metrics.RoleUser, Response: "hi"})
				continue
			}
			pred = append(pred, Step{Role: metrics.RoleTool, Name: string('a' + c%5), Args: map[string]any{}})
		}
		opts := Options{Mode: []Mode{Strict, Superset, Subset, Unordered}[mode%4], IgnoreTools: []string{"e"}, ReadOnlyTools: []string{"c"}}
		j, err := Join(d, pred, opts)
		if err != nil {
			t.Fatal(err)
		}
		used := map[int]int{}
		turns := map[int]bool{}
		golds := map[int]bool{}
		for i, tr := range j.Dialog.Turns {
			if turns[tr.TurnNo] {
				t.Fatalf("turn %d twice", tr.TurnNo)
			}
			turns[tr.TurnNo] = true
			if tr.HasGold {
				golds[tr.TurnNo] = true
			}
			if pi := j.PredOf[i]; pi >= 0 {
				used[pi]++
			}
		}
		for _, l := range [][]int{j.Ignored, j.Context, j.Allowed} {
			for _, pi := range l {
				used[pi]++
			}
		}
		for pi, st := range pred {
			if want := 1; st.Role == metrics.RoleUser && used[pi] != 0 || st.Role != metrics.RoleUser && used[pi] != want {
				t.Fatalf("prediction %d (%s) used %d times", pi, st.Role, used[pi])
			}
		}
		// A match respects the user turns: the k-th user message stands for
		// the k-th gold User turn (the last recorded one for the rest).
		users, userTurns := 0, []int{}
		for _, tr := range d.Turns {
			if tr.Role == metrics.RoleUser {
				userTurns = append(userTurns, tr.TurnNo)
			}
		}
		for _, st := range pred {
			if st.Role == metrics.RoleUser {
				users++
			}
		}
		for i, tr := range j.Dialog.Turns {
			pi := j.PredOf[i]
			if pi < 0 || !tr.HasGold || len(userTurns) == 0 || users == 0 {
				continue
			}
			seg := 0
			for _, st := range pred[:pi] {
				if st.Role == metrics.RoleUser {
					seg++
				}
			}
			g := 0
			for _, u := range userTurns {
				if u < tr.TurnNo {
					g++
				}
			}
			if !(g == min(seg, len(userTurns)) || seg == users && users < len(userTurns) && g >= seg) {
				t.Fatalf("gold turn %d (user turn %d) matched a step made after %d of %d user messages", tr.TurnNo, g, seg, users)
			}
		}
		for _, u := range j.Unscored {
			golds[u] = true
		}
		if len(golds) != len(d.Turns) {
			t.Fatalf("%d gold turns out of %d", len(golds), len(d.Turns))
		}
		if _, err := metrics.Evaluate(t.Context(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{j.Dialog}); err != nil && len(j.Dialog.Turns) > 0 {
			t.Fatalf("the joined dialog does not score: %v", err)
		}
	})
}
