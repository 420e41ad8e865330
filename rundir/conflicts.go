package rundir

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/aem-dev/aem/input/golden"
	"github.com/aem-dev/aem/internal/badinput"
)

// GoldConflicts is summary.json's gold_conflicts: the gold calls that break
// their tool definitions (golden.Conflict), all of them, for the gold wins
// for those fields and the run goes on (aem run --strict-gold refuses them
// instead). A merged run lists its shards' together; a resumed run lists
// the same as an uninterrupted one.
type GoldConflicts struct {
	Count int `json:"count"`
	// ByRule counts them by rule: required, unknown, type, enum, offered.
	ByRule map[string]int `json:"by_rule"`
	// Dialogs counts the dialogs (with their trials) that have any.
	Dialogs int            `json:"dialogs"`
	List    []GoldConflict `json:"list"`
}

// GoldConflict is one conflict: where the input holds it, the rule, the
// value and what the definition wanted.
type GoldConflict struct {
	File string `json:"file"`
	// Row is the 0-based record (Parquet row, element of a JSON array of
	// turns); null for a turn of a JSON dialog object, which Line
	// locates. Line is null for Parquet.
	Row  *int64 `json:"row"`
	Line *int   `json:"line"`
	// Field is the field as the input spells it: gold_args.unit,
	// turns[2].gold_turn.args.unit; the action for a tool not offered.
	Field    string `json:"field"`
	DialogID string `json:"dialog_id"`
	Trial    *int64 `json:"trial"`
	TurnNo   int    `json:"turn_no"`
	// Tool is the gold call's name and Param the path inside its
	// arguments ("unit", "table[1][0]"; empty for a tool not offered).
	Tool  string `json:"tool"`
	Param string `json:"param"`
	Rule  string `json:"rule"`
	// Value is the gold value there as JSON (null for a parameter left
	// out and a tool not offered); Want what the definition wanted.
	Value  json.RawMessage `json:"value"`
	Want   string          `json:"want"`
	Detail string          `json:"detail"`
	// Message is the conflict as aem reports it on stderr.
	Message string `json:"message"`
}

// NewGoldConflicts turns a run's conflicts into summary.json's account,
// sorted (see sortConflicts); nil when there are none.
func NewGoldConflicts(cs []golden.Conflict) (*GoldConflicts, error) {
	list := make([]GoldConflict, len(cs))
	for i, c := range cs {
		value, err := json.Marshal(c.Value)
		if err != nil {
			return nil, fmt.Errorf("recording the gold conflict %s: %w", c.Error(), err)
		}
		g := GoldConflict{File: c.File, Field: c.At, DialogID: c.DialogID, Trial: c.Trial, TurnNo: c.TurnNo, Tool: c.Tool, Param: c.Field,
			Rule: string(c.Rule), Value: value, Want: c.Want, Detail: c.Detail, Message: c.Error()}
		if c.Row != badinput.NoRow {
			g.Row = &c.Row
		}
		if c.Line > 0 {
			g.Line = &c.Line
		}
		list[i] = g
	}
	return gatherConflicts(list), nil
}

// gatherConflicts sorts list and counts it; nil when it is empty.
func gatherConflicts(list []GoldConflict) *GoldConflicts {
	if len(list) == 0 {
		return nil
	}
	sortConflicts(list)
	out := &GoldConflicts{Count: len(list), ByRule: map[string]int{}, List: list}
	dialogs := map[dialogKey]bool{}
	for _, c := range list {
		out.ByRule[c.Rule]++
		dialogs[keyOf(c.DialogID, c.Trial)] = true
	}
	out.Dialogs = len(dialogs)
	return out
}

// mergeConflicts combines the shards' accounts: the one a single run
// gives.
func mergeConflicts(parts ...*GoldConflicts) *GoldConflicts {
	var list []GoldConflict
	for _, p := range parts {
		if p != nil {
			list = append(list, p.List...)
		}
	}
	return gatherConflicts(list)
}

// sortConflicts orders conflicts by where the input holds them (file, row,
// line), then dialog, trial, turn, parameter and rule: an order that does
// not depend on how a run was split or resumed.
func sortConflicts(list []GoldConflict) {
	slices.SortStableFunc(list, func(a, b GoldConflict) int {
		return cmp.Or(cmp.Compare(a.File, b.File), comparePtr(a.Row, b.Row), comparePtr(a.Line, b.Line),
			cmp.Compare(a.DialogID, b.DialogID), comparePtr(a.Trial, b.Trial), cmp.Compare(a.TurnNo, b.TurnNo),
			cmp.Compare(a.Param, b.Param), cmp.Compare(a.Rule, b.Rule), slices.Compare(a.Value, b.Value))
	})
}

// comparePtr orders nil first.
func comparePtr[T cmp.Ordered](a, b *T) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	return cmp.Compare(*a, *b)
}
