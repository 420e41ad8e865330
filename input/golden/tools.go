package golden

import (
	"errors"
	"fmt"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
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
// d (whose rows are recs) against them.
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
		err := metrics.ValidateGoldCall(d.Tools, t.Gold)
		var se *metrics.SchemaError
		if errors.As(err, &se) {
			field := goldField(recs[i], se)
			return recs[i].err(file, field,
				fmt.Sprintf("dialog %q turn %d: the gold call %s breaks its tool definition: %s (rule %s)", d.ID, t.TurnNo, se.Tool, se.Detail, se.Rule),
				"fix the gold call or the tool definition", nil)
		}
	}
	return nil
}

// goldField names the gold call's field a SchemaError is about, as the
// input spells it: gold_args.unit (Parquet), gold_turn.args.unit (JSON).
func goldField(rec turnRec, se *metrics.SchemaError) string {
	args, action := ColGoldArgs, ColGoldAction
	if rec.jsonPath != "" {
		args, action = "gold_turn.args", "gold_turn.action"
	}
	switch {
	case se.Rule == metrics.RuleOffered:
		return action
	case se.Field == "":
		return args
	}
	return args + "." + se.Field
}
