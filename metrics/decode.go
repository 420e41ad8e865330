package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ParseRole parses the dataset's `turn` column. Matching ignores case and
// surrounding spaces; the result is the canonical Role.
func ParseRole(s string) (Role, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "agent":
		return RoleAgent, nil
	case "tool":
		return RoleTool, nil
	case "user":
		return RoleUser, nil
	}
	return "", fmt.Errorf("unknown role %q: use Agent (response turn), Tool (action turn) or User (context)", s)
}

// DecodeArgs decodes tool-call arguments given as JSON object text. Numbers
// stay json.Number so that comparisons keep their exact text. Anything but a
// single JSON object (including null, an array or trailing data) is an error.
func DecodeArgs(data []byte) (map[string]any, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("args are empty: give a JSON object, e.g. {} for no arguments")
	}
	if trimmed[0] != '{' {
		return nil, fmt.Errorf("args must be a JSON object, got %s: wrap the values in {\"name\": value}", jsonKind(trimmed[0]))
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, fmt.Errorf("args are not valid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("args have data after the JSON object: give exactly one object")
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}

func jsonKind(first byte) string {
	switch {
	case first == '[':
		return "an array"
	case first == '"':
		return "a string"
	case first == 'n':
		return "null"
	case first == 't' || first == 'f':
		return "a boolean"
	case first == '-' || (first >= '0' && first <= '9'):
		return "a number"
	}
	return "text that is not JSON"
}
