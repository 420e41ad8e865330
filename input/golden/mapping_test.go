package golden

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMapping(t *testing.T) {
	tests := []struct {
		in      string
		want    Mapping
		wantErr string
	}{
		{"", Mapping{}, ""},
		{"  ", Mapping{}, ""},
		{"gold_args=expected_arguments", Mapping{"gold_args": "expected_arguments"}, ""},
		{" gold_args = expected_arguments , turn=role,", Mapping{"gold_args": "expected_arguments", "turn": "role"}, ""},
		{"dialog_id=conv id", Mapping{"dialog_id": "conv id"}, ""},
		{"gold_arg=x", nil, `"gold_arg" is not a golden dataset column`},
		{"expected_arguments", nil, "not canonical=column"},
		{"gold_args=", nil, "not canonical=column"},
		{"=x", nil, "not canonical=column"},
		{"turn=a,turn=b", nil, "mapped twice"},
		{"gold_args=x,predict_args=x", nil, `column "x" is mapped to both`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseMapping(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrBadMapping) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if again, err := ParseMapping(got.String()); err != nil || !cmp.Equal(again, got) {
				t.Errorf("String round trip: %v %v", again, err)
			}
		})
	}
	// The error for an unknown name lists the valid ones.
	_, err := ParseMapping("foo=bar")
	if !strings.Contains(err.Error(), "predict_args") || !strings.Contains(err.Error(), "latency_ms") {
		t.Errorf("error does not list the canonical names: %v", err)
	}
}

func TestDecodeArgs(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]any
		wantErr string
	}{
		{"", map[string]any{}, ""},
		{"  \n", map[string]any{}, ""},
		{"{}", map[string]any{}, ""},
		{`{"a": 1.10, "b": [1, "x", null], "c": {"d": true}}`,
			map[string]any{"a": json.Number("1.10"), "b": []any{json.Number("1"), "x", nil}, "c": map[string]any{"d": true}}, ""},
		{`{"big": 12345678901234567890}`, map[string]any{"big": json.Number("12345678901234567890")}, ""},
		{`null`, nil, "JSON object"},
		{`[1]`, nil, "JSON object"},
		{`"x"`, nil, "JSON object"},
		{`{"a": 1} {"b": 2}`, nil, "after the JSON object"},
		{`{"a": }`, nil, "invalid character"},
		{`{"a": 1`, nil, "unexpected EOF"},
	}
	for _, tt := range tests {
		got, err := DecodeArgs(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("DecodeArgs(%q) err = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("DecodeArgs(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestEncodeArgs(t *testing.T) {
	got, err := EncodeArgs(map[string]any{"b": "<&>", "a": json.Number("1.50"), "c": nil})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"a":1.50,"b":"<&>","c":null}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got, _ := EncodeArgs(nil); got != "{}" {
		t.Errorf("nil args = %s", got)
	}
}
