package otlpjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/google/go-cmp/cmp"
)

func TestValueEncoding(t *testing.T) {
	attrs := Attrs{
		{Key: "s", Value: String("x")}, {Key: "i", Value: Int(1 << 60)}, {Key: "d", Value: Double(1.5)},
		{Key: "nan", Value: Double(math.NaN())}, {Key: "b", Value: Bool(true)},
		{Key: "arr", Value: AnyValue{ArrayValue: &ArrayValue{Values: []AnyValue{String("a"), Int(2)}}}},
		{Key: "kv", Value: AnyValue{KvlistValue: &KeyValueList{Values: []KeyValue{{Key: "k", Value: String("v")}}}}},
	}
	b, err := json.Marshal(attrs)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"key":"s","value":{"stringValue":"x"}},{"key":"i","value":{"intValue":"1152921504606846976"}},` +
		`{"key":"d","value":{"doubleValue":1.5}},{"key":"nan","value":{"doubleValue":"NaN"}},{"key":"b","value":{"boolValue":true}},` +
		`{"key":"arr","value":{"arrayValue":{"values":[{"stringValue":"a"},{"intValue":"2"}]}}},` +
		`{"key":"kv","value":{"kvlistValue":{"values":[{"key":"k","value":{"stringValue":"v"}}]}}}]`
	if string(b) != want {
		t.Fatalf("encoding:\n got %s\nwant %s", b, want)
	}
	var back Attrs
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m := back.Map()
	if m["i"] != int64(1<<60) || m["s"] != "x" || m["b"] != true || !math.IsNaN(m["nan"].(float64)) {
		t.Errorf("decoded %v", m)
	}
	if d := cmp.Diff([]any{"a", int64(2)}, m["arr"]); d != "" {
		t.Error(d)
	}
	// intValue as a bare number, as some writers emit it.
	var v AnyValue
	if err := json.Unmarshal([]byte(`{"intValue": 7}`), &v); err != nil || v.Value() != int64(7) {
		t.Errorf("bare intValue: %v %v", v.Value(), err)
	}
}

func TestParseID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"0AF7651916CD43DD8448EB211C80319C", "0af7651916cd43dd8448eb211c80319c"},
		{"CvdlGRbNQ92ESOshHIAxnA==", "0af7651916cd43dd8448eb211c80319c"},
		{"b7ad6b7169203331", "b7ad6b7169203331"},
		{"", ""},
	}
	for _, tt := range tests {
		if got, err := ParseID(tt.in); err != nil || string(got) != tt.want {
			t.Errorf("ParseID(%q) = %q, %v", tt.in, got, err)
		}
	}
	for _, bad := range []string{"xyz", "0af7", "CvdlGRbN"} {
		if _, err := ParseID(bad); err == nil {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

const spanJSON = `{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b716920333%d","name":"s%d"}`

func TestReadSpansForms(t *testing.T) {
	one := `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{"name":"x"},"spans":[` +
		strings.Join([]string{fmtSpan(1), fmtSpan(2)}, ",") + `]},{"spans":[` + fmtSpan(3) + `]}]}]}`
	lines := `{"resourceSpans":[{"scopeSpans":[{"spans":[` + fmtSpan(1) + `]}]}]}` + "\n" +
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + fmtSpan(2) + `,` + fmtSpan(3) + `]}]}]}` + "\n"
	for name, doc := range map[string]string{"one document": one, "json lines": lines, "pretty": indent(one)} {
		t.Run(name, func(t *testing.T) {
			var names []string
			err := ReadSpans(context.Background(), "f", strings.NewReader(doc), func(s *Span) error {
				names = append(names, s.Name)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"s1", "s2", "s3"}, names); d != "" {
				t.Error(d)
			}
		})
	}
}

func fmtSpan(i int) string {
	return fmt.Sprintf(spanJSON, i, i)
}

func indent(s string) string {
	var b bytes.Buffer
	json.Indent(&b, []byte(s), "", "  ")
	return b.String()
}

func TestReadSpansErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
		kind            error
	}{
		{"empty", "", "no OTLP JSON document", ErrInvalid},
		{"array", "[]", "not a JSON object", ErrInvalid},
		{"truncated", `{"resourceSpans":[{"scopeSpans":[{"spans":[` + fmtSpan(1) + `,{"traceId":"0af`, "truncated", ErrTruncated},
		{"bad kind", `{"resourceSpans":[{"scopeSpans":[{"spans":[{"kind":"x"}]}]}]}`, "spans[0].kind", ErrInvalid},
		{"wrong key", `{"resourceLogs":[]}`, "no resourceSpans", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ReadSpans(context.Background(), "f", strings.NewReader(tt.doc), func(*Span) error { return nil })
			if !errors.Is(err, badinput.ErrInvalid) || !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q and wrapping %v", err, tt.want, tt.kind)
			}
		})
	}
}

func FuzzReadSpans(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[` + fmtSpan(1) + `]}]}]}`))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"attributes":[{"key":"a","value":{"arrayValue":{"values":[{"intValue":"1"}]}}}]}]}]}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		err := ReadSpans(context.Background(), "f", bytes.NewReader(doc), func(s *Span) error {
			s.Attributes.Map()
			return nil
		})
		if err != nil && (!errors.Is(err, badinput.ErrInvalid) || !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTruncated)) {
			t.Fatalf("error outside the vocabulary: %v", err)
		}
	})
}
