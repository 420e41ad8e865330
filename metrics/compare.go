package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics/values"
	"github.com/aem-dev/aem/tooldef"
)

// Comparison methods recorded in FieldScore.Method.
const (
	MethodExact      = "exact"      // byte-equal strings or equal scalars: no scorer call
	MethodNormalized = "normalized" // equal after the kind's normalisation (case, white space, a code's hyphens): no scorer call
	MethodTyped      = "typed"      // JSON numbers with tolerance, booleans, null, type mismatches
	MethodAny        = "any"        // compared against $any alternatives
	MethodSemantic   = "semantic"   // similarity score against a threshold (the kind's rules left it open)
	MethodMissing    = "missing"    // gold value absent from the prediction
	MethodExtra      = "extra"      // predicted value with no gold counterpart (extra key or array element)
	MethodCoverage   = "coverage"   // a reply's covered share of its gold's required content (response.coverage)
	// MethodNotRequired is a gold clause with no task content: never
	// compared, not required for completeness.
	MethodNotRequired = "not_required"
	// Decided by the value's kind (FieldScore.Kind; package values), no
	// scorer call:
	MethodParsedEqual   = string(values.RuleParsedEqual)   // both parsed as the kind (a number, date, phone...), equal
	MethodParsedDiffers = string(values.RuleParsedDiffers) // both parsed as the kind, different
	MethodUnparsed      = string(values.RuleUnparsed)      // the prediction does not read as the gold's kind
	MethodDiffers       = string(values.RuleDiffers)       // an identifier, email or URL that differs after normalisation
	MethodEquivalence   = string(values.RuleEquivalence)   // a known equivalence: "NYC" for "New York City", "St." for "Street"
	// MethodContradicted is a hard fact (a number, date, time, code,
	// name or polarity) of a prediction that contradicts the gold's: in a
	// value, or in a reply (Field "response.fact(<kind>)" with both facts).
	MethodContradicted = string(values.RuleContradicted)
	// With tool definitions:
	MethodType        = "type"        // predicted value of a type its schema does not allow: invalid_parameter_type
	MethodNotOffered  = "not_offered" // predicted tool not among the definitions (Field names it): tool_mismatch
	MethodUnparseable = "unparseable" // predicted arguments that are not a JSON object: unparseable_arguments
)

// simFunc answers one semantic comparison (from the scorer's answers, or
// recording the question in Requests).
type simFunc func(Comparison) (Similarity, error)

// valueDiff is a failing value, kept for cascade evidence.
type valueDiff struct {
	gold []string // gold text; every alternative for $any
	pred string
}

// param is the top-level parameter a value belongs to: its path
// "tool.action.param" and its schema type for the thresholds lookup, and
// what its tool definition says about it for the scorer (Comparison.Context).
type param struct {
	path, schemaType, context string
}

// paramOf describes parameter k (at path) of tool (nil without tool
// definitions). Its schema type is the one type the schema allows besides
// null ("string" for "string|null"), "" when it allows several or any. Its
// context is the tool's description and the parameter's, when given.
func paramOf(tool *tooldef.Tool, path, k string) param {
	p := param{path: path}
	s := tool.Param(k)
	if s == nil {
		return p
	}
	p.schemaType = oneType(s.Types)
	var ctx []string
	if tool.Description != "" {
		ctx = append(ctx, tool.Name+": "+tool.Description)
	}
	if s.Description != "" {
		ctx = append(ctx, k+": "+s.Description)
	}
	p.context = strings.Join(ctx, "\n")
	return p
}

// comparer walks gold and predicted values, recording a FieldScore per leaf.
type comparer struct {
	j      *decider
	scores []FieldScore
	diffs  []valueDiff
	// badType holds the paths of predicted values of a type their schema
	// does not allow: they fail with MethodType instead of being compared.
	badType map[string]string
	// tool is the gold call's definition (nil without tool definitions) and
	// base the path prefix of its arguments ("tool.action").
	tool *tooldef.Tool
	base string
}

func (c *comparer) scratch() *comparer {
	return &comparer{j: c.j, badType: c.badType, tool: c.tool, base: c.base}
}

// schemaOf is the schema of the value at path; nil without definitions.
func (c *comparer) schemaOf(path string) *tooldef.Schema {
	if c.tool == nil {
		return nil
	}
	return schemaAt(c.tool, strings.TrimPrefix(path, c.base+"."))
}

// kindOf is the kind of gold value gold at path, of parameter p: the one
// Thresholds.FieldKinds sets for the path or its parameter, else
// values.Classify's, from the value's schema (with tool definitions) and
// its key.
func (c *comparer) kindOf(path string, p param, gold any) values.Kind {
	if k, ok := c.j.cfg.Thresholds.KindFor(path, p.path); ok {
		return k
	}
	switch gold.(type) {
	case string, json.Number, bool: // comparable: a Plan keeps their kinds
	default:
		return c.classify(path, gold)
	}
	key := kindKey{path, gold}
	if k, ok := c.j.plan.kind(key); ok {
		return k
	}
	k := c.classify(path, gold)
	c.j.plan.keepKind(key, k)
	return k
}

// classify gives a gold value its kind from its schema, key and itself.
func (c *comparer) classify(path string, gold any) values.Kind {
	h := values.Hints{Key: lastKey(path)}
	if s := c.schemaOf(path); s != nil {
		h.Enum, h.Format, h.Pattern, h.Type = s.Enum != nil, s.Format, s.Pattern, oneType(s.Types)
	}
	return values.Classify(gold, h)
}

// oneType is the one type types allows besides null, "" when it allows
// several or any.
func oneType(types []tooldef.Type) string {
	one := ""
	for _, t := range types {
		switch {
		case t == tooldef.Null:
		case one != "":
			return ""
		default:
			one = string(t)
		}
	}
	return one
}

// allPass reports whether every recorded comparison passed.
func (c *comparer) allPass() bool {
	for _, s := range c.scores {
		if !s.Pass {
			return false
		}
	}
	return true
}

// meanScore is the mean recorded score, clamped to [0,1]; 1 when none.
func (c *comparer) meanScore() float64 {
	if len(c.scores) == 0 {
		return 1
	}
	sum := 0.0
	for _, s := range c.scores {
		sum += clamp01(s.Score)
	}
	return sum / float64(len(c.scores))
}

// add records a compared value; a failing one is kept as cascade evidence.
func (c *comparer) add(fs FieldScore, gold, pred any) {
	c.scores = append(c.scores, fs)
	if !fs.Pass {
		c.diffs = append(c.diffs, valueDiff{gold: []string{valueText(gold)}, pred: valueText(pred)})
	}
}

// record adds a value decided without the scorer; kind is the gold
// value's ("" for none).
func (c *comparer) record(path, method string, kind values.Kind, pass bool, gold, pred any) {
	c.add(FieldScore{Field: path, Method: method, Kind: string(kind), Score: b2f(pass), Pass: pass}, gold, pred)
}

// decided records a value the kind's comparator decided.
func (c *comparer) decided(path string, v values.Ruling, gold, pred any) {
	method := string(v.Rule)
	if v.Rule == values.RuleExact {
		method = MethodExact
	}
	c.record(path, method, v.Kind, v.Pass, gold, pred)
}

// value compares gold with pred through the chain: exact, typed, $any,
// semantic (strings only, when semantic is true).
func (c *comparer) value(path string, p param, gold, pred any, semantic bool) error {
	if _, bad := c.badType[path]; bad {
		c.record(path, MethodType, c.kindOf(path, p, gold), false, gold, pred)
		return nil
	}
	if sp, ok := specOf(gold); ok {
		return c.anyOf(path, p, sp.alts, pred, semantic)
	}
	switch g := gold.(type) {
	case map[string]any:
		if pm, ok := pred.(map[string]any); ok {
			return c.object(path, p, g, pm, semantic)
		}
	case []any:
		if pa, ok := pred.([]any); ok {
			return c.array(path, p, g, pa, semantic)
		}
	case string:
		if ps, ok := pred.(string); ok {
			return c.text(path, p, g, ps, semantic)
		}
	}
	c.scalar(path, p, gold, pred)
	return nil
}

// text compares two strings: the gold value's kind decides (package
// values) where it can; what it leaves open (names, categorical tokens,
// addresses, free text) goes to the scorer when semantic is true, held
// to the threshold of the value's field, parameter, kind, schema type or
// sub-metric, and fails otherwise.
func (c *comparer) text(path string, p param, gold, pred string, semantic bool) error {
	k := c.kindOf(path, p, gold)
	if v := c.j.compareKind(lastKey(path), k, gold, pred); v.Decided() {
		c.decided(path, v, gold, pred)
		return nil
	}
	if !semantic {
		c.record(path, MethodTyped, k, false, gold, pred)
		return nil
	}
	s, err := c.j.sim(Comparison{Kind: CompareValue, Field: path, Context: p.context, ValueKind: string(k), Gold: gold, Predicted: pred})
	if err != nil {
		return fmt.Errorf("field %s: %w", path, err)
	}
	q := ThresholdQuery{SubMetric: SubTruthValues, Field: path, Param: p.path, Type: p.schemaType, Kind: string(k)}
	fs := c.j.decide(path, q, s)
	fs.Kind = string(k)
	c.add(fs, gold, pred)
	return nil
}

// scalar compares everything that is neither string-vs-string nor two
// containers: equal scalars are exact; two JSON numbers or booleans
// compare typed (numbers within the tolerance); a scalar against a string
// goes to the gold value's kind ("two" for 2, "yes" for true, 89 for
// "$89.00"); the rest fails typed.
func (c *comparer) scalar(path string, p param, gold, pred any) {
	k := c.kindOf(path, p, gold)
	if exactScalar(gold, pred) {
		c.record(path, MethodExact, k, true, gold, pred)
		return
	}
	if text, ok := scalarText(gold, pred); ok {
		if v := c.j.compareKind(lastKey(path), k, text[0], text[1]); v.Decided() {
			if v.Rule == values.RuleExact {
				v.Rule = values.RuleParsedEqual // the same text in two JSON types: "5" for 5
			}
			c.decided(path, v, gold, pred)
			return
		}
	}
	c.record(path, MethodTyped, k, typedEqual(gold, pred, c.j.cfg.NumericTolerance), gold, pred)
}

// scalarText writes a scalar and a string (either way round) as two
// strings for the kind's comparator; ok is false for two non-strings,
// containers and null.
func scalarText(gold, pred any) ([2]string, bool) {
	_, gs := gold.(string)
	_, ps := pred.(string)
	if gs == ps || !isTextScalar(gold) || !isTextScalar(pred) {
		return [2]string{}, false
	}
	return [2]string{valueText(gold), valueText(pred)}, true
}

func isTextScalar(v any) bool {
	switch v.(type) {
	case string, bool, json.Number, float64:
		return true
	}
	return false
}

func (c *comparer) object(path string, p param, g, pm map[string]any, semantic bool) error {
	if len(g) == 0 && len(pm) == 0 {
		c.record(path, MethodExact, "", true, g, pm)
		return nil
	}
	for _, k := range sortedKeys(g) {
		pv, present := pm[k]
		if !present {
			if sp, ok := specOf(g[k]); (!ok || !sp.optional) && !c.nestedDefault(path, k, g[k], nil, true) {
				c.record(path+"."+k, MethodMissing, c.kindOf(path+"."+k, p, g[k]), false, g[k], "")
			}
			continue
		}
		if err := c.value(path+"."+k, p, g[k], pv, semantic); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(pm) {
		if _, inGold := g[k]; !inGold && !c.nestedDefault(path, k, nil, pm[k], false) {
			c.record(path+"."+k, MethodExtra, "", false, nil, pm[k])
		}
	}
	return nil
}

func (c *comparer) array(path string, p param, g, pa []any, semantic bool) error {
	if len(g) == 0 && len(pa) == 0 {
		c.record(path, MethodExact, "", true, g, pa)
		return nil
	}
	for i := range max(len(g), len(pa)) {
		at := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case i >= len(pa):
			c.record(at, MethodMissing, c.kindOf(at, p, g[i]), false, g[i], "")
		case i >= len(g):
			c.record(at, MethodExtra, "", false, nil, pa[i])
		default:
			if err := c.value(at, p, g[i], pa[i], semantic); err != nil {
				return err
			}
		}
	}
	return nil
}

// anyOf passes when any alternative matches. Exact and typed matches are
// tried first for every alternative, so a literal match never calls the
// scorer; otherwise every alternative is compared with the full chain and
// the best (passing first, then highest score) is recorded, with the
// threshold and decider of its deciding comparison (see deciding) when
// the scorer took part.
func (c *comparer) anyOf(path string, p param, alts []any, pred any, semantic bool) error {
	for _, a := range alts {
		sub := c.scratch()
		if err := sub.value(path, p, a, pred, false); err != nil {
			return err
		}
		if sub.allPass() {
			c.scores = append(c.scores, FieldScore{Field: path, Method: MethodAny, Kind: kindOfScores(sub.scores), Score: 1, Pass: true})
			return nil
		}
	}
	best := FieldScore{Field: path, Method: MethodAny, Kind: string(c.kindOf(path, p, alts[0])), Score: math.Inf(-1)}
	if semantic {
		for _, a := range alts {
			sub := c.scratch()
			if err := sub.value(path, p, a, pred, true); err != nil {
				return err
			}
			pass, score := sub.allPass(), sub.meanScore()
			if (pass && !best.Pass) || (pass == best.Pass && score > best.Score) {
				d, _ := deciding(sub.scores)
				best = FieldScore{Field: path, Method: MethodAny, Kind: kindOfScores(sub.scores), Score: score, Threshold: d.Threshold,
					ThresholdFrom: d.ThresholdFrom, By: d.By, Judge: d.Judge, Cosine: d.Cosine, Pass: pass}
			}
		}
	}
	best.Score = max(best.Score, 0)
	c.scores = append(c.scores, best)
	if !best.Pass {
		gold := make([]string, len(alts))
		for i, a := range alts {
			gold[i] = valueText(a)
		}
		c.diffs = append(c.diffs, valueDiff{gold: gold, pred: valueText(pred)})
	}
	return nil
}

// kindOfScores is the kind of an alternative's one value, "" when it has
// several (an object or an array).
func kindOfScores(scores []FieldScore) string {
	if len(scores) == 1 {
		return scores[0].Kind
	}
	return ""
}

// deciding returns the similarity comparison among scores (and, for a
// reply, among its required clauses) that was held to a threshold with the
// lowest score - threshold: the failing one, else the narrowest pass. A
// reply's coverage is a share, not a similarity, and is left out.
func deciding(scores []FieldScore, clauses ...ClauseScore) (fs FieldScore, ok bool) {
	consider := func(s FieldScore) {
		if s.ThresholdFrom != "" && s.Method != MethodCoverage && (!ok || s.Score-s.Threshold < fs.Score-fs.Threshold) {
			fs, ok = s, true
		}
	}
	for _, s := range scores {
		consider(s)
	}
	for _, c := range clauses {
		if c.Required {
			consider(c.FieldScore)
		}
	}
	return fs, ok
}

// exactScalar reports byte-for-byte equality of two JSON scalars.
func exactScalar(gold, pred any) bool {
	switch g := gold.(type) {
	case nil:
		return pred == nil
	case bool, string:
		return gold == pred
	case json.Number:
		p, ok := pred.(json.Number)
		return ok && g == p
	}
	return false
}

// typedEqual compares two values of possibly different JSON types.
// Numbers compare numerically within tolerance; a string on one side and a
// number on the other compare numerically when the string parses as a
// number ("5" vs 5 passes); a string compares with a boolean when it is
// "true" or "false" (any case). Everything else that is not exactly equal
// fails (including containers against scalars).
func typedEqual(gold, pred any, tol float64) bool {
	gn, gIsNum := numberOf(gold)
	pn, pIsNum := numberOf(pred)
	if gIsNum || pIsNum {
		if !gIsNum {
			gn, gIsNum = parseNumber(gold)
		}
		if !pIsNum {
			pn, pIsNum = parseNumber(pred)
		}
		return gIsNum && pIsNum && numbersClose(gn, pn, tol)
	}
	gb, gIsBool := gold.(bool)
	pb, pIsBool := pred.(bool)
	if gIsBool || pIsBool {
		if !gIsBool {
			gb, gIsBool = parseBool(gold)
		}
		if !pIsBool {
			pb, pIsBool = parseBool(pred)
		}
		return gIsBool && pIsBool && gb == pb
	}
	return exactScalar(gold, pred)
}

// numbersClose applies |a-b| <= tol*max(1,|a|,|b|).
func numbersClose(a, b, tol float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= tol*max(1, math.Abs(a), math.Abs(b))
}

// numberOf converts JSON or Go numbers to float64.
func numberOf(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil || math.IsInf(f, 0)
	case float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return reflect.ValueOf(n).Convert(reflect.TypeFor[float64]()).Float(), true
	}
	return 0, false
}

// parseNumber parses a string holding a finite decimal number.
func parseNumber(v any) (float64, bool) {
	s, ok := v.(string)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && finite(f)
}

func parseBool(v any) (bool, bool) {
	s, ok := v.(string)
	if !ok {
		return false, false
	}
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// valueText renders a value for evidence and messages: strings raw, the rest as JSON.
func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return string(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func clamp01(f float64) float64 {
	if math.IsNaN(f) {
		return 0
	}
	return min(1, max(0, f))
}
