// Package golden reads and writes golden datasets: the multi-turn agent
// conversations that `aem run` scores, each turn pairing the gold
// (expected) output with the predicted (actual) one.
//
// # Parquet schema
//
// One row per turn. Column names are the canonical names below unless
// renamed with a Mapping (`--map canonical=column,...`).
//
//	column            type                      required  meaning
//	dialog_id         string (or int32/int64)   yes       conversation id; never null or empty
//	turn_no           int32 or int64            yes       position in the dialog, >= 1, unique per dialog
//	turn              string                    yes       role: Agent (reply), Tool (tool call), User (context, not scored); any letter case; null: inferred (see below)
//	gold_response     string                    yes*      expected reply (Agent/User turns)
//	predict_response  string                    yes*      actual reply
//	gold_tool_id      string                    yes*      expected call: tool
//	gold_action       string                    yes*      expected call: action
//	gold_args         string (JSON object text) yes*      expected call: arguments; may use {"$any": [...], "$optional": true}
//	predict_tool_id   string                    yes*      actual call: tool
//	predict_action    string                    yes*      actual call: action
//	predict_args      string (JSON object text) yes*      actual call: arguments
//	tags              list<string>              no        e.g. OrderInvariant_<group>
//	depends_on        list<int>                 no        earlier turn_no values this turn consumes
//	human_label       boolean                   no        a person's pass/fail
//	human_score       float or double           no        a person's score (finite)
//	weight            float or double           no        weight for the "weighted" composition (>= 0; null = 1)
//	critical          boolean                   no        a failure caps the dialog score under "gating" (null = false)
//	latency_ms        float or double           no        latency of the turn (0 to MaxLatencyMS)
//	gold_no_call      boolean                   no        true: gold says no tool should be called (Tool rows, gold call null)
//	tools             string (JSON text)        no        the dialog's tool definitions (package tooldef), on its first row or on every row
//	trial             int32 or int64            no        repeated trials of the same dialog: (dialog_id, trial) is a dialog (>= 0; null = not a trial)
//	user_turn         int32 or int64            no        turn_no of the User turn the row answers (0: none; null: the last User turn before it); `aem import --predictions` writes it for calls with no gold
//
// (*) The column must exist (it may hold nulls): a file without it is
// refused, so a misnamed column is never silently read as "all null".
// Physical types are accepted loosely: INT32 or INT64 for integers, FLOAT or
// DOUBLE (or an integer) for numbers, any BYTE_ARRAY (string, large_string,
// JSON) for strings, optional or required fields, LIST-annotated lists (3- or
// 2-level) or bare repeated columns. Any other top-level column is an extra:
// it is carried through unchanged (see Extras below), never an error.
//
// # Repeated trials
//
// Rows with a trial are grouped by (dialog_id, trial): each trial of a
// dialog_id is a dialog of its own (Dialog.Trial), scored on its own, given
// out in the order of its first row, right after the dialog_id's other
// trials. Within one dialog_id every row has a trial or none does (a mix
// is a row error). The trials of a dialog_id share its tool definitions.
//
// # Call names
//
// Calls follow metrics.Named's rule, in both formats: a call that gives
// only a function name (a gold_action or gold_tool_id alone, a JSON
// "name", or "action" or "tool_id" alone) is tool_id = the name and
// action = "call"; a call with both keeps them (the tool.action
// convention). Datasets written before the rule read the same way.
//
// # One decoded row, one set of rules
//
// Both formats decode a row (a Parquet row, a JSON turn) into the same
// record, every value as the file gave it, and one validator decides
// whether it is a valid turn, so a row means the same and is refused with
// the same message (problem and fix; the location is each format's own)
// whichever format holds it. What only one format can get wrong (a JSON
// value of the wrong type or an unknown key, a Parquet column of the wrong
// type) is checked by that format's decoder first.
//
// A null side is an absent turn. A side is a reply when its response is
// non-null (an empty string is a present, empty reply) and a call when any
// of its tool_id, action, args is non-null (null or empty args read as
// {}). No gold side means an unexpected turn (metrics.Turn.HasGold is
// false); no predicted side a missing turn (HasPredict is false).
//
//   - The gold side must fit the role: a Tool turn's gold is a call (or
//     gold_no_call true: no call should be made), an Agent or User turn's a
//     reply; gold with both a response and a call is refused (split it into
//     two turns).
//   - The predicted side is the agent's output, never bad input: the part
//     the role scores is kept (the call of a Tool turn, the reply of an
//     Agent or User turn) and the other part is not scored, so a
//     prediction with only the other part counts as no prediction of the
//     turn (a Tool turn the agent answered in words is a missing call).
//   - A turn with neither side is refused.
//   - No text value (a reply, arguments, an id, a tag, the tool
//     definitions' text) may hold more than ReadOptions.MaxFieldBytes (1
//     MiB by default, DefaultMaxFieldBytes), gold or predicted: scoring
//     costs grow faster than a value's size, and such a value is a whole
//     log or file in one cell. It is refused before anything downstream
//     sees it. A JSON string is measured by the text it decodes to, args
//     written as JSON by their text as written, a dialog's tools by their
//     compact text; the JSON reader leaves a string over the limit out
//     before encoding/json decodes it (jsonFilter), keeping its length
//     for the validator, so a 50 MB reply costs no more to refuse than a
//     small one.
//   - A null role (a JSON turn without "turn") is inferred: Tool when a
//     side is a call or gold_no_call is true, else Agent.
//
// Gold args text must be one JSON object; numbers are kept as json.Number.
// Predicted args that are not a JSON object are the agent's mistake, not
// bad input: they are kept as text (metrics.Call.UnparsedArgs) and judged
// unparseable_arguments. A null depends_on means "not given" (attribution
// infers dependencies); an empty list means "depends on nothing".
//
// # Column mapping
//
// ParseMapping parses `canonical=column` pairs separated by commas, e.g.
// `--map dialog_id=conversation,gold_args=expected_arguments,turn=role`.
// Only top-level columns can be mapped. Unknown canonical names, a name
// mapped twice, two names mapped to one column and mapped columns that the
// file lacks are errors. A file column that carries a canonical name but is
// not used for it (because that name was mapped elsewhere) is an extra.
//
// # Streaming and unsorted input
//
// Open reads the Parquet footer, checks the schema, then makes a cheap first
// pass over the dialog_id column alone to check that each dialog's rows are
// contiguous. Sorted input (the fast path) is then streamed row group by row
// group, BatchRows rows at a time, and consecutive rows with the same
// dialog_id form a dialog; memory holds one batch and one dialog. Turns are
// ordered by turn_no within a dialog; Dialog.Rows says which input row each
// came from (0-based, like DuckDB's file_row_number).
//
// When a dialog's rows are not contiguous, the reader does not split it: by
// default it calls Hook.UnsortedFallback and groups the rows with an
// external merge sort (sorted runs of at most SpillMemory bytes written to
// SpillDir, removed by Close), yielding dialogs in the order of their first
// row in the file. Memory then holds one run plus a map of 64-bit id hashes
// (about 40 bytes per dialog). With RequireSorted the reader returns an
// error wrapping ErrUnsorted naming both rows instead.
//
// # JSON input
//
// `aem import` and `aem run` also read the JSON format of the AEM write-up,
// detected by content (first non-space byte '[' or '{'; Parquet starts with
// "PAR1") and otherwise by extension (.json, .jsonl, .ndjson, .parquet):
//
//   - a JSON array of turns: one dialog whose dialog_id is the file name
//     without its extension (sales.json -> "sales");
//   - JSON Lines (or concatenated objects): {"dialog_id": ..., "turns": [...]}
//     per dialog; a dialog_id (with its trial) may appear only once;
//   - a JSON array of such dialog objects.
//
// Each turn is {"turn_no", "turn", "gold_turn", "predict_turn", "tags",
// "depends_on", "human_label", "human_score", "weight", "critical",
// "latency_ms", "trial"}; gold_turn and predict_turn are {"response": "..."} or
// {"tool_id", "action", "args"} or {"name", "args"}, absent or null for an
// absent side; a
// gold_turn {"no_call": true} says no tool should be called. Args are
// a JSON object or the text of one (null = {}). When "turn" is absent the
// role is inferred as for a null turn column. Other keys of a
// turn, and keys of a dialog object besides dialog_id, turns and tools (as
// "dialog_<key>"), are extras, typed by a first pass over the file (see
// json_extras.go); unknown keys inside gold_turn/predict_turn are errors
// (a typo there would change the verdict). --map does not apply to JSON.
// Trials: a dialog object's "trial" key (then (dialog_id, trial) may
// appear only once), or each turn's "trial" in an array of turns; a turn
// of a dialog object may not have one.
//
// # Tool definitions
//
// A dialog's tool definitions come from its `tools` column (JSON text: an
// array of definitions as package tooldef reads them; on the dialog's first
// row, or the same text on every row), from a JSON dialog object's "tools"
// key, or else from ReadOptions.Tools (`--tools FILE`); "tools": [] offers
// none. Each distinct text is parsed once. Every gold call is checked
// against the definitions (metrics.GoldConflicts): what it breaks is a
// finding, not an error (public schemas are written loosely; the gold is
// what the dataset's authors trust), listed on the dialog
// (Dialog.Conflicts, each a Conflict naming file, row or line, the field as
// the input spells it: gold_args.unit, turns[2].gold_turn.args.unit, the
// dialog, turn, rule, value and what the schema wanted). A gold that is
// malformed in itself (args that are not a JSON object, a bad $any spec)
// is still a row error. The writer stores a dialog's definitions on its
// first row.
//
// # Errors
//
// Every error caused by the data is a *badinput.RowError (file, row, line,
// field, problem, fix) wrapping badinput.ErrInvalid and one of: ErrInvalidRow
// for a bad row, ErrMissingColumn for schema problems, ErrUnsorted, and
// ErrCorrupt for files that cannot be decoded (a panic inside parquet-go is
// recovered and reported as corruption of the named file). A Parquet row and
// an element of a JSON array of turns are located by Row (0-based, DuckDB's
// file_row_number); a turn inside a JSON dialog object by Line and a JSON
// path in Field ("turns[2].gold_turn.args"). I/O errors and context
// cancellation are returned as they are.
//
// # Extras
//
// Reader.Extras lists the carried-through columns and Reader.ExtraSchema
// holds them with their original names and types; Dialog.Extra[i] holds turn
// i's values, numbered as ExtraSchema's leaf columns. To copy them into an
// output file, build its schema with ExtendSchema(name, base, extras) and
// each row with AppendExtra(baseRow, len(base.Columns()), d.Extra[i]).
//
// # Writing
//
// Create/Write write golden Parquet files (`aem import`, `aem gen`) with
// the Row schema, followed by extra columns when WriteOptions.Extras says
// (Import carries a Reader's): zstd, row groups of at most 64Ki rows, optional fields
// and lists, atomically (temporary file in the same directory, fsync,
// rename, directory fsync). Reading a written file gives the same dialogs.
//
// A Reader and a Writer are each for use by one goroutine.
package golden
