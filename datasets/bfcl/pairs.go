package bfcl

import (
	"cmp"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aem-dev/aem/metrics/values"
)

// Pair is one labelled pair of values of a parameter, for calibrating the
// similarity threshold of a value kind: BFCL's acceptable answers say
// which values mean the same (Label true) and which do not.
type Pair struct {
	Gold, Predicted string
	// Label is true when both values are acceptable answers to the same
	// question.
	Label bool
	// Kind is the gold value's kind, classified as aem run classifies it
	// (values.Classify with the parameter's name, type and format).
	Kind values.Kind
	// Group is the parameter (function.param): the unit kept whole in
	// cross-validation folds, so that no parameter is on both sides.
	Group string
	// Source says where the pair comes from: "alternatives" (two
	// acceptable values of one question), "other_question" (an acceptable
	// value of the same parameter in another question that this question
	// does not accept) or "enum" (another value the definition allows).
	Source string
	// Ref is the entry id and parameter, for messages.
	Ref string
}

// maxNegatives bounds the negatives drawn for one parameter of one entry
// from each source, so that parameters asked in many questions do not
// outweigh the rest.
const maxNegatives = 3

// Pairs derives labelled value pairs from entries with answers: for each
// string parameter of each expected call, its acceptable values paired
// with each other (positives), and with values that the question does not
// accept (negatives): the same parameter's acceptable values in other
// questions, and the other members of its enum. Only pairs that aem would
// hand to its scorer are kept: values of a kind that is held to a
// similarity threshold (values.Embedded) and left undecided by the kind's
// comparator (values.RuleNeedsEmbedding: not equal after the kind's
// normalisation, no known equivalence, no contradicted fact).
// Pairs are deterministic: sorted by group, then gold, then prediction.
func Pairs(entries []Entry) []Pair {
	type param struct{ fn, name string }
	accepted := map[param][][]string{} // per parameter: each entry's acceptable strings
	for _, e := range entries {
		for _, c := range e.Answers {
			for name, alts := range c.Params {
				accepted[param{c.Name, name}] = append(accepted[param{c.Name, name}], stringsOf(alts))
			}
		}
	}
	seen := map[[3]string]bool{}
	var out []Pair
	add := func(p Pair) {
		key := [3]string{p.Group, p.Gold, p.Predicted}
		if seen[key] {
			return
		}
		seen[key] = true
		out = append(out, p)
	}
	cmpr := values.Comparer{}
	for _, e := range entries {
		for _, c := range e.Answers {
			tool := e.Tools.Resolve(c.Name)
			for _, name := range slices.Sorted(maps.Keys(c.Params)) {
				alts := stringsOf(c.Params[name])
				if len(alts) == 0 {
					continue
				}
				s := tool.Param(name)
				h := values.Hints{Key: name}
				if s != nil {
					h.Type, h.Format = string(s.Type()), s.Format
				}
				gold := alts[0]
				kind := values.Classify(gold, h)
				keep := func(pred string, label bool, source string) {
					if !values.Embedded(kind) || cmpr.Compare(kind, gold, pred).Decided() {
						return
					}
					add(Pair{Gold: gold, Predicted: pred, Label: label, Kind: kind, Group: c.Name + "." + name, Source: source, Ref: e.ID + " " + name})
				}
				for _, a := range alts[1:] {
					keep(a, true, "alternatives")
				}
				var others []string
				for _, set := range accepted[param{c.Name, name}] {
					for _, v := range set {
						if !acceptable(v, alts) {
							others = append(others, v)
						}
					}
				}
				for _, v := range spread(others) {
					keep(v, false, "other_question")
				}
				if s != nil {
					var enum []string
					for _, v := range s.Enum {
						if str, ok := v.(string); ok && !acceptable(str, alts) {
							enum = append(enum, str)
						}
					}
					for _, v := range spread(enum) {
						keep(v, false, "enum")
					}
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Pair) int {
		return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Gold, b.Gold), strings.Compare(a.Predicted, b.Predicted))
	})
	return out
}

// WritePairs writes pairs as JSON Lines in the layout `aem sweep --pairs`
// reads: text_a (gold), text_b (predicted), label, kind, group, and the
// pair's source and ref for people.
func WritePairs(w io.Writer, pairs []Pair) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, p := range pairs {
		row := struct {
			TextA  string `json:"text_a"`
			TextB  string `json:"text_b"`
			Label  bool   `json:"label"`
			Kind   string `json:"kind"`
			Group  string `json:"group"`
			Source string `json:"source"`
			Ref    string `json:"ref"`
		}{p.Gold, p.Predicted, p.Label, string(p.Kind), p.Group, p.Source, p.Ref}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return nil
}

// stringsOf returns the non-empty strings among a parameter's acceptable
// values, in order, each once.
func stringsOf(alts []any) []string {
	var out []string
	for _, a := range alts {
		if s, ok := a.(string); ok && strings.TrimSpace(s) != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// acceptable reports whether v is among alts, ignoring case and
// surrounding space.
func acceptable(v string, alts []string) bool {
	v = strings.TrimSpace(v)
	return slices.ContainsFunc(alts, func(a string) bool { return strings.EqualFold(strings.TrimSpace(a), v) })
}

// spread returns up to maxNegatives distinct values of vs, sorted and
// evenly spaced, so that the choice does not depend on entry order.
func spread(vs []string) []string {
	slices.Sort(vs)
	vs = slices.Compact(vs)
	if len(vs) <= maxNegatives {
		return vs
	}
	out := make([]string, 0, maxNegatives)
	for i := range maxNegatives {
		out = append(out, vs[i*len(vs)/maxNegatives])
	}
	return out
}
