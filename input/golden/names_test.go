package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/metrics"
)

// TestCallNamesJSON: every way a JSON side names a call reads by
// metrics.Named's rule, so the same function is the same call however it
// is written.
func TestCallNamesJSON(t *testing.T) {
	tests := []struct {
		side string
		want metrics.Call
	}{
		{`{"name": "get_weather", "args": {}}`, metrics.FunctionCall("get_weather", map[string]any{})},
		{`{"action": "get_weather", "args": {}}`, metrics.FunctionCall("get_weather", map[string]any{})},
		{`{"tool_id": "get_weather"}`, metrics.FunctionCall("get_weather", map[string]any{})},
		{`{"tool_id": "get_weather", "action": "call"}`, metrics.FunctionCall("get_weather", map[string]any{})},
		{`{"action": "hotel.book", "args": {}}`, metrics.FunctionCall("hotel.book", map[string]any{})},
		{`{"tool_id": "sales_db", "action": "aggregate", "args": {}}`, metrics.Call{ToolID: "sales_db", Action: "aggregate", Args: map[string]any{}}},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "d.json")
		text := `[{"turn_no": 1, "turn": "Tool", "gold_turn": ` + tt.side + `, "predict_turn": ` + tt.side + `}]`
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _ := readAll(t, path, ReadOptions{})
		turn := got[0].Turns[0]
		if diff := cmp.Diff(tt.want, turn.Gold); diff != "" {
			t.Errorf("%s: gold (-want +got):\n%s", tt.side, diff)
		}
		if diff := cmp.Diff(tt.want, turn.Predict); diff != "" {
			t.Errorf("%s: predicted (-want +got):\n%s", tt.side, diff)
		}
	}
}
