package predictions

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// scripted drives a tracer like an instrumented agent would, with a fake
// clock so span times (and so step order) are fixed. It records each
// span's ids under its name, for checking sources.
type scripted struct {
	tr   trace.Tracer
	now  time.Time
	span map[string]string
	tid  map[string]string
}

func (s *scripted) tick() trace.SpanEventOption {
	s.now = s.now.Add(time.Millisecond)
	return trace.WithTimestamp(s.now)
}

// run runs body inside a span and records its ids under key.
func (s *scripted) run(ctx context.Context, key, name string, attrs []attribute.KeyValue, body func(ctx context.Context, sp trace.Span)) {
	ctx, sp := s.tr.Start(ctx, name, trace.WithAttributes(attrs...), s.tick())
	if body != nil {
		body(ctx, sp)
	}
	s.span[key] = sp.SpanContext().SpanID().String()
	s.tid[key] = sp.SpanContext().TraceID().String()
	sp.End(s.tick())
}

func kv(k, v string) attribute.KeyValue { return attribute.String(k, v) }

// weatherAgent is the scripted agent: four conversations covering the
// current GenAI conventions, a conversation over two traces, parallel
// calls, malformed arguments, a trace without a conversation id, the older
// attribute names with gen_ai.choice events, and trials.
func (s *scripted) weatherAgent(ctx context.Context) {
	conv := kv("gen_ai.conversation.id", "weather-1")
	// Conversation weather-1: model asks for a tool, the tool runs, model replies.
	s.run(ctx, "w1.agent", "invoke_agent weather", []attribute.KeyValue{kv("gen_ai.operation.name", "invoke_agent"), conv,
		kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It is 18°C in Paris."}]}]`)},
		func(ctx context.Context, _ trace.Span) {
			s.run(ctx, "w1.chat1", "chat gpt-4o", []attribute.KeyValue{kv("gen_ai.operation.name", "chat"),
				kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"Let me check."},{"type":"tool_call","id":"call_1","name":"get_weather","arguments":{"city":"Paris"}}],"finish_reason":"tool_call"}]`)}, nil)
			s.run(ctx, "w1.tool", "execute_tool get_weather", []attribute.KeyValue{kv("gen_ai.operation.name", "execute_tool"),
				kv("gen_ai.tool.name", "get_weather"), kv("gen_ai.tool.call.id", "call_1"), kv("gen_ai.tool.call.result", `{"temp_c":18}`)}, nil)
			s.run(ctx, "w1.chat2", "chat gpt-4o", []attribute.KeyValue{kv("gen_ai.operation.name", "chat"),
				kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"It is 18°C in Paris."}],"finish_reason":"stop"}]`)}, nil)
		})
	// Conversation trip-2, first trace: two parallel calls, then a reply.
	trip := kv("gen_ai.conversation.id", "trip-2")
	s.run(ctx, "t1.agent", "invoke_agent travel", []attribute.KeyValue{kv("gen_ai.operation.name", "invoke_agent"), trip}, func(ctx context.Context, _ trace.Span) {
		s.run(ctx, "t1.chat", "chat", []attribute.KeyValue{kv("gen_ai.operation.name", "chat")}, func(_ context.Context, sp trace.Span) {
			sp.SetAttributes(attribute.String("gen_ai.output.messages", `[{"role":"assistant","parts":[`+
				`{"type":"tool_call","id":"a","name":"search_flights","arguments":"{\"to\": \"Rome\"}"},`+
				`{"type":"tool_call","id":"b","name":"search_hotels","arguments":"{\"city\": \"Rome\"}"}]}]`))
		})
		s.run(ctx, "t1.hotels", "execute_tool search_hotels", []attribute.KeyValue{kv("gen_ai.operation.name", "execute_tool"),
			kv("gen_ai.tool.name", "search_hotels"), kv("gen_ai.tool.call.id", "b"), kv("gen_ai.tool.call.arguments", `{"city": "Rome"}`)}, nil)
		s.run(ctx, "t1.flights", "execute_tool search_flights", []attribute.KeyValue{kv("gen_ai.operation.name", "execute_tool"),
			kv("gen_ai.tool.name", "search_flights"), kv("gen_ai.tool.call.id", "a")}, nil)
		s.run(ctx, "t1.reply", "chat", []attribute.KeyValue{kv("gen_ai.operation.name", "chat"),
			kv("gen_ai.output.messages", `[{"role":"assistant","parts":[{"type":"text","content":"Found flights and hotels."}]}]`)}, nil)
	})
	// trip-2, second trace (a later user turn): a call with broken arguments.
	s.run(ctx, "t2.agent", "invoke_agent travel", []attribute.KeyValue{kv("gen_ai.operation.name", "invoke_agent"), trip}, func(ctx context.Context, _ trace.Span) {
		s.run(ctx, "t2.book", "execute_tool book_flight", []attribute.KeyValue{kv("gen_ai.operation.name", "execute_tool"),
			kv("gen_ai.tool.name", "book_flight"), kv("gen_ai.tool.call.arguments", `{"flight": "AZ 123"`)}, nil)
	})
	// No conversation id: named by its trace id; older attribute names.
	s.run(ctx, "old.root", "agent run", nil, func(ctx context.Context, _ trace.Span) {
		s.run(ctx, "old.chat", "openai.chat", []attribute.KeyValue{kv("gen_ai.system", "openai")}, func(_ context.Context, sp trace.Span) {
			sp.AddEvent("gen_ai.choice", trace.WithAttributes(kv("message",
				`{"role":"assistant","tool_calls":[{"id":"x1","type":"function","function":{"name":"lookup","arguments":"{\"q\": \"aem\"}"}}]}`)), s.tick())
		})
		s.run(ctx, "old.tool", "execute_tool lookup", []attribute.KeyValue{kv("gen_ai.tool.name", "lookup"),
			kv("gen_ai.tool.call.id", "x1"), kv("gen_ai.tool.input", `{"q": "aem"}`), kv("gen_ai.tool.output", "found")}, nil)
		s.run(ctx, "old.chat2", "openai.chat", []attribute.KeyValue{kv("gen_ai.system", "openai")}, func(_ context.Context, sp trace.Span) {
			sp.AddEvent("gen_ai.choice", trace.WithAttributes(kv("message", `{"role":"assistant","content":"aem is a metric."}`)), s.tick())
		})
	})
	// Two trials of the same task.
	for trial := int64(1); trial <= 2; trial++ {
		s.run(ctx, "retry.agent", "invoke_agent", []attribute.KeyValue{kv("gen_ai.operation.name", "invoke_agent"),
			kv("gen_ai.conversation.id", "retry-3"), attribute.Int64("aem.trial", trial)}, func(ctx context.Context, _ trace.Span) {
			s.run(ctx, "retry.tool", "execute_tool ping", []attribute.KeyValue{kv("gen_ai.operation.name", "execute_tool"),
				kv("gen_ai.tool.name", "ping"), kv("gen_ai.tool.call.arguments", `{}`)}, nil)
		})
	}
}

func TestGenAISpansFromTheSDK(t *testing.T) {
	s := &scripted{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), span: map[string]string{}, tid: map[string]string{}}
	path := exportWithSDK(t, func(ctx context.Context, tr trace.Tracer) {
		s.tr = tr
		s.weatherAgent(ctx)
	})
	if f, err := Detect(path); err != nil || f != FormatOTLP {
		t.Fatalf("Detect = %q, %v", f, err)
	}
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src := func(key string, msg int) Source {
		return Source{File: path, TraceID: s.tid[key], SpanID: s.span[key], MessageIndex: msg}
	}
	call := func(name, args, id, result, key string) Step {
		return Step{Kind: StepCall, Name: name, Args: args, CallID: id, Result: result, Source: src(key, -1)}
	}
	reply := func(text, key string) Step { return Step{Kind: StepReply, Text: text, Source: src(key, 0)} }
	tests := []struct {
		id    string
		trial *int64
		want  []Step
	}{
		{"weather-1", nil, []Step{
			call("get_weather", `{"city":"Paris"}`, "call_1", `{"temp_c":18}`, "w1.tool"),
			reply("It is 18°C in Paris.", "w1.chat2"),
		}},
		{"trip-2", nil, []Step{
			call("search_hotels", `{"city": "Rome"}`, "b", "", "t1.hotels"),
			call("search_flights", `{"to": "Rome"}`, "a", "", "t1.flights"),
			reply("Found flights and hotels.", "t1.reply"),
			{Kind: StepCall, Name: "book_flight", Args: `{"flight": "AZ 123"`, ArgsError: "arguments are not JSON: unexpected EOF", Source: src("t2.book", -1)},
		}},
		{s.tid["old.root"], nil, []Step{
			call("lookup", `{"q": "aem"}`, "x1", "found", "old.tool"),
			reply("aem is a metric.", "old.chat2"),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			got, err := st.Lookup(tt.id)
			if err != nil || len(got) != 1 {
				t.Fatalf("Lookup(%q) = %d conversations, %v", tt.id, len(got), err)
			}
			if d := cmp.Diff(tt.trial, got[0].Trial); d != "" {
				t.Errorf("trial (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.want, got[0].Steps); d != "" {
				t.Errorf("steps (-want +got):\n%s", d)
			}
		})
	}
	trials, err := st.Lookup("retry-3")
	if err != nil || len(trials) != 2 || *trials[0].Trial != 1 || *trials[1].Trial != 2 || len(trials[1].Steps) != 1 {
		t.Errorf("retry-3 trials = %+v, %v", trials, err)
	}
	stats := st.Stats()
	if stats.Conversations != 5 || stats.MalformedArgs != 1 || stats.Records != 19 || stats.Used != 18 {
		t.Errorf("stats = %+v", stats)
	}
}

// TestUserMessagesFromSpans: the user's messages are read from the input of
// model calls (GenAI's gen_ai.input.messages, older gen_ai.user.message
// events, OpenInference's llm.input_messages): each message once, at the
// first call whose input holds it, so a call's user turn is known.
func TestUserMessagesFromSpans(t *testing.T) {
	s := &scripted{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), span: map[string]string{}, tid: map[string]string{}}
	path := exportWithSDK(t, func(ctx context.Context, tr trace.Tracer) {
		s.tr = tr
		conv := kv("gen_ai.conversation.id", "multi")
		chat := func(key, input, output string) {
			s.run(ctx, key, "chat", []attribute.KeyValue{kv("gen_ai.operation.name", "chat"), conv,
				kv("gen_ai.input.messages", input), kv("gen_ai.output.messages", output)}, nil)
		}
		u1 := `{"role":"user","parts":[{"type":"text","content":"Book a flight to Rome."}]}`
		a1 := `{"role":"assistant","parts":[{"type":"tool_call","id":"a","name":"book_flight","arguments":{"to":"Rome"}}]}`
		u2 := `{"role":"user","parts":[{"type":"text","content":"And a hotel."}]}`
		chat("c1", `[{"role":"system","parts":[{"type":"text","content":"Be brief."}]},`+u1+`]`, `[`+a1+`]`)
		chat("c2", `[`+u1+`,`+a1+`,{"role":"tool","parts":[]}]`, `[{"role":"assistant","parts":[{"type":"text","content":"Booked."}]}]`)
		chat("c3", `[`+u1+`,`+a1+`,`+u2+`]`, `[{"role":"assistant","parts":[{"type":"tool_call","id":"b","name":"book_hotel","arguments":{"city":"Rome"}}]}]`)
		// Older spans: the prompt's messages as events.
		s.run(ctx, "old", "openai.chat", []attribute.KeyValue{kv("gen_ai.system", "openai"), kv("gen_ai.conversation.id", "legacy")},
			func(_ context.Context, sp trace.Span) {
				sp.AddEvent("gen_ai.user.message", trace.WithAttributes(kv("content", "Hi there")), s.tick())
				sp.AddEvent("gen_ai.choice", trace.WithAttributes(kv("message", `{"role":"assistant","content":"Hello."}`)), s.tick())
			})
		// OpenInference LLM spans.
		s.run(ctx, "oi", "llm", []attribute.KeyValue{kv("openinference.span.kind", "LLM"), kv("session.id", "oi"),
			kv("llm.input_messages.0.message.role", "user"), kv("llm.input_messages.0.message.content", "What is up?"),
			kv("llm.output_messages.0.message.role", "assistant"), kv("llm.output_messages.0.message.content", "Not much.")}, nil)
	})
	st, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	kinds := func(id string) string {
		cs, err := st.Lookup(id)
		if err != nil || len(cs) != 1 {
			t.Fatalf("Lookup(%q) = %v, %v", id, cs, err)
		}
		var out []string
		for _, step := range cs[0].Steps {
			out = append(out, string(step.Kind)+":"+step.Name+step.Text)
		}
		return fmt.Sprint(out)
	}
	for id, want := range map[string]string{
		"multi":  "[user:Book a flight to Rome. call:book_flight reply:Booked. user:And a hotel. call:book_hotel]",
		"legacy": "[user:Hi there reply:Hello.]",
		"oi":     "[user:What is up? reply:Not much.]",
	} {
		if got := kinds(id); got != want {
			t.Errorf("%s: steps %s, want %s", id, got, want)
		}
	}
	if s := st.Stats(); s.Steps != 5 {
		t.Errorf("steps %d: the user's messages are not the agent's steps", s.Steps)
	}
}
