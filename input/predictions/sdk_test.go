package predictions

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aem-dev/aem/internal/otlpjson"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// exportWithSDK runs agent with a tracer of the real OpenTelemetry Go SDK
// whose spans go through the SDK's OTLP/HTTP exporter (protobuf) to an
// in-process receiver; the receiver writes each export request as one
// line of OTLP JSON, as the Collector's file exporter does. It returns the
// file's path.
func exportWithSDK(t *testing.T, agent func(ctx context.Context, tr trace.Tracer)) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "traces.otlp.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var req coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		line, err := json.Marshal(tracesJSON(&req))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		mu.Lock()
		out.Write(append(line, '\n'))
		mu.Unlock()
		resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(resp)
	}))
	defer srv.Close()
	ctx := context.Background()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "scripted-agent"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithBatcher(exp, sdktrace.WithMaxExportBatchSize(4))) // several export requests: several lines
	agent(ctx, tp.Tracer("aem/scripted-agent"))
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return path
}

// tracesJSON converts an export request to the OTLP JSON model, the way a
// collector's file exporter encodes it (hex ids, string 64-bit integers).
func tracesJSON(req *coltracepb.ExportTraceServiceRequest) map[string]any {
	var rss []any
	for _, rs := range req.ResourceSpans {
		var sss []any
		for _, ss := range rs.ScopeSpans {
			var spans []otlpjson.Span
			for _, sp := range ss.Spans {
				s := otlpjson.Span{
					TraceID: otlpjson.ID(hexOf(sp.TraceId)), SpanID: otlpjson.ID(hexOf(sp.SpanId)),
					ParentSpanID: otlpjson.ID(hexOf(sp.ParentSpanId)), Name: sp.Name, Kind: int(sp.Kind),
					StartTimeUnixNano: otlpjson.Uint64(sp.StartTimeUnixNano), EndTimeUnixNano: otlpjson.Uint64(sp.EndTimeUnixNano),
					Attributes: attrsJSON(sp.Attributes),
				}
				for _, e := range sp.Events {
					s.Events = append(s.Events, otlpjson.Event{TimeUnixNano: otlpjson.Uint64(e.TimeUnixNano), Name: e.Name, Attributes: attrsJSON(e.Attributes)})
				}
				spans = append(spans, s)
			}
			sss = append(sss, map[string]any{"scope": map[string]any{"name": ss.Scope.GetName()}, "spans": spans})
		}
		rss = append(rss, map[string]any{"resource": map[string]any{"attributes": attrsJSON(rs.Resource.GetAttributes())}, "scopeSpans": sss})
	}
	return map[string]any{"resourceSpans": rss}
}

func hexOf(b []byte) string {
	const digits = "0123456789abcdef"
	var buf bytes.Buffer
	for _, c := range b {
		buf.WriteByte(digits[c>>4])
		buf.WriteByte(digits[c&15])
	}
	return buf.String()
}

func attrsJSON(kvs []*commonpb.KeyValue) otlpjson.Attrs {
	out := otlpjson.Attrs{}
	for _, kv := range kvs {
		out = append(out, otlpjson.KeyValue{Key: kv.Key, Value: valueJSON(kv.Value)})
	}
	return out
}

func valueJSON(v *commonpb.AnyValue) otlpjson.AnyValue {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return otlpjson.String(x.StringValue)
	case *commonpb.AnyValue_BoolValue:
		return otlpjson.Bool(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return otlpjson.Int(x.IntValue)
	case *commonpb.AnyValue_DoubleValue:
		return otlpjson.Double(x.DoubleValue)
	case *commonpb.AnyValue_ArrayValue:
		arr := &otlpjson.ArrayValue{}
		for _, e := range x.ArrayValue.Values {
			arr.Values = append(arr.Values, valueJSON(e))
		}
		return otlpjson.AnyValue{ArrayValue: arr}
	case *commonpb.AnyValue_KvlistValue:
		return otlpjson.AnyValue{KvlistValue: &otlpjson.KeyValueList{Values: attrsJSON(x.KvlistValue.Values)}}
	}
	return otlpjson.AnyValue{}
}
