// Package sweepio is the I/O side of `aem sweep`: it reads a run directory
// written by `aem run` (turns.parquet, summary.json) or a file of
// human-labelled text pairs, builds the input of the pure calibration in
// metrics/sweep, and writes the outputs: sweep.parquet (one row per
// candidate threshold and scope, with every figure), thresholds.json (the
// metrics.Thresholds file `aem run --thresholds` reads), summary.json, and
// a plot (sweep.png, sweep.svg) of precision, recall and F1 against the
// threshold with the chosen one marked, beside the ROC curve.
//
// # Which score a label calibrates
//
// A turn-level human_label says whether the whole turn is correct. Under
// one threshold t an action turn whose other checks pass is truthful
// exactly when its lowest semantic value score is >= t, so that lowest
// score is the turn's sample, filed under its sub-metric and field. A
// response turn passes when its reply similarity (truthfulness.response)
// and its coverage ("response.coverage", completeness.response) both do:
// a passing label is a sample of each, a failing one of the check the run
// failed (each, when both failed), or, when the run failed neither, of
// the one closest to failing (lowest score - threshold). Runs written
// before coverage hold clause similarities instead (completeness.clause),
// calibrated the same way. RunInfo.ClauseThreshold records the clause
// threshold the run's coverage was computed at.
// Turns whose verdict did not depend on the scorer are kept out of
// fitting, counted by reason in RunInfo.Excluded: turns with no semantic
// comparison (exact or typed matches only), and turns that failed a check
// the threshold cannot change (structure, missing or extra keys, typed or
// missing values). Every labelled turn still counts in the agreement of
// verdicts (Cohen's kappa of `pass` against human_label). human_score
// (graded) pairs with the same score for correlations.
//
// # Field labels
//
// A field is labelled either in a labels file (--labels FILE: JSON Lines,
// CSV, TSV or Parquet with columns dialog_id, turn_no, field, label and/or
// score, and trial for runs of repeated trials (a label names one trial's
// turn; empty for a dialog without trials); a row with an empty field
// labels the whole turn and overrides
// human_label/human_score) or in a field_labels column of the golden
// dataset, carried through into turns.parquet, holding a JSON object such
// as {"city": true, "date": false}. Field names are the paths of
// field_scores ("crm.find.city") or the same without "tool.action.". A
// field label's sample is that field's own score; when a turn has field
// labels they replace its turn-level sample in fitting (they are more
// precise), and its turn label still counts for agreement. A field label
// on a value compared without the scorer (exact, typed) is excluded. A
// label for a turn that is not in the run is an error (ErrUnknownTurn)
// unless RunOptions.IgnoreUnmatched; a label for a field the turn did not
// compare is an error (ErrUnknownField).
//
// # Pairs files
//
// ReadPairs reads JSON Lines, CSV/TSV with a header, or Parquet with
// text_a, text_b, label (1/0, true/false, pass/fail) and/or score, and an
// optional group column; and the STS Benchmark files (FormatSTSB:
// tab-separated, no header, no quote processing, fields genre, filename,
// year, id, score 0-5, sentence1, sentence2, trailing extra fields
// ignored), which FormatAuto recognises. ScorePairs scores them with any
// metrics.Scorer (the CLI passes the embedding scorer).
//
// Nothing here prints; all outputs are written atomically.
package sweepio
