// Package review owns review.jsonl, the queue of uncertain comparisons that
// `aem review` hands to annotators and `aem sweep --labels` reads back:
// its item type, its one writer ([Write]), its one reader ([Read]) and its
// errors; and the selection ([Select]) and the labelling page
// ([WriteHTML]).
//
// # The file
//
// JSON Lines, one [Item] per line: the comparison's key (dialog_id,
// trial, turn_no, field, as in turns.parquet's field_scores), what an
// annotator needs to judge it (the kind and sub-metric, the tool and the
// descriptions of the tool and the parameter, the gold and predicted
// texts with their context, the score against its threshold and where
// that came from, the verdict, how many comparisons of the run share the
// same pair of texts), and the judgement: human_label (true, false, or
// null until judged), an optional human_score and a note. Every item
// carries "review": 1, the format's version, by which sweep recognises
// the file. Read checks the key, the version, the label and the score and
// refuses a comparison given twice; each refusal is a *badinput.RowError
// (exit status 3) naming the file, item, line and field.
//
// # Which comparisons
//
// Select reads turns.parquet once through package rundir. A
// candidate is a comparison a scorer decided (semantic, or a $any
// alternative compared semantically) whose deciding score (the first
// scorer's, under a judge) lies in Options.Band, or within Options.Near of
// its threshold. Candidates are grouped by (sub-metric, field path with
// array indices folded); items are taken round-robin over the groups,
// the largest first, and within a group the nearest to its threshold
// first, so that every group is represented before any gets a second
// item; a (gold, predicted) pair is exported once. At most Options.Limit
// items; each group keeps only its Limit nearest candidates while
// reading, so memory is bounded by groups times Limit.
package review
