// Package features measures lexical evidence about a (gold, predicted)
// text pair, the evidence a sentence-embedding cosine cannot see: which
// words, characters and word pairs the texts share, whether the shared
// words come in the same order, whether the numbers, dates, codes or names
// they state differ, whether one negates what the other asserts, and how
// their lengths compare. Extract turns a pair and its embedding cosine
// into the feature vector the composite scorer (package composite) is
// fitted on and applied to.
//
// It also finds the anchors a reply's completeness rests on (Anchors: the
// numbers, dates, times, quarters and codes a text states, normalised so
// that "$4.5M" equals "4,500,000" and "June 14, 2024" equals
// "2024-06-14"), the names one text has and another does not mention
// (MissingNames), and weighs how informative a clause is (Vocabulary).
//
// Everything here is pure, deterministic and safe for concurrent use.
package features
