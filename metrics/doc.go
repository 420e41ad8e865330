// Package metrics implements the Agent Evaluation Metric (AEM): it decides
// each turn of a multi-turn agent conversation against its gold turn, names
// why a turn failed, separates root causes from cascades and composes one
// score per dialog. It is pure: no I/O, no Parquet, no ONNX. Batch reads
// turns, metrics decides their verdicts with a Scorer (implemented by embed, or
// Lexical), batch writes the verdicts.
//
// # One Metric, two phases
//
// New(cfg) validates a Config once and returns the Metric that decides
// with it; batch builds one per run (the CLI builds it from the flags).
// m.Requests(d) lists the semantic comparisons a dialog needs: each a
// Comparison naming its kind (value, reply, clause), field path and
// context besides the gold and predicted strings. A Scorer answers each
// with a Similarity (score, and who decided: "embed", "lexical", ...).
// m.Similarities asks the scorer for a whole batch of dialogs in one
// Compare call (deduplicated; batch uses it per chunk, so an embedding
// model gets full batches across dialogs), and m.Decide(d, sims, scorerID)
// decides one dialog from the answers. m.Evaluate does both. Identical
// strings never reach the scorer. m.Plan(dialogs) does the same two steps
// (Plan.Similarities, Plan.Decide) and keeps what does not depend on the
// answers (each reply's clauses, their weights, the anchors and names a
// prediction misses) from the first to the second instead of working it
// out again; batch decides each chunk through one.
//
// # Thresholds: one lookup, one comparison
//
// A semantic comparison passes when its score is >= its threshold. That
// comparison is written once, in decider.decide (turn.go); the coverage share
// of a reply, a different quantity, is held to completeness.response where
// it is computed. decide asks the
// resolved lookup Config.Thresholds (type Thresholds, For) for the
// comparison's threshold: the exact nested field path, then
// tool.action.param, then the value's kind (ThresholdQuery.Kind: "name",
// "category", ...; parameter values only: the slot of a per-kind default
// calibration), then the parameter's schema type (ThresholdQuery.Type,
// empty until tool definitions give it), then the sub-metric, then the
// global value. Every semantic FieldScore records the threshold applied,
// the entry it came from (ThresholdFrom) and who decided (By); a verdict
// records the threshold of the comparison that decided it (Verdict.Threshold).
//
// The route of --threshold from the command line to that comparison is
// four functions: cmd/aem's metricOptions.metric reads the flag (and
// whether it was given) and the --thresholds file; thresholds.Lookup
// resolves them into the Thresholds lookup; New validates it with the rest
// of the Config, once per run; decider.decide compares with it. batch
// carries the *Metric (batch.Options.Metric) without looking inside it.
//
// # Per-turn checks
//
// User turns are context and never scored. An action (Tool) turn is checked,
// in this order, on structure (tool_id, then action: tool_mismatch,
// action_mismatch), parseable arguments (unparseable_arguments),
// completeness of parameter keys (missing_parameters, extra_parameters,
// keys named and sorted; a gold `$optional` parameter may be left out) and
// truthfulness of parameter values (invalid_parameter_type, then
// inconsistent_parameter_values). Keys and values are compared even when
// structure fails, so every failing check is on record. A response (Agent)
// turn is checked on completeness (the prediction covers enough of the gold
// reply's task content, else incomplete_response: see Completeness below)
// and truthfulness (whole-reply similarity >= the truthfulness.response
// threshold, else inconsistent_response). A gold turn
// with no prediction is missing_turn; a prediction with no gold turn is
// unexpected_turn; both fail every sub-metric that applies to their kind.
// FailedChecks lists every failing check in the order of the Reason
// constants; the first is FailureReason.
//
// # Tool definitions
//
// A Dialog may carry the tool definitions it offered (Dialog.Tools, see
// package tooldef). Every way a gold call breaks its definition is a
// Conflict (GoldConflicts): a finding for the caller to report, not an
// error, for the gold wins there: the rule it breaks is not applied to the
// prediction at that field (the same tool nobody offered, the same unknown
// or missing key), while every other rule still is; where the gold breaks
// the type, the gold's type is the field's (a prediction of the declared
// type fails invalid_parameter_type there, as BFCL's checker reads its own
// answers; integers and other numbers alike). Action turns are checked with the schema, in this order of checks: a predicted tool the definitions do not offer is
// tool_mismatch (a FieldScore with method "not_offered" names it), and two
// names that find the same definition match ("." and "_" alike, tool.action
// or action alone); predicted arguments that are not a JSON object
// (Call.UnparsedArgs) fail unparseable_arguments and nothing else is
// compared; a gold parameter may be left out when gold marks it $optional
// or the schema does not require it and its default is the gold value; a
// predicted parameter gold leaves out is fine when it is an optional
// parameter given its default, else extra_parameters (both ways, and for
// the keys of nested objects, the verdict records a FieldScore with method
// "default"); a predicted value of
// a type its schema does not allow, at any depth (an integer fits number,
// except inside an array of BFCL's float; an integer is written without
// fraction or exponent), and below the top level an object without a key
// its schema requires or with one its schema closes, fails
// invalid_parameter_type (method "type" at the value's path, which the
// dialog's Reason names) instead of being compared, wherever it sits: an
// extra array element of a bad type fails the same way. Without
// definitions none of this applies and every gold key is required.
//
// A Tool turn with GoldNoCall says no tool should be called: it passes when
// no call is predicted and is unexpected_turn when one is.
//
// # Read-only calls
//
// A call is read-only when its definition says so (tooldef.Tool.ReadOnly,
// MCP's annotations.readOnlyHint) or Config.ReadOnlyTools names it
// (ReadOnlyCall). A Tool row one of whose sides is a read-only call and
// whose other side is absent (or gold's "no call") is context: its verdict
// is listed (Verdict.ReadOnly, Kind context, Pass, every sub-metric n/a)
// and never scored, counted or attributed (DialogResult.ContextTurns). A
// dialog with no scored turn but such context passes: no state-changing
// call was expected or made. A row pairing a read-only call with a
// state-changing one is checked as any row (package align never makes one).
//
// # Values
//
// Every gold value (a parameter, a nested field, an array element, an
// $any alternative) has a kind (package values): integer, decimal, money,
// percent, quantity, duration, date, time, datetime, weekday, month,
// identifier, email, URL, phone, address, language, country, currency,
// boolean, name, category (a short categorical token) or text.
// Thresholds.FieldKinds sets a field's kind; otherwise values.Classify
// reads it from the tool definition when there is one (an enum member or
// a value with a pattern is an identifier; a format names its kind), the
// key (order_id, email, phone, currency, country_code...) and the value
// itself. FieldScore.Kind records it. A predicted value is compared with
// the gold one by a chain:
//
//  1. exact: byte-equal strings or equal JSON scalars;
//  2. the kind's comparator (values.Comparer, with NumericTolerance),
//     no scorer call: numbers, money, percents, quantities, durations,
//     dates, times, weekdays, months, booleans and phone numbers by
//     parsed value (method parsed_equal or parsed_differs, unparsed when
//     the prediction does not read as the gold's kind: "$89.00" = "89
//     USD", "3pm" = "15:00", "2" = "two" = 2); identifiers, emails and
//     URLs after normalisation (normalized or differs); languages,
//     countries and currencies by code ("Spanish" = "es"); names and
//     categorical tokens after normalisation, then known equivalences
//     (equivalence: "NYC" = "New York City", "St." = "Street", "celsius"
//     = "C"); names, tokens and free text fail when a number, date, time
//     or code inside contradicts the gold's (contradicted). Two JSON
//     numbers, or two booleans, compare typed (numbers within the
//     tolerance |a-b| <= tol*max(1,|a|,|b|)); a scalar against a string
//     goes to the gold's kind (5 vs "five"); other type mismatches and
//     containers against scalars fail typed;
//  3. objects key by key and arrays index by index, recursively, with
//     field paths such as "tool.action.param.sub[0]";
//  4. $any alternatives: the value passes if any alternative matches by
//     this same chain; alternatives decided without the scorer are tried
//     first for all alternatives, so such a match never calls it;
//  5. semantic similarity, for what the kind's comparator leaves open
//     (names, categorical tokens, addresses, free text; languages,
//     countries and currencies that are no known code or name): score >=
//     threshold, the threshold of the value's field path, parameter, kind
//     (ThresholdQuery.Kind, Thresholds.Kinds), schema type or the
//     truthfulness.values sub-metric (see Thresholds above).
//
// Inside nested objects a missing gold key is recorded with method
// "missing" and an extra predicted key (or array element) with method
// "extra"; both fail truthfulness (only top-level keys are completeness).
// Arrays are ordered. A missing top-level key gets a "missing" FieldScore
// and is a completeness failure; extra top-level keys are listed in
// Verdict.ExtraKeys only. For $any the one FieldScore (method "any") holds
// the best alternative's score and, when the scorer was used, the
// threshold, entry and decider of that alternative's deciding comparison.
// Response turns record "response" (whole reply, threshold of
// truthfulness.response) and "response.coverage" (the covered share,
// threshold of completeness.response) in FieldScores, and every gold
// clause in Verdict.Clauses.
//
// # Completeness
//
// The gold reply is split into clauses (SplitClauses). Each clause is
// weighted by how much task content it carries (features.Vocabulary.Weight,
// from the Metric's vocabulary: WithVocabulary): every number, date, time,
// code or name it states weighs as much as the rarest word can, every
// other content word its inverse document frequency among the dataset's
// gold replies, and nothing weighs a function word of English, a word used
// by at least 10% of the gold replies (openers and sign-offs such as "Here
// is what I found.", "Let me know if you need more."), or a word or anchor
// the user said earlier in the dialog (a restated question). A clause of
// weight 0 is not required and never compared (method "not_required"). A
// required clause is compared with every predicted clause (Comparison kind
// clause, field "response.clause[i]", i counting every gold clause) and
// is covered when the best of them reaches the completeness.clause
// threshold (else the global one) and the predicted reply states every
// anchor of the clause (ClauseScore.MissingAnchors: a changed number is
// not covered, however similar the wording) and mentions every name of it
// by one of its words or an acronym (ClauseScore.MissingNames: "Deepak
// Rao" for "Alice Chen" is not covered), leaving out what the user stated
// first. The coverage is the covered clauses' weight over
// the required clauses' weight (1 when none is required), and the reply is
// complete when it reaches Thresholds.Coverage: the completeness.response
// entry, a share in [0, 1], else 1 (all required content).
//
// # Spec syntax in gold args
//
//	{"city": {"$any": ["NYC", "New York City"]}}
//	{"unit": {"$any": ["celsius"], "$optional": true}}
//
// An object holding "$any" or "$optional" is a spec. $any must be a
// non-empty array of plain values (objects inside may hold specs of their
// own); $optional must be a boolean, needs $any, and has no meaning inside
// an array; no other key may sit beside them. A malformed spec makes Decide
// return a *SpecError (errors.Is ErrBadSpec) naming dialog, turn and field.
//
// # Order-invariant blocks
//
// Turns tagged OrderInvariant_<group> with the same group form one block,
// wherever they sit in the dialog. Gold turns of a block are matched to its
// predicted turns (same role only) by an exact Hungarian assignment that
// maximises, lexicographically, passing turns, total match quality, matched
// pairs, then pairs left in identity order. Verdict.PredictTurnNo records
// the match; unmatched gold turns are missing_turn and unmatched
// predictions unexpected_turn (their TurnNo is the predicted row's).
//
// # Attribution
//
// Action chains: consecutive Tool turns form a chain until an Agent turn
// interrupts it; User turns do not interrupt. Every action verdict records
// its chain's length and bucket (single, two_step, three_plus).
//
// Under the "evidence" policy (default) a failed turn that gives depends_on
// (transitively, following turns that give it too) is a cascade of the
// earliest root among the failed turns it reaches, and a root cause if it
// reaches none; an empty depends_on means "depends on nothing". A turn
// without depends_on is a cascade when all its failed checks are value or
// response checks and every failing value repeats a wrong token of an
// earlier failed turn: a word its prediction has and its gold lacks (stop
// words aside), e.g. "profit" predicted where "revenue" was expected. So
// structure failures, missing/extra parameters and missing/unexpected turns
// are never inferred cascades. Under the "chain" policy depends_on and
// evidence are ignored: every failed action turn after the first failure of
// its chain is a cascade of that first failure; response turns are always
// root causes. A cascade keeps its own reason in OwnReason and FailedChecks
// (plus prior_action_failed); its FailureReason is prior_action_failed.
//
// # Composition
//
// SuccessRate is passed/scored, unweighted. Score follows the rule: mean
// (SuccessRate), weighted (Turn.Weight, nil = 1; all-zero weights fall back
// to SuccessRate) or gating (SuccessRate, capped at GateCap when a Critical
// turn fails). TestPass needs Score >= PassScore (1.0 by default: every turn
// must pass) and every MinRates entry met. A dialog with no scored turns
// has SuccessRate 0, Score 0, TestPass false and Label "fail": an empty test
// never passes silently.
package metrics
