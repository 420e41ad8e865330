package predictions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/internal/otlpjson"
	"github.com/google/go-cmp/cmp"
)

func open(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	st, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func lookup(t *testing.T, st *Store, id string) []Conversation {
	t.Helper()
	cs, err := st.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestChatLog(t *testing.T) {
	path := filepath.Join("testdata", "chat.jsonl")
	st := open(t, path, Options{})
	src := func(line, msg int) Source { return Source{File: path, Line: line, MessageIndex: msg} }
	tests := []struct {
		id   string
		want []Conversation
	}{
		{"sales-report-q3", []Conversation{{ID: "sales-report-q3", Source: src(1, -1), Steps: []Step{
			{Kind: StepUser, Text: "How did Q3 go?", Source: src(1, 1)},
			{Kind: StepCall, Name: "sales_db.aggregate", Args: `{"metric": "revenue", "quarter": "Q3"}`, CallID: "call_1", Result: `{"revenue": 1.12}`, Source: src(1, 2)},
			{Kind: StepReply, Text: "Revenue rose 12% in Q3.", Source: src(1, 4)},
		}}}},
		{"refund-7", []Conversation{
			{ID: "refund-7", Trial: i64(1), Source: src(2, -1), Steps: []Step{
				{Kind: StepUser, Text: "Refund order 7", Source: src(2, 0)},
				{Kind: StepCall, Name: "refund", Args: `{"order":7}`, CallID: "c1", Source: src(2, 1)}, // an object, leniently
				{Kind: StepReply, Text: "Order 7 is refunded.", Source: src(2, 2)},
			}},
			{ID: "refund-7", Trial: i64(2), Source: src(3, -1), Steps: []Step{
				{Kind: StepUser, Text: "Refund order 7", Source: src(3, 0)},
				{Kind: StepCall, Name: "refund", Args: "{order: 7}", CallID: "c1", Result: "error: bad arguments", Source: src(3, 1),
					ArgsError: "arguments are not JSON: invalid character 'o' looking for beginning of object key string"},
			}},
		}},
		{"42", []Conversation{{ID: "42", Source: src(5, -1), Steps: []Step{
			{Kind: StepCall, Name: "legacy_call", Args: "{}", Source: src(5, 0)},
		}}}},
		{"nobody", nil},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			if d := cmp.Diff(tt.want, lookup(t, st, tt.id)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	var unused []string
	if err := st.Each(func(c Conversation, used bool) error {
		if !used {
			unused = append(unused, c.ID)
		}
		return nil
	}); err != nil || len(unused) != 0 {
		t.Errorf("unused after looking all up = %v, %v", unused, err)
	}
	if s := st.Stats(); s.Records != 4 || s.Conversations != 4 || s.Steps != 6 || s.MalformedArgs != 1 || s.Format != FormatChat {
		t.Errorf("stats = %+v", s)
	}
}

func TestPhoenixExport(t *testing.T) {
	path := filepath.Join("testdata", "phoenix.jsonl")
	st := open(t, path, Options{})
	trace := "6d1b4a5f3c2e4f0a9b8c7d6e5f4a3b2c"
	want := []Conversation{{ID: "trip-9", Source: Source{File: path, Line: 2, TraceID: trace, MessageIndex: -1}, Steps: []Step{
		{Kind: StepCall, Name: "search_flights", Args: `{"to": "Rome"}`, CallID: "call_a", Result: "3 flights",
			Source: Source{File: path, Line: 2, TraceID: trace, SpanID: "2a2b3c4d5e6f7082", MessageIndex: -1}},
		{Kind: StepReply, Text: "There are 3 flights to Rome.", Source: Source{File: path, Line: 3, TraceID: trace, SpanID: "3a2b3c4d5e6f7083", MessageIndex: 0}},
	}}}
	if d := cmp.Diff(want, lookup(t, st, "trip-9")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestOpenInferenceOTLP(t *testing.T) {
	path := filepath.Join("testdata", "openinference.otlp.json")
	st := open(t, path, Options{})
	trace := "0af7651916cd43dd8448eb211c80319c"
	src := func(span string, msg int) Source {
		return Source{File: path, TraceID: trace, SpanID: span, MessageIndex: msg}
	}
	want := []Conversation{{ID: "ticket-5", Source: Source{File: path, TraceID: trace, MessageIndex: -1}, Steps: []Step{
		{Kind: StepCall, Name: "think", Args: "{}", CallID: "t2", Source: src("b7ad6b7169203331", 0)}, // requested, never executed
		{Kind: StepCall, Name: "lookup_order", Args: `{"order_id": 5}`, CallID: "t1", Result: "shipped", Source: src("c7ad6b7169203332", -1)},
		{Kind: StepReply, Text: "Your order has shipped.", Source: src("d7ad6b7169203333", 0)}, // base64 ids, same trace
	}}}
	if d := cmp.Diff(want, lookup(t, st, "ticket-5")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestSpill forces the external sorts onto disk with a tiny memory bound
// and checks the result is the one an in-memory sort gives.
func TestSpill(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"resourceSpans":[{"scopeSpans":[{"spans":[`)
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		// 30 conversations, 10 calls each, interleaved across the file.
		b.WriteString(`{"traceId":"` + hex32(i%30) + `","spanId":"` + hex16(i) + `","name":"execute_tool t","startTimeUnixNano":"` +
			itoa(1000+i) + `","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},` +
			`{"key":"gen_ai.tool.name","value":{"stringValue":"step` + itoa(i/30) + `"}}]}`)
	}
	b.WriteString(`]}]}]}`)
	path := filepath.Join(dir, "t.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	small := open(t, path, Options{SortMemory: 1024, TempDir: dir})
	big := open(t, path, Options{TempDir: dir})
	for c := range 30 {
		got, want := lookup(t, small, hex32(c)), lookup(t, big, hex32(c))
		if d := cmp.Diff(want, got); d != "" || len(got) != 1 || len(got[0].Steps) != 10 || got[0].Steps[9].Name != "step9" {
			t.Fatalf("conversation %d spilled differs (-mem +spilled):\n%s", c, d)
		}
	}
	small.Close()
	big.Close()
	left, _ := filepath.Glob(filepath.Join(dir, "aem-predictions-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func hex32(i int) string { return fmt.Sprintf("%032x", i) }
func hex16(i int) string { return fmt.Sprintf("%016x", i) }
func itoa(i int) string  { return strconv.Itoa(i) }

func TestBadInput(t *testing.T) {
	tests := []struct {
		name, file, content string
		format              Format
		kind                error    // the Kind the error wraps
		want                []string // substrings of the message
	}{
		{"chat not json", "c.jsonl", "{\"conversation_id\": \"a\", \"messages\": []}\nnot json\n", FormatAuto, ErrInvalidRecord, []string{"c.jsonl: row 1, line 2: not a JSON object"}},
		{"chat no id", "c.jsonl", `{"messages": []}`, FormatAuto, ErrInvalidRecord, []string{"line 1, field conversation_id: missing", "fix:"}},
		{"chat truncated", "c.jsonl", "{\"conversation_id\": \"a\", \"messages\": []}\n{\"conversation_id\": \"b\", \"messages\": [{\"role\": \"assi", FormatAuto, ErrInvalidRecord,
			[]string{"row 1, line 2", "truncated"}},
		{"chat role", "c.jsonl", `{"conversation_id": "a", "messages": [{"role": "robot"}]}`, FormatAuto, ErrInvalidRecord, []string{"field messages[0].role: unknown role \"robot\""}},
		{"chat duplicate", "c.jsonl", "{\"conversation_id\": \"a\", \"messages\": []}\n\n{\"conversation_id\": \"a\", \"messages\": []}\n", FormatAuto, ErrInvalidRecord,
			[]string{"line 3", `conversation "a" appears twice (also at`, "line 1", "trial"}},
		{"chat trial twice", "c.jsonl", "{\"conversation_id\": \"a\", \"trial\": 0, \"messages\": []}\n{\"conversation_id\": \"a\", \"trial\": 0, \"messages\": []}\n", FormatAuto, ErrInvalidRecord,
			[]string{"line 2", `conversation "a" trial 0 appears twice (also at`, "line 1"}},
		{"chat trial and none", "c.jsonl", "{\"conversation_id\": \"a\", \"trial\": 0, \"messages\": []}\n{\"conversation_id\": \"a\", \"messages\": []}\n", FormatAuto, ErrInvalidRecord,
			[]string{"line 1", `field trial: conversation "a" has trial 0 here and a run without a trial at`, "line 2", "number every run"}},
		{"chat trial", "c.jsonl", `{"conversation_id": "a", "trial": -1, "messages": []}`, FormatAuto, ErrInvalidRecord, []string{"field trial"}},
		{"chat messages type", "c.jsonl", `{"conversation_id": "a", "messages": {}}`, FormatAuto, ErrInvalidRecord, []string{"field messages"}},
		{"chat content", "c.jsonl", `{"conversation_id": "a", "messages": [{"role": "assistant", "content": 5}]}`, FormatAuto, ErrInvalidRecord, []string{"messages[0].content"}},
		{"otlp truncated", "t.json", `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b71`, FormatAuto, otlpjson.ErrTruncated,
			[]string{"t.json: line 1, field resourceSpans[0].scopeSpans[0].spans[0]", "truncated"}},
		{"otlp bad id", "t.json", "{\"resourceSpans\": [{\"scopeSpans\": [{\"spans\": [\n{\"traceId\": \"xyz\"}]}]}]}", FormatAuto, otlpjson.ErrInvalid,
			[]string{"line 2", "spans[0]", `id "xyz"`}},
		{"otlp forced on chat", "c.jsonl", `{"conversation_id": "a", "messages": []}`, FormatOTLP, otlpjson.ErrInvalid, []string{"document 1 has no resourceSpans"}},
		{"phoenix time", "p.jsonl", `{"context": {"trace_id": "0af7651916cd43dd8448eb211c80319c", "span_id": "b7ad6b7169203331"}, "start_time": "yesterday"}`, FormatAuto, ErrInvalidRecord,
			[]string{"row 0, line 1, field start_time"}},
		{"phoenix no trace", "p.jsonl", `{"context": {}, "span_kind": "LLM"}`, FormatAuto, ErrInvalidRecord, []string{"field context.trace_id"}},
		{"unknown", "x.json", `{"foo": 1}`, FormatAuto, ErrFormat, []string{"no key says which format", "--predictions-format"}},
		{"not json", "x.json", `hello`, FormatAuto, ErrFormat, []string{"x.json: line 1: not JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := Open(context.Background(), path, Options{Format: tt.format})
			if err == nil {
				st.Close()
				t.Fatal("no error")
			}
			if !errors.Is(err, badinput.ErrInvalid) || !errors.Is(err, tt.kind) {
				t.Errorf("error does not wrap badinput.ErrInvalid and %v: %v", tt.kind, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A trace whose spans are split over two files (rotation) is one conversation.
	span := func(id, tool string, start int) string {
		return `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"` + id +
			`","startTimeUnixNano":"` + itoa(start) + `","attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"execute_tool"}},` +
			`{"key":"gen_ai.tool.name","value":{"stringValue":"` + tool + `"}}]}]}]}]}` + "\n"
	}
	write("b.jsonl", span("b7ad6b7169203331", "second", 2))
	write("a.jsonl", span("c7ad6b7169203332", "first", 1))
	write(".hidden", "junk")
	write("c.empty", "")
	st := open(t, dir, Options{})
	cs := lookup(t, st, "0af7651916cd43dd8448eb211c80319c")
	if len(cs) != 1 || len(cs[0].Steps) != 2 || cs[0].Steps[0].Name != "first" || st.Stats().Files != 2 {
		t.Fatalf("got %+v, stats %+v", cs, st.Stats())
	}
	write("c.jsonl", `{"conversation_id": "a", "messages": []}`)
	if _, err := Open(context.Background(), dir, Options{}); err == nil || !strings.Contains(err.Error(), "keep chat logs and span files in separate directories") {
		t.Errorf("mixed directory: %v", err)
	}
}

// TestAgentOutputAlone: an invoke_agent span's output is the reply when its
// trace has no model-call outputs; a Strands-style gen_ai.choice event with
// content blocks gives calls.
func TestAgentOutputAlone(t *testing.T) {
	doc := `{"resourceSpans":[{"scopeSpans":[{"spans":[
{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331","name":"invoke_agent","startTimeUnixNano":"1","endTimeUnixNano":"9",
 "attributes":[{"key":"gen_ai.operation.name","value":{"stringValue":"invoke_agent"}},{"key":"gen_ai.conversation.id","value":{"stringValue":"s1"}},
 {"key":"gen_ai.output.messages","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"role","value":{"stringValue":"assistant"}},
 {"key":"parts","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[{"key":"type","value":{"stringValue":"text"}},{"key":"content","value":{"stringValue":"Done."}}]}}]}}}]}}]}}}]},
{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"c7ad6b7169203332","name":"chat","startTimeUnixNano":"2","endTimeUnixNano":"3",
 "attributes":[{"key":"gen_ai.system","value":{"stringValue":"aws.bedrock"}}],
 "events":[{"name":"gen_ai.choice","timeUnixNano":"3","attributes":[{"key":"message","value":{"stringValue":"[{\"text\": \"Looking.\"}, {\"toolUse\": {\"toolUseId\": \"t1\", \"name\": \"search\", \"input\": {\"q\": \"x\"}}}]"}}]}]}
]}]}]}`
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	st := open(t, path, Options{})
	cs := lookup(t, st, "s1")
	if len(cs) != 1 {
		t.Fatalf("%d conversations", len(cs))
	}
	var got []string
	for _, s := range cs[0].Steps {
		got = append(got, string(s.Kind)+":"+s.Name+s.Args+s.Text)
	}
	// The chat span is a model call, so the agent's repeated output is dropped.
	if d := cmp.Diff([]string{`call:search{"q":"x"}`}, got); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
	// Without the model span, the agent's output is the reply.
	alone := doc[:strings.Index(doc, ",\n{\"traceId\":\"0af7651916cd43dd8448eb211c80319c\",\"spanId\":\"c7ad")] + "]}]}]}"
	if err := os.WriteFile(path, []byte(alone), 0o644); err != nil {
		t.Fatal(err)
	}
	cs = lookup(t, open(t, path, Options{}), "s1")
	if len(cs) != 1 || len(cs[0].Steps) != 1 || cs[0].Steps[0].Text != "Done." {
		t.Errorf("agent output alone: %+v", cs)
	}
}

func i64(n int64) *int64 { return &n }
