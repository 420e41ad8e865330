package evalevents

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

// judged scores a small dialog with the lexical scorer: turn 1 passes,
// turn 2 calls the wrong tool, turn 3 is missing, turn 4 replies off topic.
func judged(t *testing.T) metrics.DialogResult {
	t.Helper()
	call := func(tool string, args map[string]any) metrics.Call {
		return metrics.Call{ToolID: tool, Action: "call", Args: args}
	}
	d := metrics.Dialog{ID: "trip-2", Turns: []metrics.Turn{
		{TurnNo: 1, Role: metrics.RoleTool, HasGold: true, HasPredict: true, Gold: call("search", map[string]any{"q": "rome"}), Predict: call("search", map[string]any{"q": "rome"})},
		{TurnNo: 2, Role: metrics.RoleTool, HasGold: true, HasPredict: true, Gold: call("book", map[string]any{}), Predict: call("cancel", map[string]any{})},
		{TurnNo: 3, Role: metrics.RoleTool, HasGold: true, Gold: call("pay", map[string]any{})},
		{TurnNo: 4, Role: metrics.RoleAgent, HasGold: true, HasPredict: true, GoldResponse: "Your trip to Rome is booked.", PredictResponse: "Bananas are yellow."},
	}}
	res, err := metrics.Evaluate(context.Background(), metrics.Lexical{}, metrics.DefaultConfig(), []metrics.Dialog{d})
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

func TestRoundTrip(t *testing.T) {
	res := judged(t)
	spans := map[int]Source{1: {"0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"}, 2: {"0af7651916cd43dd8448eb211c80319c", "c7ad6b7169203332"},
		4: {"0af7651916cd43dd8448eb211c80319c", "d7ad6b7169203333"}}
	conv := Source{TraceID: "0af7651916cd43dd8448eb211c80319c"}
	events := FromDialog(res, i64(3), conv, func(n int) (Source, bool) { s, ok := spans[n]; return s, ok })
	want := []Result{
		{Name: NameCorrectness, Score: 0.25, Label: "fail", Explanation: res.Reason, DialogID: "trip-2", Trial: i64(3), Reason: "tool_mismatch", TraceID: conv.TraceID},
		{Name: NameStructure, Label: "fail", Explanation: "tool_mismatch", DialogID: "trip-2", TurnNo: 2, Trial: i64(3), Reason: "tool_mismatch",
			TraceID: conv.TraceID, SpanID: "c7ad6b7169203332"},
		{Name: NameCorrectness, Label: "fail", Explanation: "missing_turn", DialogID: "trip-2", TurnNo: 3, Trial: i64(3), Reason: "missing_turn", TraceID: conv.TraceID},
	}
	if len(events) != 4 {
		t.Fatalf("%d events, want 4: %+v", len(events), events)
	}
	reply := events[3]
	if reply.Name != NameTruthfulness && reply.Name != NameCompleteness || reply.SpanID != "d7ad6b7169203333" || reply.TurnNo != 4 ||
		!strings.Contains(reply.Explanation, "scored") || reply.Field == "" {
		t.Errorf("reply event = %+v", reply)
	}
	if d := cmp.Diff(want, events[:3]); d != "" {
		t.Errorf("events (-want +got):\n%s", d)
	}

	// Write, then read back: the same events.
	var buf bytes.Buffer
	w := NewWriter(&buf, "aem", "test", time.Unix(1700000000, 0))
	for range 300 { // over one batch: several documents
		for _, e := range events {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back, err := Read(context.Background(), "events.json", bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 1200 {
		t.Fatalf("read %d events, want 1200", len(back))
	}
	if d := cmp.Diff(events, back[:4]); d != "" {
		t.Errorf("read back (-wrote +read):\n%s", d)
	}

	// Every line is an ExportLogsServiceRequest as the OTLP protobuf
	// definitions see it (protojson refuses unknown or misspelt fields).
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Errorf("%d documents, want 3 (512 records each)", len(lines))
	}
	total := 0
	for i, line := range lines {
		var req collogspb.ExportLogsServiceRequest
		if err := protojson.Unmarshal([]byte(line), &req); err != nil {
			t.Fatalf("document %d is not OTLP JSON logs: %v", i+1, err)
		}
		for _, rl := range req.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					total++
					if lr.EventName != EventName || lr.TimeUnixNano != 1700000000e9 || lr.ObservedTimeUnixNano != 0 || lr.SeverityNumber != 9 {
						t.Fatalf("record %+v", lr)
					}
				}
			}
		}
	}
	if total != 1200 {
		t.Errorf("protojson saw %d records", total)
	}
}

func TestReadErrors(t *testing.T) {
	_, err := Read(context.Background(), "e.json", strings.NewReader(`{"resourceLogs": [{"scopeLogs": [`))
	if err == nil || !strings.Contains(err.Error(), "e.json") || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("err = %v", err)
	}
}

func i64(n int64) *int64 { return &n }
