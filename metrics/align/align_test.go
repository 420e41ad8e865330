package align

import (
	"context"
	"fmt"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
)

// g builds a gold dialog from compact specs: "tool" or "tool.action" (a
// call with no args), "tool(k=v)" (one string arg), "@reply text", "user
// ...", each optionally prefixed by "block:" for an order-invariant block.
func gold(specs ...string) metrics.Dialog {
	d := metrics.Dialog{ID: "d"}
	for i, s := range specs {
		t := metrics.Turn{DialogID: "d", TurnNo: i + 1, HasGold: true}
		if rest, ok := cutPrefix(s, "block:"); ok {
			t.Tags, s = []string{metrics.OrderInvariantPrefix + "b"}, rest
		}
		switch {
		case hasPrefix(s, "@"):
			t.Role, t.GoldResponse = metrics.RoleAgent, s[1:]
		case hasPrefix(s, "user "):
			t.Role, t.GoldResponse = metrics.RoleUser, s[5:]
		default:
			t.Role = metrics.RoleTool
			name, args := parseCall(s)
			t.Gold = metrics.Call{ToolID: name, Action: metrics.CallAction, Args: args}
			if tool, action, ok := cut(name, "."); ok {
				t.Gold.ToolID, t.Gold.Action = tool, action
			}
		}
		d.Turns = append(d.Turns, t)
	}
	return d
}

func steps(specs ...string) []Step {
	var out []Step
	for _, s := range specs {
		if rest, ok := cutPrefix(s, "user "); ok {
			out = append(out, Step{Role: metrics.RoleUser, Response: rest})
			continue
		}
		if hasPrefix(s, "@") {
			out = append(out, Step{Role: metrics.RoleAgent, Response: s[1:]})
			continue
		}
		name, args := parseCall(s)
		out = append(out, Step{Role: metrics.RoleTool, Name: name, Args: args})
	}
	return out
}

func parseCall(s string) (string, map[string]any) {
	args := map[string]any{}
	name, rest, ok := cut(s, "(")
	if ok {
		k, v, _ := cut(rest[:len(rest)-1], "=")
		args[k] = v
	}
	return name, args
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}
func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
func cutPrefix(s, p string) (string, bool) {
	if hasPrefix(s, p) {
		return s[len(p):], true
	}
	return s, false
}

// row is a compact view of a joined row: turn_no, gold?, pred index.
type row struct {
	Turn int
	Gold bool
	Pred int
	Tool string
}

func view(j Joined) []row {
	var out []row
	for i, t := range j.Dialog.Turns {
		r := row{Turn: t.TurnNo, Gold: t.HasGold, Pred: j.PredOf[i]}
		if t.HasPredict && t.Role == metrics.RoleTool {
			r.Tool = t.Predict.ToolID + "." + t.Predict.Action
		}
		out = append(out, r)
	}
	return out
}

func TestJoin(t *testing.T) {
	tests := []struct {
		name     string
		gold     metrics.Dialog
		pred     []Step
		opts     Options
		want     []row
		ignored  []int
		context  []int
		allowed  []int
		unscored []int
	}{
		{"extra call does not shift", gold("a", "b", "c"), steps("a", "x", "b", "c"), Options{},
			[]row{{1, true, 0, "a.call"}, {2, true, 2, "b.call"}, {3, true, 3, "c.call"}, {5, false, 1, "x.call"}}, nil, nil, nil, nil},
		{"missing call", gold("a", "b", "c"), steps("a", "c"), Options{},
			[]row{{1, true, 0, "a.call"}, {2, true, -1, ""}, {3, true, 1, "c.call"}}, nil, nil, nil, nil},
		{"wrong tool in place (strict)", gold("a", "b"), steps("a", "x"), Options{},
			[]row{{1, true, 0, "a.call"}, {2, true, 1, "x.call"}}, nil, nil, nil, nil},
		{"wrong tool in place (superset)", gold("a", "b"), steps("a", "x"), Options{Mode: Superset},
			[]row{{1, true, 0, "a.call"}, {2, true, -1, ""}}, nil, nil, []int{1}, nil},
		{"wrong tool in place (subset)", gold("a", "b"), steps("a", "x"), Options{Mode: Subset},
			[]row{{1, true, 0, "a.call"}, {4, false, 1, "x.call"}}, nil, nil, nil, []int{2}},
		{"superset allows extras", gold("a", "c"), steps("a", "b", "c", "d"), Options{Mode: Superset},
			[]row{{1, true, 0, "a.call"}, {2, true, 2, "c.call"}}, nil, nil, []int{1, 3}, nil},
		{"subset allows leaving out", gold("a", "b", "c"), steps("b"), Options{Mode: Subset},
			[]row{{2, true, 0, "b.call"}}, nil, nil, nil, []int{1, 3}},
		{"strict keeps order", gold("a", "b", "c"), steps("c", "a", "b"), Options{},
			[]row{{1, true, 1, "a.call"}, {2, true, 2, "b.call"}, {3, true, -1, ""}, {4, false, 0, "c.call"}}, nil, nil, nil, nil},
		{"unordered", gold("a", "b", "c"), steps("c", "a", "b"), Options{Mode: Unordered},
			[]row{{1, true, 1, "a.call"}, {2, true, 2, "b.call"}, {3, true, 0, "c.call"}}, nil, nil, nil, nil},
		{"order-invariant block", gold("a", "block:b", "block:c", "d"), steps("a", "c", "b", "d"), Options{},
			[]row{{1, true, 0, "a.call"}, {2, true, 2, "b.call"}, {3, true, 1, "c.call"}, {4, true, 3, "d.call"}}, nil, nil, nil, nil},
		{"extra inside a block is tagged with it", gold("block:b", "block:c"), steps("c", "x", "b"), Options{},
			[]row{{1, true, 2, "b.call"}, {2, true, 0, "c.call"}, {4, false, 1, "x.call"}}, nil, nil, nil, nil},
		{"ignored tools", gold("a", "b"), steps("think", "a", "calculate", "b"), Options{IgnoreTools: []string{"think", "calculate"}},
			[]row{{1, true, 1, "a.call"}, {2, true, 3, "b.call"}}, []int{0, 2}, nil, nil, nil},
		{"replies are context when gold has none", gold("a"), steps("a", "@done"), Options{},
			[]row{{1, true, 0, "a.call"}}, nil, []int{1}, nil, nil},
		{"replies aligned when gold has them", gold("user hi", "a", "@It is sunny"), steps("@Let me see", "a", "@It is sunny today", "b"), Options{},
			[]row{{1, true, -1, ""}, {2, true, 1, "a.call"}, {3, true, 2, ""}, {4, false, 0, ""}, {7, false, 3, "b.call"}}, nil, nil, nil, nil},
		{"same tool twice: the right arguments win", gold("w(city=Boston)"), steps("w(city=NYC)", "w(city=Boston)"), Options{},
			[]row{{1, true, 1, "w.call"}, {2, false, 0, "w.call"}}, nil, nil, nil, nil},
		{"same tool twice, same arguments: the earlier wins", gold("w"), steps("w", "w"), Options{},
			[]row{{1, true, 0, "w.call"}, {3, false, 1, "w.call"}}, nil, nil, nil, nil},
		{"tool.action naming", gold("db.aggregate", "db.filter"), steps("db.aggregate", "db__filter"), Options{},
			[]row{{1, true, 0, "db.aggregate"}, {2, true, 1, "db.filter"}}, nil, nil, nil, nil},
		{"no predictions: all missing", gold("a", "@ok"), nil, Options{},
			[]row{{1, true, -1, ""}, {2, true, -1, ""}}, nil, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Join(tt.gold, tt.pred, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, view(j)); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
			for _, c := range []struct {
				name      string
				want, got []int
			}{{"ignored", tt.ignored, j.Ignored}, {"context", tt.context, j.Context}, {"allowed", tt.allowed, j.Allowed}, {"unscored", tt.unscored, j.Unscored}} {
				if d := cmp.Diff(c.want, c.got); d != "" {
					t.Errorf("%s (-want +got):\n%s", c.name, d)
				}
			}
		})
	}
}

// TestExtraCallScores checks the point of aligning: with one extra call
// early, every gold turn still passes and only the extra call fails.
func TestExtraCallScores(t *testing.T) {
	g := gold("search(q=rome)", "book(id=7)", "pay(amount=10)", "@Booked.")
	for _, mode := range []Mode{Strict, Superset, Unordered} {
		t.Run(string(mode), func(t *testing.T) {
			j, err := Join(g, steps("search(q=rome)", "think", "book(id=7)", "pay(amount=10)", "@Booked."), Options{Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			res, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{j.Dialog})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, v := range res[0].Turns {
				got = append(got, fmt.Sprintf("%d:%s", v.TurnNo, v.FailureReason))
			}
			want := []string{"1:", "2:", "3:", "4:", "6:unexpected_turn"}
			if mode == Superset {
				want = want[:4]
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("verdicts (-want +got):\n%s", d)
			}
		})
	}
}

func TestNaming(t *testing.T) {
	golds := []metrics.Call{{ToolID: "sales_db", Action: "aggregate"}, {ToolID: "weather", Action: "call"}}
	n, err := ParseNaming("getWeather=weather, q=sales_db.query")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, tool, action string }{
		{"sales_db.aggregate", "sales_db", "aggregate"},
		{"sales_db__aggregate", "sales_db", "aggregate"},
		{"sales_db_aggregate", "sales_db", "aggregate"},
		{"sales_db.filter", "sales_db", "filter"},
		{"weather", "weather", "call"},
		{"weather.today", "weather.today", "call"}, // weather uses no actions
		{"getWeather", "weather", "call"},
		{"q", "sales_db", "query"},
		{"other", "other", "call"},
	}
	for _, tt := range tests {
		tool, action := n.Resolve(tt.name, golds)
		if tool != tt.tool || action != tt.action {
			t.Errorf("Resolve(%q) = %s, %s; want %s, %s", tt.name, tool, action, tt.tool, tt.action)
		}
	}
	for _, bad := range []string{"x", "=y", "a=b,a=c"} {
		if _, err := ParseNaming(bad); err == nil {
			t.Errorf("ParseNaming(%q) accepted", bad)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Strict, "STRICT": Strict, "superset": Superset, "subset": Subset, "unordered": Unordered} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("loose"); err == nil {
		t.Error("ParseMode(loose) accepted")
	}
}

// TestJoinReadOnly: read-only calls (named, or so defined) are aligned
// among themselves, in any order, and every one is kept, whatever the
// mode; state-changing calls are aligned as before, unaffected by them.
func TestJoinReadOnly(t *testing.T) {
	ro := []string{"get", "find"}
	tests := []struct {
		name     string
		gold     metrics.Dialog
		pred     []Step
		mode     Mode
		want     []row
		readOnly []int
		allowed  []int
	}{
		{"reads in another order, a write in place", gold("get", "find", "book"), steps("find", "get", "book"), Strict,
			[]row{{1, true, 1, "get.call"}, {2, true, 0, "find.call"}, {3, true, 2, "book.call"}}, []int{0, 1}, nil},
		{"a read skipped, an extra read", gold("get", "find", "book"), steps("get", "get", "book"), Strict,
			[]row{{1, true, 0, "get.call"}, {2, true, -1, ""}, {3, true, 2, "book.call"}, {5, false, 1, "get.call"}}, []int{0, 1}, nil},
		{"a read never takes a write's place", gold("book"), steps("get"), Strict,
			[]row{{1, true, -1, ""}, {2, false, 0, "get.call"}}, []int{0}, nil},
		{"superset keeps reads, drops extra writes", gold("get", "book"), steps("find", "cancel", "book"), Superset,
			[]row{{1, true, -1, ""}, {2, true, 2, "book.call"}, {3, false, 0, "find.call"}}, []int{0}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Join(tt.gold, tt.pred, Options{Mode: tt.mode, ReadOnlyTools: ro})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, view(j)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if !cmp.Equal(tt.readOnly, j.ReadOnly) || !cmp.Equal(tt.allowed, j.Allowed) {
				t.Errorf("read-only %v allowed %v, want %v and %v", j.ReadOnly, j.Allowed, tt.readOnly, tt.allowed)
			}
		})
	}
}

// TestJoinUserTurns: when the gold has User turns and the predictions carry
// the user's messages, a gold turn is matched only by a step made after
// the same user message and before the next; every row says which user
// turn it belongs to.
func TestJoinUserTurns(t *testing.T) {
	type urow struct {
		Turn, Pred, User int
		Gold             bool
	}
	uview := func(j Joined) []urow {
		var out []urow
		for i, tr := range j.Dialog.Turns {
			if tr.Role != metrics.RoleUser {
				out = append(out, urow{Turn: tr.TurnNo, Pred: j.PredOf[i], User: tr.UserTurn, Gold: tr.HasGold})
			}
		}
		return out
	}
	g := gold("user book", "a", "user and the hotel", "b", "user and a car", "c")
	tests := []struct {
		name string
		pred []Step
		mode Mode
		want []urow
	}{
		{"each in its turn", steps("user book", "a", "user hotel", "b", "user car", "c"), Strict,
			[]urow{{2, 1, 0, true}, {4, 3, 0, true}, {6, 5, 0, true}}},
		{"one user turn late", steps("user book", "a", "user hotel", "user car", "b", "c"), Strict,
			[]urow{{2, 1, 0, true}, {4, -1, 0, true}, {6, 5, 0, true}, {8, 4, 5, false}}},
		{"one user turn early", steps("user book", "a", "b", "user hotel", "user car", "c"), Strict,
			[]urow{{2, 1, 0, true}, {4, -1, 0, true}, {6, 5, 0, true}, {8, 2, 1, false}}},
		{"late, superset", steps("user book", "a", "user hotel", "user car", "b", "c"), Superset,
			[]urow{{2, 1, 0, true}, {4, -1, 0, true}, {6, 5, 0, true}}},
		{"late, unordered", steps("user book", "a", "user hotel", "user car", "c", "b"), Unordered,
			[]urow{{2, 1, 0, true}, {4, -1, 0, true}, {6, 4, 0, true}, {9, 5, 5, false}}},
		{"the log stops recording the user", steps("user book", "a", "b", "c"), Strict,
			[]urow{{2, 1, 0, true}, {4, 2, 0, true}, {6, 3, 0, true}}},
		{"no user messages: not bounded", steps("a", "c", "b"), Strict,
			[]urow{{2, 0, 0, true}, {4, -1, 0, true}, {6, 1, 0, true}, {9, 2, -1, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := Join(g, tt.pred, Options{Mode: tt.mode})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, uview(j)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
}
