package golden

import "fmt"

// MaxLatencyMS is the largest latency_ms a turn may have: 1e12 ms, about
// 31 years. A dialog's latency is the sum of its turns', so with every
// turn below it the sum stays finite however long the dialog (a sum of
// turns near the largest double was +Inf, which no JSON reader of the
// outputs accepts); a larger value is a unit mistake (nanoseconds).
const MaxLatencyMS = 1e12

// latencyFix is the fix of a latency validate refuses.
const latencyFix = "use a latency in milliseconds from 0 to 1e12 (about 31 years), or null"

// DefaultMaxFieldBytes is the largest text value a row may hold unless
// ReadOptions.MaxFieldBytes says otherwise: 1 MiB, hundreds of times a
// long reply or a call's arguments. Scoring costs grow faster than a
// value's size (a reply's clauses are compared pairwise: a 1 MiB reply
// takes about 30 s with the lexical scorer, 4 MiB seven minutes) and the
// outputs hold a value several times over (clauses, field scores), so a
// larger value is refused where it is read, naming file, row and field,
// before it costs anything: it is a whole log or file in one cell, not a
// turn to judge.
const DefaultMaxFieldBytes = 1 << 20

// fieldLimit is the limit of ReadOptions.MaxFieldBytes: 0 is the default,
// a negative value none.
func fieldLimit(n int) int {
	switch {
	case n == 0:
		return DefaultMaxFieldBytes
	case n < 0:
		return 0
	}
	return n
}

// checkSizes refuses a text value of rec longer than limit bytes (0: no
// limit): the first found, in column order. A value its reader shortened
// is measured by the length it had (record.shortened).
func checkSizes(rec *record, limit int) *invalid {
	if limit <= 0 {
		return nil
	}
	type text struct {
		key textKey
		v   opt[string]
	}
	values := []text{
		{textKey{col: ColDialogID}, rec.dialogID}, {textKey{col: ColTurn}, rec.role},
		{textKey{col: ColGoldResponse}, rec.gold.response}, {textKey{col: ColGoldToolID}, rec.gold.toolID},
		{textKey{col: ColGoldAction}, rec.gold.action}, {textKey{col: ColGoldArgs}, rec.gold.args},
		{textKey{col: ColPredictResponse}, rec.predict.response}, {textKey{col: ColPredictToolID}, rec.predict.toolID},
		{textKey{col: ColPredictAction}, rec.predict.action}, {textKey{col: ColPredictArgs}, rec.predict.args},
		{textKey{col: ColTools}, rec.tools},
	}
	for i, t := range rec.tags {
		values = append(values, text{textKey{ColTags, i}, some(t)})
	}
	for _, f := range values {
		n := len(f.v.v)
		if short, ok := rec.shortened[f.key]; ok {
			n = short
		}
		if f.v.ok && n > limit {
			return &invalid{col: f.key.col,
				problem: fmt.Sprintf("%s is %d bytes, over the limit of %d bytes a field may hold", f.key.col, n, limit),
				fix:     "check the step that wrote it (a whole log or file in one cell?), or raise --max-field-bytes (0: no limit) if the value is meant"}
		}
	}
	return nil
}
