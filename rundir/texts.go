package rundir

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/metrics"
)

// Texts are the gold and predicted sides of a turn as turns.parquet holds
// them (TurnRow's columns of the same names).
type Texts struct {
	Kind                                                                         string
	GoldToolID, GoldAction, GoldArgs, PredictArgs, GoldResponse, PredictResponse *string
}

// TextsOf returns the texts of a turn row.
func TextsOf(t *TurnRow) Texts {
	return Texts{Kind: t.Kind, GoldToolID: t.GoldToolID, GoldAction: t.GoldAction, GoldArgs: t.GoldArgs,
		PredictArgs: t.PredictArgs, GoldResponse: t.GoldResponse, PredictResponse: t.PredictResponse}
}

// Compared returns the gold and predicted strings that the field score
// named field compared: a reply's texts ("response"), or a string
// parameter value found by its path in the call's arguments. A $any value
// gives the alternative closest in wording to the prediction. Clause
// scores and anything not found give ok false.
func (t Texts) Compared(field string) (gold, pred string, ok bool) {
	if t.Kind == string(metrics.KindResponse) {
		if field != "response" || t.GoldResponse == nil || t.PredictResponse == nil {
			return "", "", false
		}
		return *t.GoldResponse, *t.PredictResponse, true
	}
	if t.GoldToolID == nil || t.GoldAction == nil || t.GoldArgs == nil || t.PredictArgs == nil {
		return "", "", false
	}
	base := metrics.Call{ToolID: *t.GoldToolID, Action: *t.GoldAction}.FieldBase()
	rest, found := strings.CutPrefix(field, base+".")
	if !found {
		return "", "", false
	}
	g, okg := valueAt(*t.GoldArgs, rest)
	p, okp := valueAt(*t.PredictArgs, rest)
	ps, isText := p.(string)
	if !okg || !okp || !isText {
		return "", "", false
	}
	if m, isMap := g.(map[string]any); isMap {
		if alts, isAny := m["$any"].([]any); isAny {
			best := -1.0
			for _, a := range alts {
				if s, isStr := a.(string); isStr && metrics.LexicalSimilarity(s, ps) > best {
					g, best = s, metrics.LexicalSimilarity(s, ps)
				}
			}
		}
	}
	gs, isText := g.(string)
	return gs, ps, isText
}

// Sides returns what the field score named field compared, each side as
// JSON text ("revenue" in quotes, 89, [1,2]: a string and a number that
// read alike stay apart), with no HTML escaping; ok is false for a side
// that has no value there (a parameter left out, a turn without that
// side). field is a parameter's path ("tool.action.param.sub[0]") or
// "response" (the replies, as JSON strings).
func (t Texts) Sides(field string) (gold, pred string, goldOK, predOK bool) {
	if field == "response" {
		gold, goldOK = jsonText(t.GoldResponse)
		pred, predOK = jsonText(t.PredictResponse)
		return gold, pred, goldOK, predOK
	}
	if t.GoldToolID == nil || t.GoldAction == nil {
		return "", "", false, false
	}
	base := metrics.Call{ToolID: *t.GoldToolID, Action: *t.GoldAction}.FieldBase()
	rest, found := strings.CutPrefix(field, base+".")
	if !found {
		return "", "", false, false
	}
	side := func(args *string) (string, bool) {
		if args == nil {
			return "", false
		}
		v, ok := valueAt(*args, rest)
		if !ok {
			return "", false
		}
		return jsonText(v)
	}
	gold, goldOK = side(t.GoldArgs)
	pred, predOK = side(t.PredictArgs)
	return gold, pred, goldOK, predOK
}

// jsonText is v as compact JSON without HTML escaping; a nil *string
// has none.
func jsonText(v any) (string, bool) {
	if s, ok := v.(*string); ok {
		if s == nil {
			return "", false
		}
		v = *s
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

// valueAt finds the value at path ("param", "param.sub[0]") in a JSON
// object's text. Keys may contain dots: at each object the longest key
// that the path continues with is taken.
func valueAt(argsJSON, path string) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader([]byte(argsJSON)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	for path != "" {
		switch x := v.(type) {
		case map[string]any:
			best := ""
			for k := range x {
				if len(k) > len(best) && strings.HasPrefix(path, k) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
					best = k
				}
			}
			if best == "" {
				return nil, false
			}
			v, path = x[best], strings.TrimPrefix(path[len(best):], ".")
		case []any:
			end := strings.IndexByte(path, ']')
			if !strings.HasPrefix(path, "[") || end < 0 {
				return nil, false
			}
			i, err := strconv.Atoi(path[1:end])
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v, path = x[i], strings.TrimPrefix(path[end+1:], ".")
		default:
			return nil, false
		}
	}
	return v, true
}
