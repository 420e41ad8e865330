// Package bfcl reads the Berkeley Function Calling Leaderboard's data
// (question files, possible answers, model results) and turns each entry
// into a golden dialog with the tool definitions it offers, so that aem
// can score function-calling models on BFCL's questions and its verdicts
// can be checked against BFCL's own AST checker.
//
// The conversion follows BFCL's checker: a parameter's acceptable values
// become $any alternatives, "" among them $optional (except for parameters
// the definition requires, which the checker always requires), dict
// answers key by key; parallel categories' calls form one order-invariant
// block. The definitions are kept as BFCL wrote them: where an entry's own
// answer breaks them (a value of another type, outside the enum), aem
// reports the conflict and lets the gold win (metrics.GoldConflicts), as
// the checker reads it; a parameter the definition lacks that the answer
// marks optional is left out of the gold call (RepairDropped); entries
// whose answer can never pass the checker are left out (SkipError).
// Irrelevance entries become a Tool turn whose gold is "no call".
//
// ReadResults reads a model's BFCL result file as predictions. Perturb
// derives predictions from the answers in known ways (wrong type, missing
// required, case variants, ...) and WriteResults writes them as a result
// file: scripts/bench-bfcl has BFCL's checker (scripts/bfcl) and aem judge
// them, and TestAgreement re-checks aem against BFCL's recorded verdicts.
// `aem import --from bfcl` is the command-line front end.
package bfcl
