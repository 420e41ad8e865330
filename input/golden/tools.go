package golden

import (
	"fmt"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/trials"
	"github.com/aem-dev/aem/tooldef"
)

// toolSource gives each dialog its tool definitions: the JSON text its rows
// carry (the `tools` column, or a dialog object's "tools" key), parsed
// once per distinct text, else the default set (--tools).
type toolSource struct {
	def   *tooldef.Set
	cache map[string]*tooldef.Set
}

// maxToolTexts bounds the parsed definitions kept: datasets usually offer
// a few tool sets, so the cache is nearly always hit; a dataset with a
// distinct set per dialog parses each once.
const maxToolTexts = 256

func newToolSource(def *tooldef.Set) *toolSource {
	return &toolSource{def: def, cache: map[string]*tooldef.Set{}}
}

func (ts *toolSource) parse(text string) (*tooldef.Set, error) {
	if s, ok := ts.cache[text]; ok {
		return s, nil
	}
	s, err := tooldef.Parse(ColTools, []byte(text))
	if err != nil {
		return nil, err
	}
	if len(ts.cache) >= maxToolTexts {
		clear(ts.cache)
	}
	ts.cache[text] = s
	return s, nil
}

// toolText returns the tool definitions' text the rows of dialog id carry
// (which must agree; "" when none does) and the first row carrying it.
func toolText(file, id string, recs []turnRec) (string, turnRec, error) {
	var at *turnRec
	for i := range recs {
		rec := &recs[i]
		switch {
		case rec.tools == "":
		case at == nil:
			at = rec
		case rec.tools != at.tools:
			return "", turnRec{}, rec.err(file, ColTools, fmt.Sprintf("dialog %q offers other tool definitions here than at %s", id, at.where()),
				"give the dialog's tools on its first row only, or the same text on every row", nil)
		}
	}
	if at == nil {
		return "", turnRec{}, nil
	}
	return at.tools, *at, nil
}

// resolve sets d.Tools from text, the dialog's definitions carried by the
// row at (toolText), or else the default, then checks every gold call of
// d (whose rows are recs) against them, listing what breaks them in
// d.Conflicts.
func (ts *toolSource) resolve(file string, d *Dialog, recs []turnRec, text string, at turnRec) error {
	d.Tools = ts.def
	if text != "" {
		set, err := ts.parse(text)
		if err != nil {
			const problem, fix = "bad tool definitions", `give a JSON array of {"name", "description", "parameters"} definitions`
			if at.jsonPath != "" { // the dialog object's "tools" key
				return rowError(file, badinput.NoRow, at.line, "tools", problem, fix, err)
			}
			return at.err(file, ColTools, problem, fix, err)
		}
		d.Tools = set
	}
	if d.Tools == nil {
		return nil
	}
	for i, t := range d.Turns {
		if t.Role != metrics.RoleTool || !t.HasGold || t.GoldNoCall {
			continue
		}
		for _, c := range metrics.GoldConflicts(d.Tools, t.Gold) {
			d.Conflicts = append(d.Conflicts, conflictAt(file, &recs[i], d.ID, t.TurnNo, c))
		}
	}
	return nil
}

// Conflict is a gold call that breaks its tool definition (a
// metrics.Conflict), where the input holds it. It is a finding, not an
// error: the reader reports it on the dialog (Dialog.Conflicts) and goes
// on.
type Conflict struct {
	metrics.Conflict
	File string
	// Row and Line locate the turn as a RowError does (Row NoRow for a
	// turn of a JSON dialog object, Line 0 for Parquet).
	Row  int64
	Line int
	// At is the field as the input spells it: gold_args.unit (Parquet),
	// gold_turn.args.unit, turns[2].gold_turn.args.unit (JSON); the action
	// field for a tool not offered.
	At       string
	DialogID string
	Trial    *int64 // set by the reader for a dialog with a trial
	TurnNo   int
}

// Error formats the conflict like a bad-input message: "FILE: row R, field
// F: dialog "d" turn 3: the gold call X breaks its tool definition:
// DETAIL (rule R)". A conflict is not an error unless --strict-gold makes
// it one.
func (c Conflict) Error() string {
	e := badinput.RowError{File: c.File, Row: c.Row, Line: c.Line, Field: c.At,
		Problem: fmt.Sprintf("dialog %q%s turn %d: the gold call %s breaks its tool definition: %s (rule %s)",
			c.DialogID, trials.Note(c.Trial), c.TurnNo, c.Tool, c.Detail, c.Rule)}
	return e.Error()
}

// conflictAt locates conflict c of the gold call on rec's turn.
func conflictAt(file string, rec *turnRec, id string, turnNo int, c metrics.Conflict) Conflict {
	out := Conflict{Conflict: c, File: file, Row: rec.row, Line: rec.line, At: goldField(*rec, c), DialogID: id, TurnNo: turnNo}
	if rec.jsonPath != "" {
		out.Row, out.At = badinput.NoRow, rec.jsonPath+"."+out.At
	}
	return out
}

// goldField names the gold call's field a conflict is about, as the
// input spells it: gold_args.unit (Parquet), gold_turn.args.unit (JSON).
func goldField(rec turnRec, c metrics.Conflict) string {
	args, action := ColGoldArgs, ColGoldAction
	if rec.jsonPath != "" {
		args, action = "gold_turn.args", "gold_turn.action"
	}
	switch {
	case c.Rule == metrics.RuleOffered:
		return action
	case c.Field == "":
		return args
	}
	return args + "." + c.Field
}
