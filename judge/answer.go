package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"
)

// Answer is the judge's parsed answer to one comparison.
type Answer struct {
	// Equivalent is the judge's decision.
	Equivalent bool `json:"equivalent"`
	// Score is how close the meanings are, in [0, 1]; at least
	// DecisionScore exactly when Equivalent, so a threshold of
	// DecisionScore on it gives the judge's decision.
	Score float64 `json:"score"`
	// Reason is the judge's one-sentence reason.
	Reason string `json:"reason"`
}

// maxReasonRunes bounds a reason: one sentence, not an essay.
const maxReasonRunes = 500

// DecisionScore splits the judge's scores: an equivalent answer scores at
// least DecisionScore, any other below it.
const DecisionScore = 0.5

// parseAnswer parses a model's message content strictly: one JSON object
// with exactly the keys equivalent (boolean), score (a number in [0, 1])
// and reason (a non-empty string of at most maxReasonRunes runes), the
// score on the side of DecisionScore that equivalent says, and
// nothing after it. The one wrapper accepted is a Markdown code fence
// around the whole object (```json ... ```), which models add without
// being asked when no response_format constrains them. The error says
// what is wrong, for the repair prompt and the judge error.
func parseAnswer(content string) (Answer, error) {
	s := strings.TrimSpace(content)
	if body, ok := strings.CutPrefix(s, "```"); ok {
		body = strings.TrimPrefix(body, "json")
		inner, ok := strings.CutSuffix(body, "```")
		if !ok || !strings.HasPrefix(body, "\n") {
			return Answer{}, errors.New("the answer opens a code fence it does not close")
		}
		s = strings.TrimSpace(inner)
	}
	if s == "" {
		return Answer{}, errors.New("the answer is empty")
	}
	var raw struct {
		Equivalent *bool            `json:"equivalent"`
		Score      *json.RawMessage `json:"score"`
		Reason     *string          `json:"reason"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return Answer{}, fmt.Errorf("the answer is not the JSON object asked for: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Answer{}, errors.New("the answer has more text after the JSON object")
	}
	switch {
	case raw.Equivalent == nil:
		return Answer{}, errors.New(`the answer has no "equivalent"`)
	case raw.Score == nil:
		return Answer{}, errors.New(`the answer has no "score"`)
	case raw.Reason == nil:
		return Answer{}, errors.New(`the answer has no "reason"`)
	}
	score, err := parseScore(*raw.Score)
	if err != nil {
		return Answer{}, err
	}
	if *raw.Equivalent != (score >= DecisionScore) {
		return Answer{}, fmt.Errorf(`"equivalent" is %v but "score" is %v: the score must be at least %v exactly when equivalent`, *raw.Equivalent, score, DecisionScore)
	}
	reason := strings.TrimSpace(*raw.Reason)
	switch {
	case reason == "":
		return Answer{}, errors.New(`"reason" is empty`)
	case utf8.RuneCountInString(reason) > maxReasonRunes:
		return Answer{}, fmt.Errorf(`"reason" is %d characters long; one sentence is asked for`, utf8.RuneCountInString(reason))
	}
	return Answer{Equivalent: *raw.Equivalent, Score: score, Reason: reason}, nil
}

// parseScore accepts a JSON number (not a string, not null) in [0, 1].
func parseScore(b json.RawMessage) (float64, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return 0, fmt.Errorf(`"score" is %s, not a number`, clip(string(b), 40))
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil || math.IsNaN(f) {
		return 0, fmt.Errorf(`"score" %s is not a number`, clip(string(b), 40))
	}
	if f < 0 || f > 1 {
		return 0, fmt.Errorf(`"score" is %v, outside [0, 1]`, f)
	}
	return f, nil
}

// clip shortens s to n runes for messages.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
