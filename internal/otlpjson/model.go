package otlpjson

// Resource describes the entity that produced the telemetry (service.name, ...).
type Resource struct {
	Attributes Attrs `json:"attributes,omitempty"`
}

// Scope is the instrumentation scope (library) that produced the telemetry.
type Scope struct {
	Name       string `json:"name,omitempty"`
	Version    string `json:"version,omitempty"`
	Attributes Attrs  `json:"attributes,omitempty"`
}

// Span is one span of a trace.
type Span struct {
	TraceID           ID      `json:"traceId"`
	SpanID            ID      `json:"spanId"`
	ParentSpanID      ID      `json:"parentSpanId,omitempty"`
	Name              string  `json:"name"`
	Kind              int     `json:"kind,omitempty"`
	StartTimeUnixNano Uint64  `json:"startTimeUnixNano,omitempty"`
	EndTimeUnixNano   Uint64  `json:"endTimeUnixNano,omitempty"`
	Attributes        Attrs   `json:"attributes,omitempty"`
	Events            []Event `json:"events,omitempty"`
	Status            *Status `json:"status,omitempty"`
}

// Event is a timed event inside a span (for example gen_ai.choice).
type Event struct {
	TimeUnixNano Uint64 `json:"timeUnixNano,omitempty"`
	Name         string `json:"name"`
	Attributes   Attrs  `json:"attributes,omitempty"`
}

// Status is a span's status (code 0 unset, 1 ok, 2 error).
type Status struct {
	Code    int    `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// LogsData is one OTLP logs document (an ExportLogsServiceRequest).
type LogsData struct {
	ResourceLogs []ResourceLogs `json:"resourceLogs"`
}

// ResourceLogs groups the log records of one resource.
type ResourceLogs struct {
	Resource  Resource    `json:"resource"`
	ScopeLogs []ScopeLogs `json:"scopeLogs"`
	SchemaURL string      `json:"schemaUrl,omitempty"`
}

// ScopeLogs groups the log records of one instrumentation scope.
type ScopeLogs struct {
	Scope      Scope       `json:"scope"`
	LogRecords []LogRecord `json:"logRecords"`
	SchemaURL  string      `json:"schemaUrl,omitempty"`
}

// LogRecord is one log record; an event when EventName is set.
type LogRecord struct {
	TimeUnixNano         Uint64    `json:"timeUnixNano,omitempty"`
	ObservedTimeUnixNano Uint64    `json:"observedTimeUnixNano,omitempty"`
	SeverityNumber       int       `json:"severityNumber,omitempty"`
	SeverityText         string    `json:"severityText,omitempty"`
	Body                 *AnyValue `json:"body,omitempty"`
	Attributes           Attrs     `json:"attributes,omitempty"`
	TraceID              ID        `json:"traceId,omitempty"`
	SpanID               ID        `json:"spanId,omitempty"`
	EventName            string    `json:"eventName,omitempty"`
}

// SeverityInfo is the OTLP severity number of INFO.
const SeverityInfo = 9
