package judge

import (
	"encoding/json"
	"fmt"
	"strings"
)

// The chat-completions request and response, as OpenAI documents them
// (POST /v1/chat/completions) and compatible servers (vLLM, llama.cpp's
// llama-server, Ollama, LiteLLM, Azure OpenAI's v1 API) accept them. Only
// the fields the judge uses are declared.

// chatRequest is the request body.
type chatRequest struct {
	Model          string          `json:"model"`
	Messages       []message       `json:"messages"`
	Temperature    float64         `json:"temperature"`
	MaxTokens      int             `json:"max_tokens"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

// responseFormat constrains the answer to JSON (json_object) or to the
// answer's schema (json_schema).
type responseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *jsonSchema `json:"json_schema,omitempty"`
}

type jsonSchema struct {
	Name   string       `json:"name"`
	Strict bool         `json:"strict"`
	Schema schemaObject `json:"schema"`
}

// formatFor is the response_format field for a format name; nil for none.
func formatFor(format string) *responseFormat {
	switch format {
	case FormatJSONSchema:
		return &responseFormat{Type: FormatJSONSchema, JSONSchema: &jsonSchema{Name: "judgement", Strict: true, Schema: answerSchema}}
	case FormatJSONObject:
		return &responseFormat{Type: FormatJSONObject}
	}
	return nil
}

// chatResponse is the response body.
type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

// usage is the tokens a request used, as the endpoint counts them.
type usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// errorBody is an error response: {"error": {"message", "type", "code", "param"}}.
// Some servers send a bare string as "error"; code may be a number.
type errorBody struct {
	Error json.RawMessage `json:"error"`
}

// apiError is what an error response says.
type apiError struct {
	Message string
	Code    string
	Param   string
}

// parseAPIError reads an error response body; an unparsable body gives
// its first bytes as the message.
func parseAPIError(body []byte) apiError {
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err != nil || len(eb.Error) == 0 {
		return apiError{Message: clip(strings.TrimSpace(string(body)), 200)}
	}
	var s string
	if json.Unmarshal(eb.Error, &s) == nil {
		return apiError{Message: clip(s, 200)}
	}
	var e struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Param   any    `json:"param"`
	}
	_ = json.Unmarshal(eb.Error, &e)
	ae := apiError{Message: clip(e.Message, 200), Code: e.Type}
	if e.Code != nil {
		ae.Code = fmt.Sprint(e.Code)
	}
	if e.Param != nil {
		ae.Param = fmt.Sprint(e.Param)
	}
	return ae
}

// is reports whether the error mentions any of words (case-insensitive)
// in its message, code or param.
func (e apiError) is(words ...string) bool {
	all := strings.ToLower(e.Message + " " + e.Code + " " + e.Param)
	for _, w := range words {
		if strings.Contains(all, w) {
			return true
		}
	}
	return false
}
