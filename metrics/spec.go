package metrics

import (
	"fmt"
	"strconv"
)

// Spec keys recognised in gold args. A JSON object holding "$any" or
// "$optional" is a spec, not a plain value:
//
//	{"city": {"$any": ["NYC", "New York City"]}}           // any alternative passes
//	{"unit": {"$any": ["celsius"], "$optional": true}}     // may be left out
const (
	SpecAny      = "$any"
	SpecOptional = "$optional"
)

// spec is a parsed, valid alternatives spec.
type spec struct {
	alts     []any
	optional bool
}

// isSpecObject reports whether v is an object that claims to be a spec.
func isSpecObject(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasAny := m[SpecAny]
	_, hasOpt := m[SpecOptional]
	return hasAny || hasOpt
}

// parseSpec parses a spec object; problem is non-empty when it is malformed.
func parseSpec(m map[string]any) (sp spec, problem string) {
	for _, k := range sortedKeys(m) {
		if k != SpecAny && k != SpecOptional {
			return sp, fmt.Sprintf("unknown key %q beside $any: a spec holds only $any and $optional", k)
		}
	}
	if raw, ok := m[SpecOptional]; ok {
		b, isBool := raw.(bool)
		if !isBool {
			return sp, "$optional must be true or false"
		}
		sp.optional = b
	}
	raw, ok := m[SpecAny]
	if !ok {
		return sp, "$optional needs $any listing the accepted values, e.g. {\"$any\": [\"celsius\"], \"$optional\": true}"
	}
	alts, isList := raw.([]any)
	if !isList {
		return sp, "$any must be a JSON array of alternatives"
	}
	if len(alts) == 0 {
		return sp, "$any must list at least one alternative"
	}
	for i, a := range alts {
		if isSpecObject(a) {
			return sp, fmt.Sprintf("$any alternative %d is itself a spec: list plain values", i)
		}
	}
	sp.alts = alts
	return sp, ""
}

// specOf returns the spec v holds, if it is a valid one.
func specOf(v any) (spec, bool) {
	m, ok := v.(map[string]any)
	if !ok || !isSpecObject(m) {
		return spec{}, false
	}
	sp, problem := parseSpec(m)
	return sp, problem == ""
}

// ValidateGoldArgs checks every `$any` / `$optional` spec in gold args,
// however deeply nested, and returns a *SpecError (matching ErrBadSpec) for
// the first malformed one in key order. Batch may call it to report the row;
// Decide calls it for every gold action turn.
func ValidateGoldArgs(args map[string]any) error {
	for _, k := range sortedKeys(args) {
		if err := validateSpecValue(k, args[k], false); err != nil {
			return err
		}
	}
	return nil
}

func validateSpecValue(path string, v any, inArray bool) error {
	switch x := v.(type) {
	case map[string]any:
		if isSpecObject(x) {
			return validateSpecObject(path, x, inArray)
		}
		for _, k := range sortedKeys(x) {
			if err := validateSpecValue(path+"."+k, x[k], false); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range x {
			if err := validateSpecValue(path+"["+strconv.Itoa(i)+"]", e, true); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateSpecObject(path string, m map[string]any, inArray bool) error {
	sp, problem := parseSpec(m)
	if problem != "" {
		return &SpecError{Field: path, Problem: problem}
	}
	if sp.optional && inArray {
		return &SpecError{Field: path, Problem: "$optional has no meaning inside an array: remove it"}
	}
	for i, a := range sp.alts {
		if err := validateSpecValue(fmt.Sprintf("%s.$any[%d]", path, i), a, false); err != nil {
			return err
		}
	}
	return nil
}
