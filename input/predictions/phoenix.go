package predictions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/aem-dev/aem/internal/otlpjson"
)

// phoenixSpan is one line of Phoenix's span export: {"name", "context":
// {"trace_id", "span_id"}, "parent_id", "span_kind", "start_time",
// "end_time", "attributes", "events"}. Attributes may be nested objects
// ({"llm": {"output_messages": [...]}}) or flat dotted keys.
type phoenixSpan struct {
	Name    string `json:"name"`
	Context struct {
		TraceID string `json:"trace_id"`
		SpanID  string `json:"span_id"`
	} `json:"context"`
	SpanKind   string         `json:"span_kind"`
	StartTime  string         `json:"start_time"`
	EndTime    string         `json:"end_time"`
	Attributes map[string]any `json:"attributes"`
	Events     []struct {
		Name       string         `json:"name"`
		Timestamp  string         `json:"timestamp"`
		Attributes map[string]any `json:"attributes"`
	} `json:"events"`
}

// readPhoenix calls fn for every span of a Phoenix span JSON Lines file.
func readPhoenix(ctx context.Context, name string, r io.Reader, fn func(*span) error) error {
	return eachLine(ctx, name, r, func(row int64, line int, text []byte) error {
		s, err := parsePhoenix(name, row, line, text)
		if err != nil {
			return err
		}
		return fn(&s)
	})
}

func parsePhoenix(name string, row int64, line int, text []byte) (span, error) {
	var ps phoenixSpan
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&ps); err != nil {
		problem := "not a JSON object"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			problem = "the line ends inside its JSON object (truncated file?)"
		}
		return span{}, rowError(ErrInvalidRecord, name, row, line, "", problem, "export spans from Phoenix as JSON Lines, one span per line", err)
	}
	trace, err := otlpjson.ParseID(ps.Context.TraceID)
	if err != nil || trace == "" {
		return span{}, rowError(ErrInvalidRecord, name, row, line, "context.trace_id", "missing or not a trace id", "give each span its context.trace_id", err)
	}
	id, err := otlpjson.ParseID(ps.Context.SpanID)
	if err != nil {
		return span{}, rowError(ErrInvalidRecord, name, row, line, "context.span_id", "not a span id", "give each span its context.span_id", err)
	}
	s := span{file: name, line: line, trace: string(trace), id: string(id), name: ps.Name, attrs: map[string]any{}}
	if s.start, err = isoNanos(ps.StartTime); err != nil {
		return span{}, rowError(ErrInvalidRecord, name, row, line, "start_time", "not an ISO 8601 time", "write times as 2025-01-02T15:04:05.123456Z", err)
	}
	if s.end, err = isoNanos(ps.EndTime); err != nil {
		return span{}, rowError(ErrInvalidRecord, name, row, line, "end_time", "not an ISO 8601 time", "write times as 2025-01-02T15:04:05.123456Z", err)
	}
	flatten(s.attrs, "", ps.Attributes)
	if _, ok := s.attrs[attrOIKind]; !ok && ps.SpanKind != "" {
		s.attrs[attrOIKind] = ps.SpanKind
	}
	for _, e := range ps.Events {
		t, _ := isoNanos(e.Timestamp)
		ev := spanEvent{name: e.Name, time: t, attrs: map[string]any{}}
		flatten(ev.attrs, "", e.Attributes)
		s.events = append(s.events, ev)
	}
	return s, nil
}

// flatten writes nested attribute objects as dotted keys
// ({"llm": {"output_messages": [{"message": ...}]}} becomes
// llm.output_messages.0.message...), the form OTLP attributes have.
// Lists of scalars stay lists.
func flatten(dst map[string]any, prefix string, v any) {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(dst, join(k), e)
		}
	case []any:
		objects := len(x) > 0
		for _, e := range x {
			_, isMap := e.(map[string]any)
			objects = objects && isMap
		}
		if !objects {
			dst[prefix] = plain(x)
			return
		}
		for i, e := range x {
			flatten(dst, join(strconv.Itoa(i)), e)
		}
	default:
		dst[prefix] = plain(x)
	}
}

// plain converts json.Number to int64 or float64, as OTLP attributes hold them.
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func isoNanos(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// Phoenix may leave out the zone ("2025-01-02T15:04:05.123456").
		if t2, err2 := time.Parse("2006-01-02T15:04:05.999999999", s); err2 == nil {
			return uint64(t2.UnixNano()), nil
		}
		return 0, err
	}
	return uint64(t.UnixNano()), nil
}
