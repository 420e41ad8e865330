package judgetest

import (
	"encoding/json"
	"strings"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/features"
)

// Facts is a content function for SetContent that answers as a careful
// grader of `aem gen` data would, by a fixed rule instead of a model: the
// agent's text is equivalent when it states every anchor of the gold text
// (features.Anchors: numbers, dates, times, quarters, codes) and shares
// enough of its words (metrics.LexicalSimilarity at least 0.2 when gold has
// anchors, 0.5 when it has none). Reworded clauses and replies keep their
// facts and pass; another fact, a changed number or a left-out one fails;
// synonyms without shared words ("NYC" for "New York City") fail, as they
// would not with a model. Benchmarks use it so that a judged run's stops
// (the first "equivalent" of a gold clause) happen where a model's would.
func Facts(r Request) string {
	gold, agent, err := r.Pair()
	if err != nil {
		return "the server could not read the request: " + err.Error()
	}
	a := Differ
	if factsAgree(gold, agent) {
		a = judge.Answer{Equivalent: true, Score: 0.9, Reason: "The agent states the same facts."}
	}
	b, _ := json.Marshal(a)
	return string(b)
}

func factsAgree(gold, agent string) bool {
	g := features.Anchors(features.Tokenize(gold))
	if len(features.DiffAnchors(g, features.Anchors(features.Tokenize(agent)))) > 0 {
		return false
	}
	least := 0.5
	if len(g) > 0 {
		least = 0.2
	}
	return metrics.LexicalSimilarity(gold, agent) >= least
}

// Kind is the comparison kind the request asks about, read from its
// system message (judge.SystemPrompt); "" when it matches none.
func (r Request) Kind() judge.Kind {
	if len(r.Body.Messages) == 0 {
		return ""
	}
	sys := r.Body.Messages[0].Content
	for _, k := range judge.Kinds {
		if strings.TrimSpace(sys) == strings.TrimSpace(judge.SystemPrompt(k)) {
			return k
		}
	}
	return ""
}

// Field is the field path of the request's user message ("Field: " line);
// "" when it has none.
func (r Request) Field() string {
	if len(r.Body.Messages) < 2 {
		return ""
	}
	for _, line := range strings.Split(r.Body.Messages[1].Content, "\n") {
		if v, ok := strings.CutPrefix(line, "Field: "); ok {
			return v
		}
	}
	return ""
}
