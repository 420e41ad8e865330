package predictions

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// chatLine is one line of a chat log: a conversation in OpenAI
// chat-completions form.
type chatLine struct {
	ConversationID json.RawMessage `json:"conversation_id"`
	Messages       []chatMessage   `json:"messages"`
	Trial          *json.Number    `json:"trial"`
}

type chatMessage struct {
	Role         string          `json:"role"`
	Content      json.RawMessage `json:"content"`
	ToolCalls    []chatToolCall  `json:"tool_calls"`
	FunctionCall *chatFunction   `json:"function_call"` // the legacy single-call form
	ToolCallID   string          `json:"tool_call_id"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// readChat reads a chat log (JSON Lines, one conversation per line) and
// calls fn for each conversation in file order.
func readChat(ctx context.Context, name string, r io.Reader, fn func(Conversation) error) error {
	return eachLine(ctx, name, r, func(row int64, line int, text []byte) error {
		c, err := parseChatLine(name, row, line, text)
		if err != nil {
			return err
		}
		return fn(c)
	})
}

// eachLine calls fn for every non-blank line of a JSON Lines file with its
// 0-based record index and 1-based line number.
func eachLine(ctx context.Context, name string, r io.Reader, fn func(row int64, line int, text []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	var row int64
	for line := 1; ; line++ {
		text, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return fmt.Errorf("reading %s: %w", name, rerr)
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(row, line, t); err != nil {
				return err
			}
			row++
		}
		if rerr == io.EOF {
			return nil
		}
	}
}

// parseChatLine decodes one non-blank line.
func parseChatLine(name string, row int64, line int, text []byte) (Conversation, error) {
	fail := func(field, problem, fix string, err error) (Conversation, error) {
		return Conversation{}, rowError(ErrInvalidRecord, name, row, line, field, problem, fix, err)
	}
	var cl chatLine
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&cl); err != nil {
		var ute *json.UnmarshalTypeError
		switch {
		case errors.As(err, &ute):
			return fail(ute.Field, fmt.Sprintf("%s where %s was expected", ute.Value, ute.Type), "see the chat log format in the README", nil)
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fail("", "the line ends inside its JSON object (truncated file?)", "re-export the log or delete the cut-off line", err)
		}
		return fail("", "not a JSON object", "write one conversation per line as {\"conversation_id\": ..., \"messages\": [...]}", err)
	}
	if dec.More() {
		return fail("", "more than one JSON value on the line", "write one conversation per line", nil)
	}
	id, ok := idString(cl.ConversationID)
	if !ok {
		return fail("conversation_id", "missing, null or empty", "give every line a \"conversation_id\" string naming the gold dialog", nil)
	}
	c := Conversation{ID: id, Source: Source{File: name, Line: line, MessageIndex: -1}}
	if cl.Trial != nil {
		t, err := cl.Trial.Int64()
		if err != nil || t < 0 || t > 1<<31 {
			return fail("trial", fmt.Sprintf("%s is not a trial number", cl.Trial), "use a non-negative integer", nil)
		}
		c.Trial = &t
	}
	if cl.Messages == nil {
		return fail("messages", "missing or null", "give the conversation's messages as an array", nil)
	}
	for i, m := range cl.Messages {
		field := fmt.Sprintf("messages[%d]", i)
		src := Source{File: name, Line: line, MessageIndex: i}
		switch strings.ToLower(m.Role) {
		case "assistant":
			steps, err := assistantSteps(m, src)
			if err != nil {
				return fail(field+".content", "content is neither a string nor a list of parts", "write content as a string or [{\"type\": \"text\", \"text\": ...}]", err)
			}
			c.Steps = append(c.Steps, steps...)
		case "tool", "function":
			attachResult(c.Steps, m.ToolCallID, contentText(m.Content))
		case "user":
			c.Steps = append(c.Steps, Step{Kind: StepUser, Text: contentText(m.Content), Source: src})
		case "system", "developer":
		default:
			return fail(field+".role", fmt.Sprintf("unknown role %q", m.Role), "use system, developer, user, assistant or tool", nil)
		}
	}
	return c, nil
}

// assistantSteps turns an assistant message into steps: its tool calls, or
// its reply when it makes none (text beside tool calls is the model
// thinking aloud, kept as context, not a reply to the user).
func assistantSteps(m chatMessage, src Source) ([]Step, error) {
	calls := m.ToolCalls
	if len(calls) == 0 && m.FunctionCall != nil {
		calls = []chatToolCall{{Function: *m.FunctionCall}}
	}
	var steps []Step
	for _, tc := range calls {
		args := argsText(rawOrNil(tc.Function.Arguments))
		steps = append(steps, Step{Kind: StepCall, Name: tc.Function.Name, Args: args, ArgsError: checkArgs(args), CallID: tc.ID, Source: src})
	}
	if len(steps) > 0 {
		return steps, nil
	}
	if len(m.Content) == 0 || string(m.Content) == "null" {
		return nil, nil
	}
	text, ok := contentString(m.Content)
	if !ok {
		return nil, errors.New(clip(string(m.Content)))
	}
	return []Step{{Kind: StepReply, Text: text, Source: src}}, nil
}

// contentString reads a message content: a string, or a list of parts whose
// text parts are joined.
func contentString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" || p.Type == "output_text" || p.Type == "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), true
}

// contentText is contentString for results: anything else is kept as JSON.
func contentText(raw json.RawMessage) string {
	if s, ok := contentString(raw); ok {
		return s
	}
	return compact(raw)
}

// attachResult records a tool's result on the call it answers (by id, or
// the last call without a result when the message names none).
func attachResult(steps []Step, id, result string) {
	for i := len(steps) - 1; i >= 0; i-- {
		s := &steps[i]
		if s.Kind == StepCall && (id != "" && s.CallID == id || id == "" && s.Result == "") {
			s.Result = result
			return
		}
	}
}

// idString reads an id given as a JSON string or number.
func idString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func rawOrNil(raw json.RawMessage) any {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func compact(raw []byte) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:77]) + "..."
	}
	return s
}
