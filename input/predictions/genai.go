package predictions

import "strings"

// GenAI semantic conventions (OpenTelemetry, gen_ai.*).
const (
	attrOperation    = "gen_ai.operation.name"
	attrToolName     = "gen_ai.tool.name"
	attrToolCallID   = "gen_ai.tool.call.id"
	attrToolArgs     = "gen_ai.tool.call.arguments"
	attrToolResult   = "gen_ai.tool.call.result"
	attrOutput       = "gen_ai.output.messages"
	attrSystemLegacy = "gen_ai.system"
)

// genAIFragments reads an execute_tool span as a call, and a chat or
// invoke_agent span's output messages (gen_ai.output.messages, else its
// gen_ai.choice events) as calls and replies. Older names are read too:
// gen_ai.tool.input / gen_ai.tool.output, and gen_ai.system marking a
// model call that predates gen_ai.operation.name.
func genAIFragments(s *span) []fragment {
	op := str(s.attrs[attrOperation])
	switch {
	case op == "execute_tool" || op == "" && s.attrs[attrToolName] != nil && strings.HasPrefix(s.name, "execute_tool"):
		name := firstString(s.attrs, attrToolName)
		args := firstValue(s.attrs, attrToolArgs, "gen_ai.tool.input", "gen_ai.tool.arguments")
		result := str(firstValue(s.attrs, attrToolResult, "gen_ai.tool.output"))
		return []fragment{{Level: levelExec, Time: s.start, Step: s.call(name, args, firstString(s.attrs, attrToolCallID), result, -1)}}
	case op == "invoke_agent":
		return s.steps(genAIOutput(s), levelAgent, s.end)
	case op == "chat" || op == "text_completion" || op == "generate_content" || op == "" && s.attrs[attrSystemLegacy] != nil:
		return s.steps(genAIOutput(s), levelModel, s.end)
	}
	return nil
}

// userMessages reads the user's messages in a model call's input: GenAI's
// gen_ai.input.messages (parts or chat-completions messages) or, in older
// spans, its gen_ai.user.message events; OpenInference's
// llm.input_messages.*; none for other spans.
func userMessages(s *span) []string {
	if _, ok := s.attrs[attrOIKind]; ok {
		if strings.ToUpper(str(s.attrs[attrOIKind])) != "LLM" {
			return nil
		}
		return oiUserMessages(s.attrs)
	}
	switch str(s.attrs[attrOperation]) {
	case "chat", "text_completion", "generate_content", "invoke_agent", "":
	default:
		return nil
	}
	var out []string
	if v, ok := s.attrs["gen_ai.input.messages"]; ok {
		for _, x := range asList(v) {
			m, _ := x.(map[string]any)
			if str(m["role"]) != "user" {
				continue
			}
			var texts []string
			for _, p := range asList(m["parts"]) {
				if pm, _ := p.(map[string]any); str(pm["type"]) == "text" {
					texts = append(texts, str(pm["content"]))
				}
			}
			if m["parts"] == nil {
				texts = choiceMessage(m).texts
			}
			out = append(out, strings.Join(texts, "\n"))
		}
		return out
	}
	for _, e := range s.events {
		if e.name == "gen_ai.user.message" {
			out = append(out, str(firstValue(e.attrs, "content", "gen_ai.event.content", "body")))
		}
	}
	return out
}

// genAIOutput reads a span's output messages from gen_ai.output.messages
// or, when absent, from its gen_ai.choice events.
func genAIOutput(s *span) []message {
	if v, ok := s.attrs[attrOutput]; ok {
		return partsMessages(structured(v))
	}
	var msgs []message
	for _, e := range s.events {
		if e.name != "gen_ai.choice" {
			continue
		}
		v := firstValue(e.attrs, "message", "body", "gen_ai.event.content", "content")
		msgs = append(msgs, choiceMessage(structured(v)))
	}
	return msgs
}

// partsMessages reads the current convention's messages:
// [{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call",
// "id", "name", "arguments"}], "finish_reason"}].
func partsMessages(v any) []message {
	list, _ := v.([]any)
	var out []message
	for _, x := range list {
		m, _ := x.(map[string]any)
		if m == nil {
			continue
		}
		if role := str(m["role"]); role != "" && role != "assistant" {
			continue
		}
		var msg message
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			switch str(pm["type"]) {
			case "text":
				msg.texts = append(msg.texts, str(pm["content"]))
			case "tool_call":
				msg.calls = append(msg.calls, toolCall{id: str(pm["id"]), name: str(pm["name"]), args: pm["arguments"]})
			}
		}
		if len(parts) == 0 && m["content"] != nil { // a chat-completions message in the new attribute
			msg = choiceMessage(m)
		}
		out = append(out, msg)
	}
	return out
}

// choiceMessage reads the message of a gen_ai.choice event: a
// chat-completions message {"role", "content", "tool_calls": [{"id",
// "function": {"name", "arguments"}}]}, a list of content blocks ({"text"}
// or {"toolUse": {"toolUseId", "name", "input"}}, as Strands Agents
// writes), or plain text.
func choiceMessage(v any) message {
	var msg message
	switch x := v.(type) {
	case string:
		msg.texts = append(msg.texts, x)
	case []any:
		for _, b := range x {
			bm, _ := b.(map[string]any)
			if t, ok := bm["text"]; ok {
				msg.texts = append(msg.texts, str(t))
			}
			if tu, ok := bm["toolUse"].(map[string]any); ok {
				msg.calls = append(msg.calls, toolCall{id: str(tu["toolUseId"]), name: str(tu["name"]), args: tu["input"]})
			}
		}
	case map[string]any:
		if inner, ok := x["message"]; ok {
			return choiceMessage(structured(inner))
		}
		for _, c := range asList(x["tool_calls"]) {
			cm, _ := c.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			msg.calls = append(msg.calls, toolCall{id: str(cm["id"]), name: str(fn["name"]), args: fn["arguments"]})
		}
		switch c := structured(x["content"]).(type) {
		case nil:
		case string:
			msg.texts = append(msg.texts, c)
		case []any:
			inner := choiceMessage(c)
			msg.texts = append(msg.texts, inner.texts...)
			msg.calls = append(msg.calls, inner.calls...)
		}
	}
	return msg
}

func asList(v any) []any {
	l, _ := structured(v).([]any)
	return l
}
