// Package datasets holds the bundled example golden datasets (under
// example/) and the synthetic generator behind `aem gen`.
//
// Generate yields seeded, deterministic synthetic dialogs with the shape of
// real agent evaluations: 3-12 turns, response turns and chains of one to
// four tool calls, gold values drawn from Zipf-skewed pools (so values
// repeat, as they do in production traffic), predictions that are exact,
// paraphrased ("NYC" for "New York City") or wrong, wrong values carried
// into later turns of the chain (cascades), order-invariant blocks, missing
// and unexpected turns, and optional human labels and latencies. Replies are
// free text like real agents' replies: gold and predicted replies state the
// dialog's concrete facts (its values plus fresh numbers, dates, times and
// references) in varied wordings, so nearly every reply string is distinct
// (over 99% of gold replies at 100k turns, against about 0.1% of gold tool
// values) and a predicted reply is nearly always worded differently from
// gold. It streams: one dialog at a time, so millions of turns never sit in
// memory together.
//
// # Human labels: the annotation rubric
//
// With GenConfig.HumanLabels every scored turn gets the label a careful
// annotator would give, reading the gold turn and the prediction (rubric.go
// states it as code; the rubric tests check the generated data against it):
//
//   - A call is correct when it names the right tool and action, passes
//     exactly the parameters gold passes, and every value is gold's value or
//     another way to say it ("NYC" for "New York City", "coach" for
//     "economy", "turnover" for "revenue"). Another value (a different
//     city, metric, person, date or number) is wrong, and so is a call that
//     carries an earlier wrong value along: it does the wrong thing, however
//     faithfully it passes on what it got. In an order-invariant block the
//     calls may come in any order: each gold call is judged against the
//     prediction that performs it.
//   - A reply is correct when it states every fact of the gold reply with
//     the same values (numbers, amounts, dates, times, names, places,
//     codes, conditions), in any wording and order. Openers and sign-offs
//     that carry no task content ("Sure.", "Here is what I found.",
//     "Anything else?", "Let me know if you need more.") may differ or be
//     left out. A changed value is wrong, a fact left out is wrong, a reply
//     about the wrong topic (a wrong value from the calls before) is wrong.
//   - A missing turn and an unexpected extra call are wrong.
//
// Annotators disagree: GenConfig.LabelNoise (5% by default) of the labels
// are flipped, so no metric can agree with them on more than about 95% of
// turns. human_score is drawn in [0.75, 1] for a correct turn and [0, 0.4]
// for a wrong one. The rubric models people; it is never tuned to what the
// metric can see.
package datasets
