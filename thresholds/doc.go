// Package thresholds owns thresholds.json, the file `aem sweep` writes and
// `aem run --thresholds` reads: one strict reader (Read, Decode), one
// writer (Write, Encode). Refusals are the team's *badinput.RowError (Field
// is the key's JSON path) matching both badinput.ErrInvalid and ErrInvalid.
//
// The layout (version 4; older files, without the keys later versions added
// and, in version 1, with an informative "model", are still read):
//
//	{"version": 4,
//	 "threshold": 0.5,
//	 "sub_metrics": {"truthfulness.values": 0.75, "truthfulness.response": 0.6, "completeness.response": 0.55},
//	 "kinds": {"name": 0.8, "category": 0.75},
//	 "types": {"string": 0.8},
//	 "fields": {"sales_db.aggregate.metric": 0.85},
//	 "field_kinds": {"crm.lookup.ref": "text"},
//	 "embedding_model": {"id": "use-lite", "sha256": "..."},
//	 "judge_band": {"low": 0.35, "high": 0.8, "composite": {"low": 0.2, "high": 0.8}},
//	 "source": "aem sweep out/run (objective f1)"}
//
// judge_band is where --scorer embed+judge asks its judge: the similarity
// scores from low to high, bounds included, and, under "composite", the
// fitted composite's probabilities (optional). The metric does not read
// it; aem run gives it to the scorer.
//
// Every threshold is a number in [-1, 1]; 0 is a threshold like any
// other. Decode refuses, naming the key and the fix: anything but one JSON
// object, a duplicate key, a null, a key the version does not know (at any
// depth), a missing or unknown version (a newer one included), a value of
// the wrong type, a number out of range or not finite, an unknown
// sub-metric or schema type, a field key that is not tool.action.param[...],
// a judge_band missing a bound, out of range ([-1, 1] for the similarity,
// [0, 1] for the composite's probability) or with low above high.
// The value rules are metrics.Thresholds.Problems, so a file and a
// programmatic configuration are held to the same ones.
//
// Lookup resolves a file and the --threshold flag into the
// metrics.Thresholds the metric consults: the file's sub-metric, type and
// field entries always apply; the global threshold is the flag's when the
// user gave it (on the command line or as AEM_THRESHOLD) or when the file
// has none, and the file's otherwise. CheckScorer refuses a file fitted
// with another embedding model than the run's.
//
// Extension point: the fitted composite scorer (issue #11, key
// "composite") is a field of File added by its owner; see File for the
// steps.
package thresholds
