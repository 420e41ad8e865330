// Package align joins a gold dialog with an agent's predicted steps (read
// from chat logs or traces): it decides which predicted call or reply
// answers which gold turn, and builds the metrics.Dialog that the metric
// scores. Pure: no I/O.
//
// # The alignment
//
// Gold turns are matched to the predicted sequence by an optimal
// alignment (a Needleman–Wunsch style dynamic programme), not position by
// position: one extra call leaves every later turn matched to its own
// prediction. The objective is lexicographic, so a lower tier never
// outweighs a higher one:
//
//  1. the number of pairs that agree on the tool and action (calls), or
//     reply against reply;
//  2. the number of pairs that agree on the tool only;
//  3. the number of other same-kind pairs (a different tool called at the
//     gold call's place, judged as tool_mismatch rather than a missing and
//     an unexpected turn) — in strict and unordered modes only;
//  4. the quality of the pairs: for calls, the share of gold arguments the
//     prediction gives with the same value and the overlap of argument
//     keys; for replies, their lexical similarity
//     (metrics.LexicalSimilarity).
//
// Ties go to the earlier prediction. A call never pairs with a reply.
//
// User turns bound the alignment: when the gold has User turns and the
// predictions carry the user's messages (steps of Role User, which are no
// predictions), the k-th user message stands for the k-th gold User turn,
// and a gold turn can be matched only by a step made after the same user
// message and before the next one; steps after the last user message the
// predictions carry may answer the gold's remaining user turns, and user
// messages beyond the gold's belong to its last one (type bounds). A
// joined row with no gold records the user turn it was made in
// (metrics.Turn.UserTurn). Gold
// turns tagged OrderInvariant_<group> form a block that is matched as a
// unit to a window of consecutive predictions (at most the block's size
// plus two) in any order, by an exact assignment; the metric then
// re-assigns inside the block by the verdicts (see metrics). User turns are
// context: kept, never matched.
//
// # Match modes (the names of LangChain's agentevals)
//
//   - strict (default): every gold turn is matched or missing_turn, every
//     predicted call is matched or unexpected_turn, in order;
//   - superset: the prediction may make extra calls (gold lists only the
//     calls that matter, as τ-bench does): unmatched predictions are
//     dropped, unmatched gold turns are missing_turn;
//   - subset: the prediction may leave gold calls out: unmatched gold turns
//     are dropped (not scored), unmatched predictions are unexpected_turn;
//   - unordered: like strict, but the order of the predictions does not
//     matter (one assignment over the whole dialog).
//
// Predictions of tools named in Options.IgnoreTools (by function name or
// resolved tool id) are dropped before aligning. Read-only calls
// (metrics.ReadOnlyCall: by their definition, or Options.ReadOnlyTools),
// gold and predicted, are aligned apart from the rest, among themselves,
// in any order and by tool, whatever the mode, and every one is kept
// (Joined.ReadOnly lists the predicted ones): the metric lists them as
// context, never missing or unexpected; a read-only call never takes a
// state-changing call's place. When the gold dialog has
// no reply turns, predicted replies are context: dropped, never
// unexpected.
//
// # Function names to tool_id and action
//
// A predicted function name becomes tool_id and action by the first rule
// that applies (Naming.Resolve):
//
//  1. an explicit mapping (Naming.Map, from --map-tools name=tool.action);
//  2. the name joins a gold call's tool_id and action of this dialog with
//     ".", "__", "/", ":", "_" or "-" (sales_db.aggregate, sales_db__aggregate);
//  3. the name starts with a gold tool_id of this dialog that uses actions
//     other than "call", followed by one of those separators: that tool,
//     and the rest as the action (sales_db.filter: an action_mismatch
//     rather than a tool_mismatch);
//  4. otherwise the naming rule: tool_id = the name and action = "call"
//     (metrics.FunctionCall).
//
// # Numbering
//
// Joined rows keep the gold turn numbers, so the same gold turn has the
// same turn_no in every release (compare pairs on it). An unexpected
// prediction is numbered after the gold turns: the largest gold turn_no
// plus its 1-based position in the agent's sequence (the user's messages
// left out).
package align
