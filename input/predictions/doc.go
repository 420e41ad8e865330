// Package predictions reads the predicted side of a golden dataset from
// where agents leave it: chat-completion logs and OpenTelemetry traces.
//
// # Formats
//
// Open detects the format of each file from its content (Detect), or takes
// it from Options.Format (--predictions-format):
//
//   - Chat logs (FormatChat): JSON Lines, one conversation per line,
//     {"conversation_id": "...", "trial": 2, "messages": [...]} with OpenAI
//     chat-completions messages. An assistant message's tool_calls
//     [{"id", "type": "function", "function": {"name", "arguments"}}] (or
//     the legacy function_call) are calls; an assistant message without
//     calls is a reply (content a string or a list of text parts). Text
//     beside calls is the model thinking aloud and is not a reply. Tool
//     messages attach their content to the call they answer (tool_call_id).
//     User messages are steps of their own (StepUser): not the agent's,
//     they bound the alignment with the gold's User turns (package align).
//     Arguments are JSON text or, leniently, an object.
//   - OTLP JSON traces (FormatOTLP): resourceSpans/scopeSpans/spans, one
//     document or JSON Lines of them (see package otlpjson). Spans are read
//     by the OpenTelemetry GenAI conventions, or by OpenInference's when
//     they carry openinference.span.kind (both may be mixed):
//   - GenAI: an execute_tool span (gen_ai.operation.name) is a call:
//     gen_ai.tool.name, gen_ai.tool.call.id, gen_ai.tool.call.arguments,
//     gen_ai.tool.call.result (older: gen_ai.tool.input/gen_ai.tool.output).
//     A chat (text_completion, generate_content, or an older span with only
//     gen_ai.system) or invoke_agent span contributes its output messages:
//     gen_ai.output.messages (JSON text or structured: [{"role",
//     "parts": [{"type": "text", "content"}, {"type": "tool_call", "id",
//     "name", "arguments"}]}]), else its gen_ai.choice events (a
//     chat-completions message, Strands Agents content blocks, or text).
//   - OpenInference: a TOOL span is a call (tool.name, tool.parameters,
//     output.value); an LLM span contributes llm.output_messages.<i>.message
//     (.content, .contents.<j>.message_content.text,
//     .tool_calls.<j>.tool_call.{id,function.name,function.arguments}); an
//     AGENT span's output.value is a reply.
//   - Phoenix span exports (FormatPhoenix): JSON Lines of {"name",
//     "context": {"trace_id", "span_id"}, "span_kind", "start_time",
//     "end_time", "attributes"} with OpenInference attributes, nested or
//     flat.
//
// # Conversations from spans
//
// Spans are grouped into conversations by gen_ai.conversation.id (or
// OpenInference's session.id) found on any span of a trace; a trace
// without one is a conversation named by its trace id (32 hex digits). The
// span attribute aem.trial numbers repeated runs. Within a conversation:
// when a trace has model-call outputs, its agent-level outputs (which
// repeat them) are ignored; a call both requested by the model and executed
// (same call id) counts once, with the execution span as its source;
// requests without an id are dropped when the conversation has executions.
// Steps are ordered by time: an execution at its start, a model output at
// its end. The user's messages come from the input of model calls
// (gen_ai.input.messages, older gen_ai.user.message events,
// OpenInference's llm.input_messages.<i>.message): each is a user step
// once, at the start of the first call whose input holds it.
//
// # Memory
//
// Open streams every file and groups with external merge sorts (runs of
// Options.SortMemory bytes spilled to Options.TempDir), so memory does not
// grow with the number of spans: it holds one sort run, one trace's and one
// conversation's fragments. The grouped conversations are kept in a
// temporary file sorted by (id, trial) with a sparse index (Store); Lookup
// finds a gold dialog's conversations with one seek.
//
// # Errors
//
// Errors about the content are *badinput.RowError (wrapping
// badinput.ErrInvalid, exit status 3, and one of ErrInvalidRecord,
// ErrFormat, ErrJoin, or for OTLP JSON spans otlpjson's kinds) and
// name the file, the record and line, the field and the fix: a line that is
// not JSON, a truncated file (the last line cut, a document that ends
// early), a missing conversation_id, a duplicate (conversation, trial), a
// conversation with both numbered runs and a run without a trial. An
// agent's malformed output is not an input error: arguments that are not
// one JSON object are kept as written with Step.ArgsError set, and scored.
package predictions
