package metrics

import (
	"slices"
	"testing"

	"github.com/aem-dev/aem/tooldef"
)

// TestCallNames pins the naming rule: a function name alone is tool_id =
// the name, action = "call"; the tool.action convention keeps both.
func TestCallNames(t *testing.T) {
	tests := []struct {
		tool, action      string
		wantTool, wantAct string
		base, name        string
		definitions       []string
	}{
		{"", "get_weather", "get_weather", "call", "get_weather.call", "get_weather", []string{"get_weather"}},
		{"get_weather", "", "get_weather", "call", "get_weather.call", "get_weather", []string{"get_weather"}},
		{"get_weather", "call", "get_weather", "call", "get_weather.call", "get_weather", []string{"get_weather"}},
		{"", "math.factorial", "math.factorial", "call", "math.factorial.call", "math.factorial", []string{"math.factorial"}},
		{"sales_db", "aggregate", "sales_db", "aggregate", "sales_db.aggregate", "sales_db.aggregate", []string{"sales_db.aggregate", "aggregate"}},
		{"", "", "", "", ".", "", nil},
	}
	for _, tt := range tests {
		gotTool, gotAct := Named(tt.tool, tt.action)
		if gotTool != tt.wantTool || gotAct != tt.wantAct {
			t.Errorf("Named(%q, %q) = %q, %q, want %q, %q", tt.tool, tt.action, gotTool, gotAct, tt.wantTool, tt.wantAct)
		}
		c := Call{ToolID: tt.tool, Action: tt.action}
		if got := c.FieldBase(); got != tt.base {
			t.Errorf("%+v.FieldBase() = %q, want %q", c, got, tt.base)
		}
		if got := c.FunctionName(); got != tt.name {
			t.Errorf("%+v.FunctionName() = %q, want %q", c, got, tt.name)
		}
		if got := c.DefinitionNames(); !slices.Equal(got, tt.definitions) {
			t.Errorf("%+v.DefinitionNames() = %q, want %q", c, got, tt.definitions)
		}
	}
	if c := FunctionCall("f", nil); c.ToolID != "f" || c.Action != CallAction || !c.Plain() {
		t.Errorf("FunctionCall = %+v", c)
	}
}

// TestCallNamesDecidedAlike: a call written the old way (action alone) is
// decided exactly as the same call under the rule.
func TestCallNamesDecidedAlike(t *testing.T) {
	args := map[string]any{"city": "Paris"}
	old := Call{Action: "get_weather", Args: args}
	for _, set := range []*tooldef.Set{nil, mustTools(t, testTools)} {
		v, err := decideAction(t, set, old, &Call{ToolID: "get_weather", Action: CallAction, Args: args}, false)
		if err != nil {
			t.Fatal(err)
		}
		if !v.Pass || len(v.FieldScores) != 1 || v.FieldScores[0].Field != "get_weather.call.city" {
			t.Errorf("tools %v: pass %v fields %+v, want a pass on get_weather.call.city", set != nil, v.Pass, v.FieldScores)
		}
	}
}

func TestUpgradeFieldPath(t *testing.T) {
	old := func(name string) Call { return Call{Action: name} }
	tests := []struct {
		path   string
		stored Call
		want   string
	}{
		{".get_weather.city", old("get_weather"), "get_weather.call.city"},
		{".get_weather", old("get_weather"), "get_weather.call"},
		{".hotel.book.note", old("hotel.book"), "hotel.book.call.note"},
		{".get_weather.tags[0]", old("get_weather"), "get_weather.call.tags[0]"},
		{"get_weather..city", Call{ToolID: "get_weather"}, "get_weather.call.city"},
		{".get_weatherx.city", old("get_weather"), ".get_weatherx.city"},
		{"web_search", old("get_weather"), "web_search"},
		{"response", Call{}, "response"},
		{"get_weather.call.city", FunctionCall("get_weather", nil), "get_weather.call.city"},
		{"sales_db.aggregate.metric", Call{ToolID: "sales_db", Action: "aggregate"}, "sales_db.aggregate.metric"},
	}
	for _, tt := range tests {
		if got := UpgradeFieldPath(tt.path, tt.stored); got != tt.want {
			t.Errorf("UpgradeFieldPath(%q, %+v) = %q, want %q", tt.path, tt.stored, got, tt.want)
		}
	}
}
