package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/tooldef"
)

// Comparison methods recorded in FieldScore.Method.
const (
	MethodExact      = "exact"      // byte-equal strings or equal scalars: no scorer call
	MethodNormalized = "normalized" // strings equal after NormalizeText: no scorer call
	MethodTyped      = "typed"      // numbers with tolerance, booleans, null, type mismatches
	MethodAny        = "any"        // compared against $any alternatives
	MethodSemantic   = "semantic"   // similarity score against a threshold
	MethodMissing    = "missing"    // gold value absent from the prediction
	MethodExtra      = "extra"      // predicted value with no gold counterpart (extra key or array element)
	MethodCoverage   = "coverage"   // a reply's covered share of its gold's required content (response.coverage)
	// MethodNotRequired is a gold clause with no task content: never
	// compared, not required for completeness.
	MethodNotRequired = "not_required"
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
	var types []tooldef.Type
	for _, t := range s.Types {
		if t != tooldef.Null {
			types = append(types, t)
		}
	}
	if len(types) == 1 {
		p.schemaType = string(types[0])
	}
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
	j      *judger
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

// exactOnly reports whether the string at path is compared without the
// scorer (see exactOnly in schema.go).
func (c *comparer) exactOnly(path string) bool {
	return exactOnly(c.schemaOf(path), lastKey(path))
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

// record adds a value decided without the scorer.
func (c *comparer) record(path, method string, score float64, pass bool, gold, pred any) {
	c.add(FieldScore{Field: path, Method: method, Score: score, Pass: pass}, gold, pred)
}

// value compares gold with pred through the chain: exact, typed, $any,
// semantic (strings only, when semantic is true).
func (c *comparer) value(path string, p param, gold, pred any, semantic bool) error {
	if _, bad := c.badType[path]; bad {
		c.record(path, MethodType, 0, false, gold, pred)
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
	c.scalar(path, gold, pred)
	return nil
}

func (c *comparer) text(path string, p param, gold, pred string, semantic bool) error {
	if gold == pred {
		c.record(path, MethodExact, 1, true, gold, pred)
		return nil
	}
	if NormalizeText(gold) == NormalizeText(pred) {
		c.record(path, MethodNormalized, 1, true, gold, pred)
		return nil
	}
	if !semantic {
		c.record(path, MethodTyped, 0, false, gold, pred)
		return nil
	}
	if c.exactOnly(path) {
		c.record(path, MethodExact, 0, false, gold, pred)
		return nil
	}
	s, err := c.j.sim(Comparison{Kind: CompareValue, Field: path, Context: p.context, Gold: gold, Predicted: pred})
	if err != nil {
		return fmt.Errorf("field %s: %w", path, err)
	}
	q := ThresholdQuery{SubMetric: SubTruthValues, Field: path, Param: p.path, Type: p.schemaType}
	c.add(c.j.decide(path, q, s), gold, pred)
	return nil
}

// scalar compares everything that is neither string-vs-string nor two
// containers: equal scalars are exact, the rest goes through typedEqual.
func (c *comparer) scalar(path string, gold, pred any) {
	if exactScalar(gold, pred) {
		c.record(path, MethodExact, 1, true, gold, pred)
		return
	}
	ok := typedEqual(gold, pred, c.j.cfg.NumericTolerance)
	c.record(path, MethodTyped, b2f(ok), ok, gold, pred)
}

func (c *comparer) object(path string, p param, g, pm map[string]any, semantic bool) error {
	if len(g) == 0 && len(pm) == 0 {
		c.record(path, MethodExact, 1, true, g, pm)
		return nil
	}
	for _, k := range sortedKeys(g) {
		pv, present := pm[k]
		if !present {
			if sp, ok := specOf(g[k]); (!ok || !sp.optional) && !c.nestedDefault(path, k, g[k], nil, true) {
				c.record(path+"."+k, MethodMissing, 0, false, g[k], "")
			}
			continue
		}
		if err := c.value(path+"."+k, p, g[k], pv, semantic); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(pm) {
		if _, inGold := g[k]; !inGold && !c.nestedDefault(path, k, nil, pm[k], false) {
			c.record(path+"."+k, MethodExtra, 0, false, nil, pm[k])
		}
	}
	return nil
}

func (c *comparer) array(path string, p param, g, pa []any, semantic bool) error {
	if len(g) == 0 && len(pa) == 0 {
		c.record(path, MethodExact, 1, true, g, pa)
		return nil
	}
	for i := range max(len(g), len(pa)) {
		at := path + "[" + strconv.Itoa(i) + "]"
		switch {
		case i >= len(pa):
			c.record(at, MethodMissing, 0, false, g[i], "")
		case i >= len(g):
			c.record(at, MethodExtra, 0, false, nil, pa[i])
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
			c.scores = append(c.scores, FieldScore{Field: path, Method: MethodAny, Score: 1, Pass: true})
			return nil
		}
	}
	best := FieldScore{Field: path, Method: MethodAny, Score: math.Inf(-1)}
	if semantic {
		for _, a := range alts {
			sub := c.scratch()
			if err := sub.value(path, p, a, pred, true); err != nil {
				return err
			}
			pass, score := sub.allPass(), sub.meanScore()
			if (pass && !best.Pass) || (pass == best.Pass && score > best.Score) {
				d, _ := deciding(sub.scores)
				best = FieldScore{Field: path, Method: MethodAny, Score: score, Threshold: d.Threshold, ThresholdFrom: d.ThresholdFrom,
					By: d.By, Judge: d.Judge, Cosine: d.Cosine, Pass: pass}
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
