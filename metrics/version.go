package metrics

// Version is the metric version: it names the rules that decide verdicts
// (the checks, the value chain, attribution, composition) and the shipped
// defaults they use. Every run records it (summary.json's
// metric_version); `aem compare` refuses runs of different versions unless
// told --allow-mismatch, a resume refuses a checkpoint of another version,
// and a merge refuses shards of different versions, so a score history
// never silently changes meaning.
//
// Versions (the README's "Metric versions" says more):
//
//	1  rounds 1 and 2: every string that is not an exact or normalized
//	   match is decided by one similarity threshold (0.5 by default).
//	   Runs written before versions were recorded read as 1.
//	2  round 3: values are compared by kind (numbers, dates, identifiers,
//	   names, ...), replies that contradict a gold fact fail, gold/schema
//	   conflicts are findings, read-only calls are context.
//	3  round 3, second landing: country names read by their current code
//	   ("Germany" is DE; version 2 read it as the withdrawn DD), US states
//	   and Canadian provinces by postal code, a word swapped for its
//	   antonym in a short reply clause contradicts it ("approved" /
//	   "denied"), a categorical token that repeats its key's words is the
//	   token ("Premium plan" for "premium" under "plan"); sizes ("M",
//	   "medium"), yes and no as words ("yes", "true"), common short forms
//	   ("asc"), articles before a unit ("half an hour"), dozens, a day
//	   before its month ("3 June") and frequencies ("every week") are
//	   read; an identifier may follow its key's words ("Gate B12") and a
//	   version its "v"; ordinals ("3rd", "third") are read, and a word
//	   may be written short ("auto"); names with the same main part are
//	   decided by their qualifiers ("Austin, TX" = "Austin, Texas"). In replies, email addresses and
//	   frequencies are facts, and an amount of money keeps its currency
//	   ("$84.20" contradicts "€84.20").
//
// TestVersionPinsVerdicts fails when the verdicts of a fixed corpus change:
// a change of meaning then bumps Version (once between releases) and
// updates the pin.
const Version = 3

// VersionUnrecorded is the version of runs written before summary.json
// recorded one.
const VersionUnrecorded = 1
