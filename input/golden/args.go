package golden

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// DecodeArgs decodes args JSON text into a map with metrics.DecodeArgs
// (numbers stay json.Number; the text must hold exactly one JSON object).
// Empty or all-space text is the empty object: a call without arguments.
// JSON null is rejected: a null column means "no call", not "no args".
func DecodeArgs(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	return metrics.DecodeArgs([]byte(text))
}

// EncodeArgs encodes args as compact JSON text with sorted keys and no HTML
// escaping, the form the golden writer stores. A nil map encodes as "{}".
// json.Number values are written as given, so DecodeArgs(EncodeArgs(m))
// gives m back.
func EncodeArgs(args map[string]any) (string, error) {
	if args == nil {
		return "{}", nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
