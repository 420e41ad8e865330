package sweepio

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/aem-dev/aem/batch/rundir"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/metrics/sweep"
)

// EmbeddingModelOf reads the embedding model from a scorer ID such as
// "embed:use-lite@sha256:4b1f…": the ID itself and the sha256 after
// "@sha256:" ("" when the scorer names none, as the lexical one).
func EmbeddingModelOf(scorerID string) composite.EmbeddingModel {
	_, sha, _ := strings.Cut(scorerID, "@sha256:")
	return composite.EmbeddingModel{ID: scorerID, SHA256: sha}
}

// comparedTexts returns the gold and predicted strings a turn's field
// score compared, for the composite's features: a reply's texts, or a
// string parameter value found by its path in the call's arguments. A $any
// value gives the alternative closest in wording to the prediction. Clause
// scores and anything not found give ok false.
func comparedTexts(t *turnView, fs rundir.FieldScoreRow) (gold, pred string, ok bool) {
	if t.Kind == string(metrics.KindResponse) {
		if fs.Field != "response" || t.GoldResponse == nil || t.PredResponse == nil {
			return "", "", false
		}
		return *t.GoldResponse, *t.PredResponse, true
	}
	base, isCall := t.fieldBase()
	if !isCall || t.GoldArgs == nil || t.PredictArgs == nil {
		return "", "", false
	}
	rest, found := strings.CutPrefix(fs.Field, base+".")
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

// withFeatures sets a sample's features from the texts its field score
// compared, when they can be found.
func withFeatures(s *sweep.Sample, t *turnView, fs rundir.FieldScoreRow) {
	if g, p, ok := comparedTexts(t, fs); ok {
		s.Features, s.HasFeatures = features.Extract(g, p, fs.FirstScore()), true
	}
}
