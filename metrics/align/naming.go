package align

import (
	"fmt"
	"sort"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// separators join a tool_id and an action in a function name, longest first.
var separators = []string{"__", ".", "/", ":", "_", "-"}

// Naming maps predicted function names to tool_id and action (see the
// package documentation for the rules).
type Naming struct {
	// Map gives explicit mappings: function name -> (tool_id, action).
	Map map[string][2]string
}

// ParseNaming parses "name=tool.action,name2=tool2" (an absent action is
// metrics.CallAction; the tool is everything before the last ".").
func ParseNaming(s string) (Naming, error) {
	n := Naming{Map: map[string][2]string{}}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, target, ok := strings.Cut(item, "=")
		if !ok || name == "" || target == "" {
			return Naming{}, fmt.Errorf("tool mapping %q: write function=tool_id.action (or function=tool_id)", item)
		}
		if _, dup := n.Map[name]; dup {
			return Naming{}, fmt.Errorf("tool mapping: function %q mapped twice", name)
		}
		tool, action := target, metrics.CallAction
		if i := strings.LastIndex(target, "."); i > 0 && i < len(target)-1 {
			tool, action = target[:i], target[i+1:]
		}
		n.Map[name] = [2]string{tool, action}
	}
	return n, nil
}

// Resolve maps a function name to tool_id and action given the gold calls
// of the dialog. Without a mapping or a gold call in the tool.action
// convention that claims it, it is the naming rule's plain function call
// (metrics.FunctionCall).
func (n Naming) Resolve(name string, gold []metrics.Call) (toolID, action string) {
	if m, ok := n.Map[name]; ok {
		return m[0], m[1]
	}
	plain := metrics.FunctionCall(name, nil)
	for _, g := range gold {
		if g.Plain() && g.ToolID == name {
			return plain.ToolID, plain.Action
		}
		for _, sep := range separators {
			if name == g.ToolID+sep+g.Action {
				return g.ToolID, g.Action
			}
		}
	}
	tools := toolsWithActions(gold)
	for _, t := range tools {
		for _, sep := range separators {
			if rest, ok := strings.CutPrefix(name, t+sep); ok && rest != "" {
				return t, rest
			}
		}
	}
	return plain.ToolID, plain.Action
}

// toolsWithActions lists the gold tool ids that use actions other than
// "call", longest first (so the most specific prefix wins).
func toolsWithActions(gold []metrics.Call) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gold {
		if !g.Plain() && g.ToolID != "" && !seen[g.ToolID] {
			seen[g.ToolID] = true
			out = append(out, g.ToolID)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	return out
}
