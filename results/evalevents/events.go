package evalevents

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/aem-dev/aem/internal/otlpjson"
	"github.com/aem-dev/aem/metrics"
)

// Attribute names (GenAI semantic conventions, then aem's own).
const (
	EventName       = "gen_ai.evaluation.result"
	AttrName        = "gen_ai.evaluation.name"
	AttrScore       = "gen_ai.evaluation.score.value"
	AttrLabel       = "gen_ai.evaluation.score.label"
	AttrExplanation = "gen_ai.evaluation.explanation"
	AttrDialog      = "aem.dialog_id"
	AttrTurn        = "aem.turn_no"
	AttrTrial       = "aem.trial"
	AttrReason      = "aem.failure_reason"
	AttrField       = "aem.field"
)

// Evaluation names.
const (
	NameCorrectness  = "aem.correctness"
	NameStructure    = "aem.structure"
	NameCompleteness = "aem.completeness"
	NameTruthfulness = "aem.truthfulness"
)

// Result is one evaluation event.
type Result struct {
	Name        string
	Score       float64
	Label       string // "pass" or "fail"
	Explanation string
	DialogID    string
	TurnNo      int    // 0 for a dialog's event
	Trial       *int64 // nil when the dialog is not one of repeated trials
	Reason      string
	Field       string
	TraceID     string // hex; "" when the prediction did not come from a trace
	SpanID      string
}

// Writer writes Results as OTLP JSON logs, one document per line of at
// most batchSize records. It is for use by one goroutine.
type Writer struct {
	w       *bufio.Writer
	service string
	version string
	time    uint64
	batch   []otlpjson.LogRecord
}

const batchSize = 512

// NewWriter writes to w; service names the resource (service.name), version
// the instrumentation scope's version, and at is the time every record
// carries; the zero time writes 0, OTLP's "unknown" (a collector then
// stamps the observed time), which keeps reruns byte-identical.
func NewWriter(w io.Writer, service, version string, at time.Time) *Writer {
	var ns uint64
	if !at.IsZero() {
		ns = uint64(at.UnixNano())
	}
	return &Writer{w: bufio.NewWriterSize(w, 1<<20), service: service, version: version, time: ns}
}

// Write adds one event.
func (w *Writer) Write(r Result) error {
	attrs := otlpjson.Attrs{
		{Key: AttrName, Value: otlpjson.String(r.Name)},
		{Key: AttrScore, Value: otlpjson.Double(r.Score)},
		{Key: AttrLabel, Value: otlpjson.String(r.Label)},
	}
	add := func(k string, v otlpjson.AnyValue) { attrs = append(attrs, otlpjson.KeyValue{Key: k, Value: v}) }
	if r.Explanation != "" {
		add(AttrExplanation, otlpjson.String(r.Explanation))
	}
	add(AttrDialog, otlpjson.String(r.DialogID))
	if r.TurnNo != 0 {
		add(AttrTurn, otlpjson.Int(int64(r.TurnNo)))
	}
	if r.Trial != nil {
		add(AttrTrial, otlpjson.Int(*r.Trial))
	}
	if r.Reason != "" {
		add(AttrReason, otlpjson.String(r.Reason))
	}
	if r.Field != "" {
		add(AttrField, otlpjson.String(r.Field))
	}
	w.batch = append(w.batch, otlpjson.LogRecord{
		TimeUnixNano:   otlpjson.Uint64(w.time),
		SeverityNumber: otlpjson.SeverityInfo, SeverityText: "INFO", EventName: EventName,
		Attributes: attrs, TraceID: otlpjson.ID(r.TraceID), SpanID: otlpjson.ID(r.SpanID),
	})
	if len(w.batch) >= batchSize {
		return w.flushBatch()
	}
	return nil
}

func (w *Writer) flushBatch() error {
	if len(w.batch) == 0 {
		return nil
	}
	doc := otlpjson.LogsData{ResourceLogs: []otlpjson.ResourceLogs{{
		Resource: otlpjson.Resource{Attributes: otlpjson.Attrs{{Key: "service.name", Value: otlpjson.String(w.service)}}},
		ScopeLogs: []otlpjson.ScopeLogs{{
			Scope:      otlpjson.Scope{Name: "github.com/aem-dev/aem", Version: w.version},
			LogRecords: w.batch,
		}},
	}}}
	w.batch = w.batch[:0]
	if err := otlpjson.WriteLogs(w.w, &doc); err != nil {
		return fmt.Errorf("writing evaluation events: %w", err)
	}
	return nil
}

// Close writes what is buffered. It does not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.flushBatch(); err != nil {
		return err
	}
	if err := w.w.Flush(); err != nil {
		return fmt.Errorf("writing evaluation events: %w", err)
	}
	return nil
}

// Read returns the gen_ai.evaluation.result events of an OTLP JSON logs
// file (other records are skipped).
func Read(ctx context.Context, name string, r io.Reader) ([]Result, error) {
	var out []Result
	err := otlpjson.ReadLogs(ctx, name, r, func(_ otlpjson.Resource, _ otlpjson.Scope, lr *otlpjson.LogRecord) error {
		if lr.EventName != EventName {
			return nil
		}
		m := lr.Attributes.Map()
		s := func(k string) string { v, _ := m[k].(string); return v }
		i := func(k string) int { v, _ := m[k].(int64); return int(v) }
		var trial *int64
		if v, ok := m[AttrTrial].(int64); ok {
			trial = &v
		}
		score, ok := m[AttrScore].(float64)
		if !ok {
			if n, isInt := m[AttrScore].(int64); isInt {
				score = float64(n)
			}
		}
		out = append(out, Result{Name: s(AttrName), Score: score, Label: s(AttrLabel), Explanation: s(AttrExplanation),
			DialogID: s(AttrDialog), TurnNo: i(AttrTurn), Trial: trial, Reason: s(AttrReason), Field: s(AttrField),
			TraceID: string(lr.TraceID), SpanID: string(lr.SpanID)})
		return nil
	})
	return out, err
}

// Source says which trace and span a turn's prediction came from.
type Source struct{ TraceID, SpanID string }

// FromDialog turns a dialog's result into events: one for the dialog
// (aem.correctness, attached to conv, the conversation's first trace) and
// one for each failed turn (attached to its prediction's span when turn
// gives one; a missing turn has no prediction and gets conv).
func FromDialog(res metrics.DialogResult, trial *int64, conv Source, turn func(turnNo int) (Source, bool)) []Result {
	label := func(pass bool) string {
		if pass {
			return "pass"
		}
		return "fail"
	}
	out := []Result{{Name: NameCorrectness, Score: res.Score, Label: label(res.TestPass), Explanation: res.Reason,
		DialogID: res.DialogID, Trial: trial, Reason: string(res.RootCause), TraceID: conv.TraceID}}
	for _, v := range res.Turns {
		if v.Pass {
			continue
		}
		src, ok := turn(v.PredictTurnNo)
		if !ok {
			src = Source{TraceID: conv.TraceID}
		}
		name, score, field, why := explain(v)
		out = append(out, Result{Name: name, Score: score, Label: "fail", Explanation: why, DialogID: res.DialogID,
			TurnNo: v.TurnNo, Trial: trial, Reason: string(v.FailureReason), Field: field, TraceID: src.TraceID, SpanID: src.SpanID})
	}
	return out
}

// explain names the sub-metric of a failed turn's own reason, the failing
// field and its score, and says why in one line.
func explain(v metrics.Verdict) (name string, score float64, field, why string) {
	own := v.OwnReason
	if own == "" {
		own = v.FailureReason
	}
	switch own {
	case metrics.ReasonToolMismatch, metrics.ReasonActionMismatch:
		name = NameStructure
	case metrics.ReasonUnparseableArguments, metrics.ReasonMissingParameters, metrics.ReasonExtraParameters, metrics.ReasonIncompleteResponse:
		name = NameCompleteness
	case metrics.ReasonInvalidType, metrics.ReasonInconsistentValues, metrics.ReasonInconsistentResponse:
		name = NameTruthfulness
	default:
		name = NameCorrectness
	}
	parts := []string{string(own)}
	switch own {
	case metrics.ReasonMissingParameters:
		parts[0] += ": " + strings.Join(v.MissingKeys, ", ")
	case metrics.ReasonExtraParameters:
		parts[0] += ": " + strings.Join(v.ExtraKeys, ", ")
	}
	for _, fs := range v.FieldScores {
		if fs.Pass {
			continue
		}
		field, score = fs.Field, fs.Score
		if fs.Method == metrics.MethodSemantic {
			parts[0] += fmt.Sprintf(": %s scored %.2f < %.2f", fs.Field, fs.Score, fs.Threshold)
		} else if !strings.Contains(parts[0], ":") {
			parts[0] += fmt.Sprintf(": %s (%s)", fs.Field, fs.Method)
		}
		break
	}
	if v.FailureReason == metrics.ReasonPriorActionFailed {
		parts = append([]string{fmt.Sprintf("prior_action_failed (root cause: turn %d)", v.CascadeFrom)}, parts...)
	}
	return name, score, field, strings.Join(parts, "; ")
}
