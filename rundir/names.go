package rundir

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// Runs written before the naming rule (metrics.Named) stored a plain
// function call as tool_id "" and action = the function name, and its
// field paths as ".name.param". Their rows convert on read, value by
// value, to what the current aem writes (tool_id = the name, action
// "call", paths "name.call.param"), so that sweep, compare and reports see
// one naming whatever the run's age. A current row is never touched: the
// rule never writes an empty tool_id beside an action, nor a path with a
// leading ".".

// namesPlan finds, by parquet tag, the columns of a row type that the
// conversion rewrites. Each is a field index of the struct, -1 when the
// type does not read that column.
type namesPlan struct {
	goldTool, goldAction, predTool, predAction int
	fieldScores, field                         int // field_scores, and field inside its element
}

// planNames builds the plan for T; ok is false when T reads nothing the
// conversion rewrites. A type must read a side's tool_id and action
// together, and gold's when it reads field paths (they say how an old path
// splits): an error says so otherwise.
func planNames(t reflect.Type) (plan namesPlan, ok bool, err error) {
	if t.Kind() != reflect.Struct {
		return namesPlan{}, false, nil
	}
	plan = namesPlan{-1, -1, -1, -1, -1, -1}
	for i := range t.NumField() {
		f := t.Field(i)
		switch tagName(f) {
		case "gold_tool_id":
			plan.goldTool = stringField(f, i)
		case "gold_action":
			plan.goldAction = stringField(f, i)
		case "predict_tool_id":
			plan.predTool = stringField(f, i)
		case "predict_action":
			plan.predAction = stringField(f, i)
		case "field_scores":
			if f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Struct {
				continue
			}
			for j := range f.Type.Elem().NumField() {
				if e := f.Type.Elem().Field(j); tagName(e) == "field" && e.Type.Kind() == reflect.String {
					plan.fieldScores, plan.field = i, j
				}
			}
		}
	}
	if (plan.goldTool < 0) != (plan.goldAction < 0) || (plan.predTool < 0) != (plan.predAction < 0) {
		return namesPlan{}, false, fmt.Errorf("reading %s: row type %s reads one of a side's tool_id and action without the other, which older runs need to convert", TurnsFile, t)
	}
	if plan.fieldScores >= 0 && plan.goldAction < 0 {
		return namesPlan{}, false, fmt.Errorf("reading %s: row type %s reads field_scores without gold_tool_id and gold_action, which older runs need to convert their field paths", TurnsFile, t)
	}
	ok = plan.goldAction >= 0 || plan.predAction >= 0
	return plan, ok, nil
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
	return name
}

// stringField is i when f is a string or *string, else -1.
func stringField(f reflect.StructField, i int) int {
	if f.Type.Kind() == reflect.String || f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.String {
		return i
	}
	return -1
}

// upgrade converts one row (v is the addressable struct) in place.
func (p namesPlan) upgrade(v reflect.Value) {
	if stored, ok := upgradeCall(v, p.goldTool, p.goldAction); ok && p.fieldScores >= 0 {
		scores := v.Field(p.fieldScores)
		for i := range scores.Len() {
			f := scores.Index(i).Field(p.field)
			f.SetString(metrics.UpgradeFieldPath(f.String(), stored))
		}
	}
	upgradeCall(v, p.predTool, p.predAction)
}

// upgradeCall applies metrics.Named to one side's tool_id and action when
// they are in the old form (one of them empty); it returns them as they
// were stored then.
func upgradeCall(v reflect.Value, toolField, actionField int) (stored metrics.Call, upgraded bool) {
	if toolField < 0 {
		return metrics.Call{}, false
	}
	tool, hasTool := getString(v.Field(toolField))
	action, hasAction := getString(v.Field(actionField))
	if !hasTool && !hasAction {
		return metrics.Call{}, false
	}
	newTool, newAction := metrics.Named(tool, action)
	if newTool == tool && newAction == action {
		return metrics.Call{}, false
	}
	setString(v.Field(toolField), newTool)
	setString(v.Field(actionField), newAction)
	return metrics.Call{ToolID: tool, Action: action}, true
}

func getString(f reflect.Value) (string, bool) {
	if f.Kind() == reflect.Pointer {
		if f.IsNil() {
			return "", false
		}
		return f.Elem().String(), true
	}
	return f.String(), true
}

func setString(f reflect.Value, s string) {
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.ValueOf(&s))
		return
	}
	f.SetString(s)
}
