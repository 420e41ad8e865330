package metrics

import "strings"

// The naming rule for tool calls, in one place. A call names a tool and an
// action on it (tool_id "sales_db", action "aggregate": the tool.action
// convention). A plain function call, which has only a function name
// ("get_weather", "math.factorial"), is tool_id = the name and action =
// CallAction. So every call has both parts, and every field path is
// tool_id.action.param ("get_weather.call.city",
// "sales_db.aggregate.metric"), which a thresholds file's "fields" can
// name.
//
// The golden readers, the BFCL converter and the predictions join build
// calls with FunctionCall or Named; the metric and the tool-definition
// lookup read them with FieldBase, FunctionName and DefinitionNames; run
// directories written before the rule convert with UpgradeFieldPath.

// CallAction is the action of a plain function call.
const CallAction = "call"

// FunctionCall is the call of the plain function name with args.
func FunctionCall(name string, args map[string]any) Call {
	return Call{ToolID: name, Action: CallAction, Args: args}
}

// Named applies the naming rule to a call read from a dataset: when only
// one of toolID and action is given, that is a function name (tool_id =
// the name, action = "call"); otherwise both are kept as they are.
func Named(toolID, action string) (string, string) {
	switch {
	case toolID == "" && action != "":
		return action, CallAction
	case action == "" && toolID != "":
		return toolID, CallAction
	}
	return toolID, action
}

// Plain reports whether c is a plain function call (action "call").
func (c Call) Plain() bool { return c.Action == CallAction }

// FieldBase is the prefix of the field paths of c's arguments:
// "tool_id.action" ("get_weather.call" for a plain function).
func (c Call) FieldBase() string {
	t, a := Named(c.ToolID, c.Action)
	return t + "." + a
}

// FunctionName is the name c is called by: the function name of a plain
// call ("get_weather"), "tool_id.action" otherwise ("sales_db.aggregate").
func (c Call) FunctionName() string {
	t, a := Named(c.ToolID, c.Action)
	if a == CallAction || t == "" {
		return t
	}
	return t + "." + a
}

// DefinitionNames are the tool definition names that may describe c, in
// the order to look them up: a plain call's function name; for the
// tool.action convention "tool_id.action", then the action alone.
func (c Call) DefinitionNames() []string {
	t, a := Named(c.ToolID, c.Action)
	switch {
	case t == "" && a == "":
		return nil
	case a == CallAction:
		return []string{t}
	case t == "":
		return []string{a}
	}
	return []string{t + "." + a, a}
}

// UpgradeFieldPath converts a field path written before the naming rule
// into the current form. stored is the call's tool_id and action as they
// were stored then: a plain function call had only one of them (tool_id
// "" and action "get_weather"), so its paths started ".get_weather.city";
// now they start with its FieldBase ("get_weather.call.city"). Paths of a
// call that already follows the rule, and paths outside the call's
// arguments, are returned as they are.
func UpgradeFieldPath(path string, stored Call) string {
	if t, a := Named(stored.ToolID, stored.Action); t == stored.ToolID && a == stored.Action {
		return path
	}
	rest, ok := strings.CutPrefix(path, stored.ToolID+"."+stored.Action)
	if !ok || (rest != "" && rest[0] != '.' && rest[0] != '[') {
		return path
	}
	return stored.FieldBase() + rest
}
