package predictions

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Format names a predictions format.
type Format string

// Predictions formats (the values of --predictions-format).
const (
	FormatAuto    Format = ""        // detect from the content
	FormatChat    Format = "chat"    // JSON Lines of chat-completions conversations
	FormatOTLP    Format = "otlp"    // OTLP JSON traces (GenAI and/or OpenInference spans)
	FormatPhoenix Format = "phoenix" // Phoenix span JSON Lines (OpenInference attributes)
)

// ParseFormat checks a --predictions-format value ("auto" is FormatAuto;
// "openinference" names OTLP JSON too: the span attributes decide).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FormatAuto, nil
	case "chat", "chat-log", "openai":
		return FormatChat, nil
	case "otlp", "otel", "openinference":
		return FormatOTLP, nil
	case "phoenix":
		return FormatPhoenix, nil
	}
	return "", fmt.Errorf("--predictions-format %q: use auto, chat, otlp (GenAI or OpenInference spans) or phoenix", s)
}

// StepKind says what a predicted step is.
type StepKind string

// Step kinds.
const (
	StepCall  StepKind = "call"  // a tool (function) call
	StepReply StepKind = "reply" // an assistant message to the user
	// StepUser is a message of the user's: not the agent's doing, but it
	// bounds the alignment (a gold call is matched only by a call made
	// after the same user message and before the next one).
	StepUser StepKind = "user"
)

// Step is one thing the agent did, a tool call or a reply, or a message of
// the user's, in the order they happened.
type Step struct {
	Kind StepKind `json:"kind"`
	// Name is the called function's name as the agent gave it (calls only).
	Name string `json:"name,omitempty"`
	// Args is the arguments as JSON text: the agent's text as given, or the
	// compact encoding when the source held an object. It may be anything
	// the agent wrote, valid JSON or not (see ArgsError).
	Args string `json:"args,omitempty"`
	// ArgsError is set when Args is not one JSON object: the agent's
	// malformed output, which is scored (as a call without arguments), never
	// an input error.
	ArgsError string `json:"args_error,omitempty"`
	// CallID is the tool call's id when the source gives one.
	CallID string `json:"call_id,omitempty"`
	// Result is the tool's result text when the source gives one.
	Result string `json:"result,omitempty"`
	// Text is the reply (replies) or what the user said (user steps).
	Text string `json:"text,omitempty"`
	// Source says where the step was read.
	Source Source `json:"source"`
}

// Source locates a predicted step in its input, so a verdict can be sent
// back to the span or message it judges.
type Source struct {
	File         string `json:"file,omitempty"`
	Line         int    `json:"line,omitempty"` // 1-based line of a JSON Lines record; 0 when unknown
	TraceID      string `json:"trace_id,omitempty"`
	SpanID       string `json:"span_id,omitempty"`
	MessageIndex int    `json:"message_index"` // index in the chat log's messages, or in the span's output messages; -1 when none
}

// Conversation is one run of an agent on one task: the predicted steps of
// one conversation id (and trial).
type Conversation struct {
	ID string `json:"id"`
	// Trial numbers repeated runs of the same conversation id (the chat
	// log's "trial", the span attribute aem.trial); nil when not given.
	Trial *int64 `json:"trial,omitempty"`
	Steps []Step `json:"steps"`
	// Source is where the conversation starts (its line, or its first trace).
	Source Source `json:"source"`
}

// checkArgs validates a call's arguments text: one JSON object. It returns
// the reason when it is not (the agent's malformed output, kept as data).
func checkArgs(text string) string {
	t := strings.TrimSpace(text)
	if t == "" {
		return ""
	}
	dec := json.NewDecoder(strings.NewReader(t))
	var v any
	if err := dec.Decode(&v); err != nil {
		return "arguments are not JSON: " + err.Error()
	}
	if dec.More() {
		return "arguments hold more than one JSON value"
	}
	if _, ok := v.(map[string]any); !ok {
		return "arguments are JSON but not an object"
	}
	return ""
}

// argsText turns an arguments value (JSON text, or an object given
// directly) into the text kept in Step.Args.
func argsText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.RawMessage:
		var s string
		if json.Unmarshal(x, &s) == nil {
			return s
		}
		return compact(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
