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
package datasets
