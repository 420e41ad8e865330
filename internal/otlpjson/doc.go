// Package otlpjson owns the OTLP JSON encoding (the OpenTelemetry protocol's
// JSON mapping, as the Collector's file exporter and the SDKs' OTLP/JSON
// exporters write it) for the two signals aem touches: spans, which it reads
// (agents' traces, see input/predictions), and log records, which it writes
// and reads (evaluation events, see results/evalevents).
//
// # Encoding rules (opentelemetry-proto docs/specification.md, "JSON Protobuf Encoding")
//
//   - Keys are the proto field names in lowerCamelCase (traceId, spanId,
//     startTimeUnixNano, resourceSpans, scopeSpans, ...).
//   - traceId, spanId and parentSpanId are hex strings (32 and 16 lower-case
//     hex digits), not base64 as plain protojson would write them. Readers
//     here also accept base64 ids, which some exporters write.
//   - 64-bit integers (intValue, timeUnixNano fields) are decimal strings;
//     readers also accept JSON numbers.
//   - Enums (span kind, severity number, status code) are integers.
//   - An attribute is {"key": K, "value": AnyValue} and an AnyValue is
//     exactly one of stringValue, boolValue, intValue, doubleValue,
//     arrayValue {"values": [AnyValue...]}, kvlistValue {"values":
//     [KeyValue...]} or bytesValue (base64).
//   - Unknown fields are ignored.
//
// # Streaming
//
// ReadSpans decodes a file without holding it: a single TracesData document
// ({"resourceSpans": [...]}) of any size is walked token by token and each
// span is decoded on its own; a file of several documents (JSON Lines, one
// ExportTraceServiceRequest per line, as the Collector's file exporter
// writes) is read document after document. Memory holds one span at a time.
//
// Errors about the content are *badinput.RowError (wrapping
// badinput.ErrInvalid, exit status 3, and ErrInvalid or ErrTruncated)
// naming the file, the line and the JSON path.
package otlpjson
