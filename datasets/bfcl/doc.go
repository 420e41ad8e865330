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
// block. Where an entry's own answer breaks its definition (a value of
// another type, outside the enum), the definition is widened the way the
// checker reads it (Repair); entries whose answer can never pass the
// checker are left out (SkipError).
package bfcl
