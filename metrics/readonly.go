package metrics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aem-dev/aem/tooldef"
)

// ReadOnlyCall reports whether the call c changes nothing: its tool
// definition says so (MCP's annotations.readOnlyHint, tooldef.Tool.ReadOnly)
// or names lists it, by its function name (FunctionName), its tool id or
// the name of the definition it finds. Read-only calls are context, on
// either side: listed with their alignment, never missing_turn or
// unexpected_turn, never scored (Config.ReadOnlyTools).
func ReadOnlyCall(tools *tooldef.Set, names []string, c Call) bool {
	if c.ToolID == "" && c.Action == "" {
		return false
	}
	def := tools.Resolve(c.DefinitionNames()...)
	if def != nil && def.ReadOnly {
		return true
	}
	if len(names) == 0 {
		return false
	}
	t, _ := Named(c.ToolID, c.Action)
	return slices.Contains(names, c.FunctionName()) || slices.Contains(names, t) || def != nil && slices.Contains(names, def.Name)
}

// validateReadOnlyTools checks Config.ReadOnlyTools.
func validateReadOnlyTools(names []string) error {
	for i, n := range names {
		if strings.TrimSpace(n) == "" || n != strings.TrimSpace(n) {
			return fmt.Errorf("read-only tool %d (%q): give function names without spaces, e.g. get_user,search_flights", i+1, n)
		}
	}
	return nil
}

// contextRow reports whether r is a read-only call kept as context: a Tool
// row one of whose sides is a read-only call and whose other side is
// absent or gold's "no call". A row that pairs a read-only call with a
// state-changing one is decided as any row.
func (j *decider) contextRow(r *Turn) bool {
	if r.Role != RoleTool {
		return false
	}
	goldCall := r.HasGold && !r.GoldNoCall
	goldRO := goldCall && j.readOnly(r.Gold)
	predRO := r.HasPredict && j.readOnly(r.Predict)
	return (goldRO || predRO) && (!goldCall || goldRO) && (!r.HasPredict || predRO)
}

func (j *decider) readOnly(c Call) bool { return ReadOnlyCall(j.tools, j.cfg.ReadOnlyTools, c) }

// context is the verdict of a context row: not scored (kind context, every
// sub-metric n/a, no failure), its alignment kept (PredictTurnNo).
func (j *decider) context(r *Turn) Verdict {
	p := 0
	if r.HasPredict {
		p = r.TurnNo
	}
	v := j.newVerdict(r, p)
	v.Kind, v.ReadOnly, v.Pass = KindContext, true, true
	return v
}
