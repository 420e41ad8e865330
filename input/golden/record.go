package golden

import (
	"fmt"
	"math"
	"strconv"

	"github.com/aem-dev/aem/metrics"
)

// record is one input row as its format decoded it, before any rule of a
// valid turn is applied: a Parquet row or a JSON turn, each value as the
// file gave it, null or absent values unset. Both readers decode into it
// and validate is the one place that decides whether it is a valid turn,
// so the two formats accept the same rows and say the same thing about
// the others. What only one format can get wrong (a JSON value of the
// wrong type, an unknown JSON key, a Parquet column of the wrong type) is
// checked by that format's decoder before.
type record struct {
	dialogID   opt[string]
	turnNo     opt[int64]
	role       opt[string] // as written; a JSON turn without one has it inferred (inferRole)
	trial      opt[int64]
	gold       side
	predict    side
	goldNoCall opt[bool]
	tags       []string
	dependsOn  opt[[]int64]
	humanLabel opt[bool]
	humanScore opt[float64]
	weight     opt[float64]
	critical   opt[bool]
	latencyMS  opt[float64]
	tools      opt[string] // the tool definitions' JSON text
	userTurn   opt[int64]
	// shortened holds the length of each text value that its reader
	// replaced by a stand-in before decoding it, because it was over the
	// limit (jsonFilter); checkSizes measures that length instead of the
	// stand-in's.
	shortened map[textKey]int
}

// textKey names a text value of a record: its column and, for a tag, its
// index in tags.
type textKey struct {
	col string
	i   int
}

// side is the gold or the predicted output of a record: a reply, or a
// call (present when any of its three values is), as text.
type side struct {
	response             opt[string]
	toolID, action, args opt[string]
}

func (s side) hasCall() bool { return s.toolID.ok || s.action.ok || s.args.ok }

// opt is a value that may be unset (null or absent in the input).
type opt[T any] struct {
	v  T
	ok bool
}

func some[T any](v T) opt[T] { return opt[T]{v, true} }

// invalid is what validate says is wrong with a record: the canonical
// column of the value at fault (each format names it its own way: the
// mapped Parquet column, the JSON path), the problem and its fix in words
// that hold for both formats, and the cause.
type invalid struct {
	col, problem, fix string
	err               error
}

// The fixes validate gives more than once.
const (
	fixRole       = "use Agent (a reply), Tool (a tool call) or User (context)"
	fixGoldArgs   = `give args as a JSON object or its text, e.g. {"city": "Paris"}`
	fixAltSpec    = `write {"$any": [v1, v2], "$optional": true}`
	fixTrial      = "number trials with integers from 0 or 1; leave trial out (null) for a dialog that is not a repeated trial"
	fixDialogID   = "give every row a non-empty dialog_id"
	fixSplitSides = "a side is either a reply (response) or a call (tool_id, action, args): split it into two turns"
)

// errDialogID is the problem of a missing or empty dialog_id, the same
// whichever pass of the reader meets it.
func errDialogID() *invalid {
	return &invalid{col: ColDialogID, problem: "dialog_id is missing or empty", fix: fixDialogID}
}

// trialNegative is the problem of a negative trial, the same for a row's
// trial and a JSON dialog object's.
func trialNegative(n int64) *invalid {
	return &invalid{col: ColTrial, problem: fmt.Sprintf("trial %d is negative", n), fix: fixTrial}
}

// validate applies every rule of a valid turn to rec (no text value over
// maxField bytes, 0: no limit; see DefaultMaxFieldBytes) and returns the
// turn, with the row's trial and tool definitions' text. Rules that need
// the whole dialog (unique turn_no, depends_on naming earlier turns, gold
// calls fitting the tool definitions) are assemble's.
//
// The predicted side is the agent's output, never bad input: the part of
// it the role scores is kept (the call of a Tool turn, the reply of an
// Agent or User turn), and a side with only the other part counts as no
// prediction of that turn. The gold side must fit the role.
func validate(rec *record, maxField int) (metrics.Turn, *int64, string, *invalid) {
	var t metrics.Turn
	var trial *int64
	if bad := checkSizes(rec, maxField); bad != nil {
		return t, nil, "", bad
	}
	if !rec.dialogID.ok || rec.dialogID.v == "" {
		return t, nil, "", errDialogID()
	}
	t.DialogID = rec.dialogID.v
	if rec.trial.ok {
		if n := rec.trial.v; n < 0 {
			return t, nil, "", trialNegative(n)
		}
		n := rec.trial.v
		trial = &n
	}
	if !rec.turnNo.ok {
		return t, nil, "", &invalid{col: ColTurnNo, problem: "turn_no is missing", fix: "give every turn a turn_no (1, 2, 3, ...)"}
	}
	if no := rec.turnNo.v; no < 1 || no > math.MaxInt32 {
		return t, nil, "", &invalid{col: ColTurnNo, problem: fmt.Sprintf("turn_no %d is out of range", no), fix: "number turns from 1"}
	}
	t.TurnNo = int(rec.turnNo.v)
	if !rec.role.ok {
		r, ok := inferRole(rec)
		if !ok {
			return t, nil, "", &invalid{col: ColTurn, problem: "the turn has no role and no gold or predicted side to infer it from", fix: fixRole}
		}
		t.Role = r
	} else {
		r, err := metrics.ParseRole(rec.role.v)
		if err != nil {
			return t, nil, "", &invalid{col: ColTurn, problem: "unknown role " + strconv.Quote(rec.role.v), fix: fixRole}
		}
		t.Role = r
	}
	if bad := sides(rec, &t); bad != nil {
		return t, nil, "", bad
	}
	if bad := details(rec, &t); bad != nil {
		return t, nil, "", bad
	}
	return t, trial, rec.tools.v, nil
}

// inferRole is the role of a turn that gives none (a null turn column, a
// JSON turn without "turn"): Tool when a side is a call or gold says no
// call is expected, else Agent when a side is present.
func inferRole(rec *record) (metrics.Role, bool) {
	g, p := rec.gold, rec.predict
	switch {
	case g.hasCall() || p.hasCall() || rec.goldNoCall.ok && rec.goldNoCall.v:
		return metrics.RoleTool, true
	case g.response.ok || p.response.ok:
		return metrics.RoleAgent, true
	}
	return "", false
}

// sides validates the gold and predicted sides against the role and sets
// them on t.
func sides(rec *record, t *metrics.Turn) *invalid {
	g, p := rec.gold, rec.predict
	noCall := rec.goldNoCall.ok && rec.goldNoCall.v
	if g.response.ok && g.hasCall() {
		return &invalid{col: ColGoldResponse, problem: "the gold side has both a response and a tool call", fix: fixSplitSides}
	}
	if noCall {
		switch {
		case t.Role != metrics.RoleTool:
			return &invalid{col: ColGoldNoCall, problem: fmt.Sprintf("gold_no_call is true on %s turn", aRole(t.Role)), fix: "set gold_no_call only on Tool turns"}
		case g.hasCall() || g.response.ok:
			return &invalid{col: ColGoldNoCall, problem: "gold_no_call is true but the gold side has a call or a response",
				fix: "leave the gold side empty (null) when no call is expected"}
		}
	}
	if t.Role == metrics.RoleTool {
		if g.response.ok {
			return &invalid{col: ColGoldResponse, problem: "a Tool turn has a gold response",
				fix: "give a Tool turn's gold a call (tool_id, action, args), or make the turn an Agent turn for a reply"}
		}
		t.HasGold, t.GoldNoCall = g.hasCall() || noCall, noCall
		if g.hasCall() {
			c, err := call(g)
			if err != nil {
				return &invalid{col: ColGoldArgs, problem: "bad args", fix: fixGoldArgs, err: err}
			}
			if err := metrics.ValidateGoldArgs(c.Args); err != nil {
				return &invalid{col: ColGoldArgs, problem: "bad alternatives spec", fix: fixAltSpec, err: err}
			}
			t.Gold = c
		}
		if p.hasCall() {
			c, err := call(p)
			if err != nil { // the agent's malformed output: judged unparseable_arguments
				c.UnparsedArgs = p.args.v
			}
			t.HasPredict, t.Predict = true, c
		}
		if !t.HasGold && !t.HasPredict {
			fix := "give the gold call (tool_id, action, args), the predicted one, or both"
			if g.response.ok || p.response.ok {
				fix = "the turn has a response but its role is Tool: make it an Agent turn for a reply"
			}
			return &invalid{col: ColTurn, problem: "a Tool turn has neither a gold nor a predicted call", fix: fix}
		}
		return nil
	}
	if g.hasCall() {
		return &invalid{col: ColGoldToolID, problem: fmt.Sprintf("%s turn has a gold tool call", aRole(t.Role)), fix: "make the turn a Tool turn for a tool call"}
	}
	t.HasGold, t.GoldResponse = g.response.ok, g.response.v
	t.HasPredict, t.PredictResponse = p.response.ok, p.response.v
	if !t.HasGold && !t.HasPredict {
		return &invalid{col: ColGoldResponse, problem: fmt.Sprintf("%s turn has neither a gold nor a predicted response", aRole(t.Role)),
			fix: "give the expected reply (gold), the actual one (predicted), or both; for a tool call make the turn a Tool turn"}
	}
	return nil
}

// call decodes a side's call: named by metrics.Named's rule, args from
// their JSON text (empty text: no arguments). On an error the call keeps
// its name.
func call(s side) (metrics.Call, error) {
	var c metrics.Call
	c.ToolID, c.Action = metrics.Named(s.toolID.v, s.action.v)
	args, err := DecodeArgs(s.args.v)
	c.Args = args
	return c, err
}

// details validates and sets the turn's optional values.
func details(rec *record, t *metrics.Turn) *invalid {
	if len(rec.tags) > 0 {
		t.Tags = rec.tags
	}
	if rec.dependsOn.ok {
		t.DependsOn = make([]int, len(rec.dependsOn.v))
		for i, n := range rec.dependsOn.v {
			if n < 1 || n > math.MaxInt32 {
				return &invalid{col: ColDependsOn, problem: fmt.Sprintf("depends_on has %d, not a turn number", n), fix: "list turn numbers (>= 1) of earlier turns"}
			}
			t.DependsOn[i] = int(n)
		}
	}
	if rec.humanLabel.ok {
		b := rec.humanLabel.v
		t.HumanLabel = &b
	}
	t.Critical = rec.critical.v
	var bad *invalid
	if t.HumanScore, bad = within(ColHumanScore, rec.humanScore, math.Inf(-1), math.Inf(1), "use a finite number, or null"); bad != nil {
		return bad
	}
	if t.Weight, bad = within(ColWeight, rec.weight, 0, math.Inf(1), "use a finite weight >= 0, or null for 1"); bad != nil {
		return bad
	}
	t.LatencyMS, bad = within(ColLatencyMS, rec.latencyMS, 0, MaxLatencyMS, latencyFix)
	if bad != nil {
		return bad
	}
	return userTurn(rec, t)
}

// userTurn reads user_turn (metrics.Turn.UserTurn): the turn_no of the
// User turn the row answers, 0 for none; null to take the last User turn
// before the row.
func userTurn(rec *record, t *metrics.Turn) *invalid {
	switch n := rec.userTurn.v; {
	case !rec.userTurn.ok:
	case n < 0 || n > math.MaxInt32:
		return &invalid{col: ColUserTurn, problem: fmt.Sprintf("user_turn %d is not a turn number", n),
			fix: "give the turn_no of the User turn the row answers, 0 for none, or null for the last User turn before it"}
	case n == 0:
		t.UserTurn = -1
	default:
		t.UserTurn = int(n)
	}
	return nil
}

// within checks an optional number of column col: finite, from lo to hi.
// Nil when unset.
func within(col string, v opt[float64], lo, hi float64, fix string) (*float64, *invalid) {
	if !v.ok {
		return nil, nil
	}
	if x := v.v; math.IsNaN(x) || math.IsInf(x, 0) || x < lo || x > hi {
		return nil, &invalid{col: col, problem: fmt.Sprintf("%s is %v", col, x), fix: fix}
	}
	return &v.v, nil
}

// aRole is the role with its article: "an Agent", "a Tool".
func aRole(r metrics.Role) string {
	if r == metrics.RoleAgent {
		return "an " + string(r)
	}
	return "a " + string(r)
}
