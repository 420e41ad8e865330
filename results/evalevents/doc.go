// Package evalevents writes aem's verdicts as OpenTelemetry evaluation
// events, so the dashboards that show an agent's traces show its scores
// beside them, and reads them back.
//
// # The events
//
// Each event is an OTLP log record named gen_ai.evaluation.result (the
// GenAI semantic conventions' evaluation event), written as OTLP JSON (see
// package otlpjson), one logs document per line for every 512 records, so
// a Collector's otlpjson receiver or file exporter can forward them:
//
//	gen_ai.evaluation.name         aem.correctness for a dialog; for a failed
//	                               turn the sub-metric its failure belongs to:
//	                               aem.structure, aem.completeness,
//	                               aem.truthfulness (aem.correctness for a
//	                               missing or unexpected turn)
//	gen_ai.evaluation.score.value  the dialog's score; for a turn, the failing
//	                               field's similarity (0 for a structural or
//	                               missing failure)
//	gen_ai.evaluation.score.label  pass or fail
//	gen_ai.evaluation.explanation  the failure reason and field, e.g.
//	                               "inconsistent_parameter_values:
//	                               sales_db.aggregate.metric scored 0.66 <
//	                               0.75"; a dialog's names its failing turns
//
// plus aem.dialog_id, aem.turn_no (turns), aem.trial (when trials are
// used), aem.failure_reason and aem.field. The record's traceId and spanId
// are those of the span (or the first trace of the conversation) the
// verdict judges, when the prediction came from a trace, so the event is
// attached to it. Records carry the time the caller gives; aem run gives
// none (0, OTLP's "unknown": a collector stamps the observed time), so the
// same run writes the same bytes.
//
// WriteRun writes the events of a finished run directory (aem run
// --otel-out), reading its rows through package rundir; FromDialog and
// Writer are the parts it is made of.
package evalevents
