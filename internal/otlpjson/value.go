package otlpjson

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// AnyValue is OTLP's attribute value: exactly one of its fields is set.
type AnyValue struct {
	StringValue *string       `json:"stringValue,omitempty"`
	BoolValue   *bool         `json:"boolValue,omitempty"`
	IntValue    *Int64        `json:"intValue,omitempty"`
	DoubleValue *Float64      `json:"doubleValue,omitempty"`
	ArrayValue  *ArrayValue   `json:"arrayValue,omitempty"`
	KvlistValue *KeyValueList `json:"kvlistValue,omitempty"`
	BytesValue  *string       `json:"bytesValue,omitempty"` // base64
}

// ArrayValue is a list of values.
type ArrayValue struct {
	Values []AnyValue `json:"values"`
}

// KeyValueList is a list of key-value pairs (a map).
type KeyValueList struct {
	Values []KeyValue `json:"values"`
}

// KeyValue is one attribute.
type KeyValue struct {
	Key   string   `json:"key"`
	Value AnyValue `json:"value"`
}

// Int64 is an int64 written as a decimal string (OTLP JSON's rule for
// 64-bit integers); it also decodes from a JSON number.
type Int64 int64

// MarshalJSON writes the value as a quoted decimal.
func (i Int64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(i), 10) + `"`), nil
}

// UnmarshalJSON reads a quoted or bare decimal integer.
func (i *Int64) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(string(unquote(b)), 10, 64)
	if err != nil {
		return fmt.Errorf("64-bit integer %s: %w", b, err)
	}
	*i = Int64(v)
	return nil
}

// Uint64 is a uint64 written as a decimal string (the *TimeUnixNano fields).
type Uint64 uint64

// MarshalJSON writes the value as a quoted decimal.
func (u Uint64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatUint(uint64(u), 10) + `"`), nil
}

// UnmarshalJSON reads a quoted or bare decimal integer.
func (u *Uint64) UnmarshalJSON(b []byte) error {
	s := unquote(b)
	if len(s) == 0 {
		*u = 0
		return nil
	}
	v, err := strconv.ParseUint(string(s), 10, 64)
	if err != nil {
		return fmt.Errorf("64-bit unsigned integer %s: %w", b, err)
	}
	*u = Uint64(v)
	return nil
}

// Float64 is a double; protobuf's JSON mapping writes NaN and the
// infinities as the strings "NaN", "Infinity" and "-Infinity".
type Float64 float64

// MarshalJSON writes finite values as numbers and the others as strings.
func (f Float64) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Infinity"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or one of the strings MarshalJSON writes.
func (f *Float64) UnmarshalJSON(b []byte) error {
	s := string(unquote(b))
	switch s {
	case "NaN":
		*f = Float64(math.NaN())
		return nil
	case "Infinity":
		*f = Float64(math.Inf(1))
		return nil
	case "-Infinity":
		*f = Float64(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("double %s: %w", b, err)
	}
	*f = Float64(v)
	return nil
}

func unquote(b []byte) []byte {
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		return b[1 : len(b)-1]
	}
	return b
}

// ID is a trace or span id held as lower-case hex. It encodes as hex and
// decodes from hex or, leniently, from base64 (protobuf's default JSON
// mapping for bytes, which some exporters write).
type ID string

// UnmarshalJSON reads a hex or base64 id of 8 or 16 bytes ("" is no id).
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("id %s: want a string of hex digits", b)
	}
	v, err := ParseID(s)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ParseID normalises a trace or span id given as hex (16 or 32 digits) or
// base64 (of 8 or 16 bytes) to lower-case hex. The empty string is no id.
func ParseID(s string) (ID, error) {
	if s == "" {
		return "", nil
	}
	if (len(s) == 16 || len(s) == 32) && isHex(s) {
		return ID(bytes.ToLower([]byte(s))), nil
	}
	if raw, err := base64.StdEncoding.DecodeString(s); err == nil && (len(raw) == 8 || len(raw) == 16) {
		return ID(hex.EncodeToString(raw)), nil
	}
	return "", fmt.Errorf("id %q: want 16 or 32 hex digits (OTLP JSON) or the base64 of 8 or 16 bytes", s)
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Value converts v to a plain Go value: string, bool, int64, float64,
// []byte, []any or map[string]any (nil when no field is set).
func (v AnyValue) Value() any {
	switch {
	case v.StringValue != nil:
		return *v.StringValue
	case v.BoolValue != nil:
		return *v.BoolValue
	case v.IntValue != nil:
		return int64(*v.IntValue)
	case v.DoubleValue != nil:
		return float64(*v.DoubleValue)
	case v.ArrayValue != nil:
		out := make([]any, len(v.ArrayValue.Values))
		for i, x := range v.ArrayValue.Values {
			out[i] = x.Value()
		}
		return out
	case v.KvlistValue != nil:
		out := make(map[string]any, len(v.KvlistValue.Values))
		for _, kv := range v.KvlistValue.Values {
			out[kv.Key] = kv.Value.Value()
		}
		return out
	case v.BytesValue != nil:
		raw, err := base64.StdEncoding.DecodeString(*v.BytesValue)
		if err != nil {
			return *v.BytesValue
		}
		return raw
	}
	return nil
}

// String is a string attribute value.
func String(s string) AnyValue { return AnyValue{StringValue: &s} }

// Int is an integer attribute value.
func Int(i int64) AnyValue { v := Int64(i); return AnyValue{IntValue: &v} }

// Double is a floating-point attribute value.
func Double(f float64) AnyValue { v := Float64(f); return AnyValue{DoubleValue: &v} }

// Bool is a boolean attribute value.
func Bool(b bool) AnyValue { return AnyValue{BoolValue: &b} }

// Attrs is a list of attributes with lookups by key.
type Attrs []KeyValue

// Get returns the plain value of key (see AnyValue.Value) and whether it is set.
func (a Attrs) Get(key string) (any, bool) {
	for _, kv := range a {
		if kv.Key == key {
			return kv.Value.Value(), true
		}
	}
	return nil, false
}

// Map returns every attribute as a plain value keyed by its key.
func (a Attrs) Map() map[string]any {
	m := make(map[string]any, len(a))
	for _, kv := range a {
		m[kv.Key] = kv.Value.Value()
	}
	return m
}
