package predictions

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/internal/otlpjson"
)

// span is the part of a span that predictions use, whatever file it came
// from (OTLP JSON or Phoenix's span export). Attributes are plain values
// keyed by their flat, dotted names.
type span struct {
	file       string
	line       int
	trace, id  string
	name       string
	start, end uint64
	attrs      map[string]any
	events     []spanEvent
}

type spanEvent struct {
	name  string
	time  uint64
	attrs map[string]any
}

// fromOTLP copies what predictions use out of a decoded OTLP span.
func fromOTLP(file string, sp *otlpjson.Span) span {
	s := span{file: file, trace: string(sp.TraceID), id: string(sp.SpanID), name: sp.Name,
		start: uint64(sp.StartTimeUnixNano), end: uint64(sp.EndTimeUnixNano), attrs: sp.Attributes.Map()}
	for _, e := range sp.Events {
		s.events = append(s.events, spanEvent{name: e.Name, time: uint64(e.TimeUnixNano), attrs: e.Attributes.Map()})
	}
	return s
}

// fragment is one step (or, with an empty step, only the conversation id
// or trial) taken from one span, before the spans of a conversation are
// put together.
type fragment struct {
	Conv     string `json:"c,omitempty"` // conversation id the span names (gen_ai.conversation.id, session.id)
	Trial    int    `json:"t,omitempty"`
	HasTrial bool   `json:"ht,omitempty"`
	// Level ranks where the step came from: levelExec (a tool execution
	// span), levelModel (a model call's output), levelAgent (an agent
	// invocation's output, which repeats its model calls' outputs).
	Level int    `json:"l"`
	Time  uint64 `json:"tm"`
	Seq   int    `json:"sq"`
	Step  *Step  `json:"s,omitempty"`
	// Users are the user's messages in a model call's input, in order
	// (the conversation so far): resolve turns the ones no earlier call
	// had into user steps.
	Users []string `json:"u,omitempty"`
}

const (
	levelExec = iota
	levelModel
	levelAgent
)

// fragments interprets one span: OpenInference spans by
// openinference.span.kind, the others by the GenAI semantic conventions.
func fragments(s *span) []fragment {
	var out []fragment
	if _, ok := s.attrs["openinference.span.kind"]; ok {
		out = openInferenceFragments(s)
	} else {
		out = genAIFragments(s)
	}
	if users := userMessages(s); len(users) > 0 {
		out = append(out, fragment{Level: levelModel, Time: s.start, Seq: -1, Users: users})
	}
	conv := firstString(s.attrs, "gen_ai.conversation.id", "session.id")
	trial, hasTrial := intAttr(s.attrs["aem.trial"])
	if len(out) == 0 && (conv != "" || hasTrial) {
		out = []fragment{{}}
	}
	for i := range out {
		out[i].Conv, out[i].Trial, out[i].HasTrial = conv, trial, hasTrial
	}
	return out
}

// call builds a call step from a span.
func (s *span) call(name string, args any, id, result string, msg int) *Step {
	text := argsText(args)
	return &Step{Kind: StepCall, Name: name, Args: text, ArgsError: checkArgs(text), CallID: id, Result: result, Source: s.source(msg)}
}

func (s *span) reply(text string, msg int) *Step {
	return &Step{Kind: StepReply, Text: text, Source: s.source(msg)}
}

func (s *span) source(msg int) Source {
	return Source{File: s.file, Line: s.line, TraceID: s.trace, SpanID: s.id, MessageIndex: msg}
}

// message is an output message in any of the shapes spans carry.
type message struct {
	texts []string
	calls []toolCall
}

type toolCall struct {
	id, name string
	args     any
}

// steps turns output messages into fragments: each message's calls, or its
// reply when it makes none.
func (s *span) steps(msgs []message, level int, time uint64) []fragment {
	var out []fragment
	for i, m := range msgs {
		if len(m.calls) > 0 {
			for _, c := range m.calls {
				out = append(out, fragment{Level: level, Time: time, Seq: len(out), Step: s.call(c.name, c.args, c.id, "", i)})
			}
			continue
		}
		if len(m.texts) > 0 {
			out = append(out, fragment{Level: level, Time: time, Seq: len(out), Step: s.reply(strings.Join(m.texts, "\n"), i)})
		}
	}
	return out
}

// str returns v as a string: strings as they are, numbers and booleans
// formatted, nil as "".
func str(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func firstString(attrs map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(attrs[k]); s != "" {
			return s
		}
	}
	return ""
}

func firstValue(attrs map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := attrs[k]; ok && v != nil {
			return v
		}
	}
	return nil
}

func intAttr(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), x >= 0
	case float64:
		return int(x), x >= 0 && x == float64(int(x))
	case string:
		n, err := strconv.Atoi(x)
		return n, err == nil && n >= 0
	}
	return 0, false
}

// structured returns v decoded when it is JSON text of an array or object
// (GenAI message attributes are JSON strings where the SDK has no
// structured attributes), v itself otherwise.
func structured(v any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	t := strings.TrimSpace(s)
	if t == "" || t[0] != '[' && t[0] != '{' {
		return v
	}
	var out any
	if json.Unmarshal([]byte(t), &out) != nil {
		return v
	}
	return out
}
