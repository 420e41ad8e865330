package predictions

import (
	"sort"
	"strconv"
	"strings"
)

// OpenInference semantic conventions (Arize Phoenix).
const (
	attrOIKind    = "openinference.span.kind"
	attrOIOutputs = "llm.output_messages."
)

// openInferenceFragments reads a TOOL span as a call (tool.name,
// tool.parameters), an LLM span's llm.output_messages.* as calls and
// replies, and an AGENT span's output.value as a reply.
func openInferenceFragments(s *span) []fragment {
	switch strings.ToUpper(str(s.attrs[attrOIKind])) {
	case "TOOL":
		name := firstString(s.attrs, "tool.name")
		args := firstValue(s.attrs, "tool.parameters", "input.value")
		id := firstString(s.attrs, "tool_call.id", "tool.id")
		return []fragment{{Level: levelExec, Time: s.start, Step: s.call(name, args, id, str(s.attrs["output.value"]), -1)}}
	case "LLM":
		return s.steps(oiMessages(s.attrs), levelModel, s.end)
	case "AGENT":
		if out := str(s.attrs["output.value"]); out != "" {
			return []fragment{{Level: levelAgent, Time: s.end, Step: s.reply(out, -1)}}
		}
	}
	return nil
}

// oiMessages reads the flattened llm.output_messages.<i>.message.* keys.
func oiMessages(attrs map[string]any) []message {
	type oiCall struct{ id, name, args string }
	type oiMsg struct {
		role     string
		content  string
		contents map[int]string
		calls    map[int]*oiCall
	}
	byIndex := map[int]*oiMsg{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, attrOIOutputs)
		if !ok {
			continue
		}
		i, rest, ok := cutIndex(rest)
		if !ok {
			continue
		}
		m := byIndex[i]
		if m == nil {
			m = &oiMsg{contents: map[int]string{}, calls: map[int]*oiCall{}}
			byIndex[i] = m
		}
		rest = strings.TrimPrefix(rest, "message.")
		switch {
		case rest == "role":
			m.role = str(v)
		case rest == "content":
			m.content = str(v)
		case strings.HasPrefix(rest, "contents."):
			j, r, ok := cutIndex(strings.TrimPrefix(rest, "contents."))
			if ok && r == "message_content.text" {
				m.contents[j] = str(v)
			}
		case strings.HasPrefix(rest, "tool_calls."):
			j, r, ok := cutIndex(strings.TrimPrefix(rest, "tool_calls."))
			if !ok {
				continue
			}
			c := m.calls[j]
			if c == nil {
				c = &oiCall{}
				m.calls[j] = c
			}
			switch r {
			case "tool_call.id":
				c.id = str(v)
			case "tool_call.function.name":
				c.name = str(v)
			case "tool_call.function.arguments":
				c.args = argsText(v)
			}
		}
	}
	var out []message
	for _, i := range sortedKeys(byIndex) {
		m := byIndex[i]
		if m.role != "" && m.role != "assistant" {
			continue
		}
		var msg message
		for _, j := range sortedKeys(m.calls) {
			c := m.calls[j]
			msg.calls = append(msg.calls, toolCall{id: c.id, name: c.name, args: c.args})
		}
		if m.content != "" {
			msg.texts = append(msg.texts, m.content)
		}
		for _, j := range sortedKeys(m.contents) {
			msg.texts = append(msg.texts, m.contents[j])
		}
		out = append(out, msg)
	}
	return out
}

// oiUserMessages reads the user's messages among the flattened
// llm.input_messages.<i>.message.* keys, in order.
func oiUserMessages(attrs map[string]any) []string {
	role, content := map[int]string{}, map[int]string{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, "llm.input_messages.")
		if !ok {
			continue
		}
		i, rest, ok := cutIndex(rest)
		switch {
		case !ok:
		case rest == "message.role":
			role[i] = str(v)
		case rest == "message.content":
			content[i] = str(v)
		}
	}
	var out []string
	for _, i := range sortedKeys(role) {
		if role[i] == "user" {
			out = append(out, content[i])
		}
	}
	return out
}

// cutIndex splits "3.rest" into 3 and "rest".
func cutIndex(s string) (int, string, bool) {
	head, rest, _ := strings.Cut(s, ".")
	i, err := strconv.Atoi(head)
	return i, rest, err == nil && i >= 0
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
