package bfcl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/aem-dev/aem/internal/badinput"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/tooldef"
)

// ErrInvalid is the Kind of every error about the content of a BFCL file:
// each is a *badinput.RowError (Row the 0-based index of the entry in its
// file, Line its line) wrapping ErrInvalid and badinput.ErrInvalid, so the
// CLI maps it to exit status 3.
var ErrInvalid = errors.New("invalid BFCL file")

// rowErr builds the error for one entry; id, when known, prefixes the
// problem.
func rowErr(file string, row int64, line int, id, field, problem, fix string, cause error) error {
	if id != "" {
		problem = "entry " + id + ": " + problem
	}
	return &badinput.RowError{File: file, Row: row, Line: line, Field: field, Problem: problem, Fix: fix, Kind: ErrInvalid, Err: cause}
}

// Message is one message of a question.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Entry is one BFCL test entry: the question, the functions offered and,
// once Attach has run, the acceptable answers.
type Entry struct {
	ID       string
	Category string // "simple", "multiple", "parallel", "parallel_multiple", "irrelevance"...
	// Messages are the question's messages, every turn's in order.
	Messages []Message
	// Functions are the definitions offered, each as given, and Tools the
	// same parsed.
	Functions []json.RawMessage
	Tools     *tooldef.Set
	// Answers are the acceptable calls (one per expected call, each
	// parameter with its acceptable values); nil when the entry has none,
	// as irrelevance entries, whose right answer is no call.
	Answers []PossibleCall
	// Line is the entry's line in its question file.
	Line int
}

// Parallel reports whether the entry's calls may come in any order (BFCL's
// parallel categories).
func (e Entry) Parallel() bool { return strings.Contains(e.Category, "parallel") }

// Irrelevant reports whether the right answer is no call.
func (e Entry) Irrelevant() bool { return strings.Contains(e.Category, "irrelevance") }

// PossibleCall is one expected call: the function's name and, per
// parameter, its acceptable values. "" among them means the parameter may
// be left out. A dict parameter's acceptable values are dicts whose values
// are lists of acceptable values again; a list of dicts holds such dicts.
type PossibleCall struct {
	Name   string
	Params map[string][]any
}

// category is the id without its trailing "_<n>-<n>-<n>" and "live_"
// prefix: live_parallel_multiple_21-18-0 -> parallel_multiple.
func category(id string) string {
	c := id
	if i := strings.LastIndexByte(c, '_'); i >= 0 {
		c = c[:i]
	}
	return strings.TrimPrefix(c, "live_")
}

// lines calls fn with every non-blank line of r: its 0-based record index
// and 1-based line number.
func lines(r io.Reader, fn func(row int64, line int, text []byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
	n, row := 0, int64(0)
	for sc.Scan() {
		n++
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(row, n, sc.Bytes()); err != nil {
			return err
		}
		row++
	}
	return sc.Err()
}

func decode(text []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	return dec.Decode(v)
}

// ReadQuestions reads a BFCL question file (JSON Lines of {"id",
// "question", "function"}). file names it in errors.
func ReadQuestions(file string, r io.Reader) ([]Entry, error) {
	var out []Entry
	seen := map[string]int{}
	err := lines(r, func(row int64, line int, text []byte) error {
		var raw struct {
			ID       string            `json:"id"`
			Question [][]Message       `json:"question"`
			Function []json.RawMessage `json:"function"`
		}
		if err := decode(text, &raw); err != nil {
			return rowErr(file, row, line, "", "", "not a BFCL question",
				`each line is {"id": ..., "question": [[{"role": ..., "content": ...}]], "function": [...]}`, err)
		}
		if raw.ID == "" {
			return rowErr(file, row, line, "", "id", "missing id", "give every entry its id", nil)
		}
		if first, dup := seen[raw.ID]; dup {
			return rowErr(file, row, line, raw.ID, "id", fmt.Sprintf("id repeats line %d", first), "give every entry its own id", nil)
		}
		seen[raw.ID] = line
		e := Entry{ID: raw.ID, Category: category(raw.ID), Functions: raw.Function, Line: line}
		defs, err := json.Marshal(raw.Function)
		if len(raw.Function) == 0 {
			defs = []byte("[]")
		}
		if err == nil {
			e.Tools, err = tooldef.Parse("function", defs)
		}
		if err != nil {
			return rowErr(file, row, line, raw.ID, "function", "bad function definitions", "give each function a name and a JSON Schema of its parameters", err)
		}
		for _, turn := range raw.Question {
			e.Messages = append(e.Messages, turn...)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading BFCL questions: %w", err)
	}
	return out, nil
}

// ReadAnswers reads a BFCL possible-answer file (JSON Lines of {"id",
// "ground_truth": [{name: {param: [values...]}}]}) into a map by id.
func ReadAnswers(file string, r io.Reader) (map[string][]PossibleCall, error) {
	out := map[string][]PossibleCall{}
	err := lines(r, func(row int64, line int, text []byte) error {
		var raw struct {
			ID          string           `json:"id"`
			GroundTruth []map[string]any `json:"ground_truth"`
		}
		if err := decode(text, &raw); err != nil {
			return rowErr(file, row, line, "", "", "not a BFCL possible answer",
				`each line is {"id": ..., "ground_truth": [{"function": {"param": [values...]}}]}`, err)
		}
		if raw.ID == "" {
			return rowErr(file, row, line, "", "id", "missing id", "give every answer the id of its entry", nil)
		}
		if _, dup := out[raw.ID]; dup {
			return rowErr(file, row, line, raw.ID, "id", "id repeats an earlier line", "give each entry one answer", nil)
		}
		calls := make([]PossibleCall, 0, len(raw.GroundTruth))
		for i, gt := range raw.GroundTruth {
			c, err := possibleCall(gt)
			if err != nil {
				return rowErr(file, row, line, raw.ID, fmt.Sprintf("ground_truth[%d]", i), err.Error(),
					`write {"function_name": {"param": [acceptable values...]}}`, nil)
			}
			calls = append(calls, c)
		}
		out[raw.ID] = calls
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading BFCL possible answers: %w", err)
	}
	return out, nil
}

func possibleCall(gt map[string]any) (PossibleCall, error) {
	if len(gt) != 1 {
		return PossibleCall{}, fmt.Errorf("a call must have exactly one function name, got %d", len(gt))
	}
	var c PossibleCall
	for name, v := range gt {
		params, ok := v.(map[string]any)
		if !ok {
			return PossibleCall{}, fmt.Errorf("function %q: parameters must be an object", name)
		}
		c = PossibleCall{Name: name, Params: map[string][]any{}}
		for p, alts := range params {
			list, ok := alts.([]any)
			if !ok {
				return PossibleCall{}, fmt.Errorf("function %q parameter %q: acceptable values must be a list", name, p)
			}
			c.Params[p] = list
		}
	}
	return c, nil
}

// Attach sets each entry's Answers from answers (by id). Every entry that
// is not an irrelevance entry needs one, and every answer an entry;
// questions and answersFile name the files in errors.
func Attach(entries []Entry, answers map[string][]PossibleCall, questions, answersFile string) error {
	ids := make(map[string]bool, len(entries))
	for i := range entries {
		ids[entries[i].ID] = true
		a, ok := answers[entries[i].ID]
		if !ok && !entries[i].Irrelevant() {
			return rowErr(answersFile, badinput.NoRow, 0, entries[i].ID, "", "no possible answer for this entry of "+questions,
				"give the possible_answer file of the same category", nil)
		}
		entries[i].Answers = a
	}
	for _, id := range slices.Sorted(maps.Keys(answers)) {
		if !ids[id] {
			return rowErr(answersFile, badinput.NoRow, 0, id, "", "possible answer for an id that "+questions+" does not have",
				"give the question file of the same category", nil)
		}
	}
	return nil
}

// Prediction is a model's answer to one entry: the calls it made, or the
// text it gave instead.
type Prediction struct {
	Calls []Call
	Text  string
}

// Call is one predicted call. Args holds the decoded arguments; when the
// model gave them as JSON text (BFCL's result files for function-calling
// models), ArgsText keeps that text and Args is nil if it is not a JSON
// object.
type Call struct {
	Name     string
	Args     map[string]any
	ArgsText string
}

// ReadResults reads a BFCL result file (JSON Lines of {"id", "result"})
// into a map by id. A result is a list of calls {name: arguments}, the
// arguments an object or JSON text; any other result (a model's text
// answer) is a prediction without calls.
func ReadResults(file string, r io.Reader) (map[string]Prediction, error) {
	out := map[string]Prediction{}
	err := lines(r, func(row int64, line int, text []byte) error {
		var raw struct {
			ID     string `json:"id"`
			Result any    `json:"result"`
		}
		if err := decode(text, &raw); err != nil {
			return rowErr(file, row, line, "", "", "not a BFCL result",
				`each line is {"id": ..., "result": [{"function": {"param": value}}]}`, err)
		}
		if raw.ID == "" {
			return rowErr(file, row, line, "", "id", "missing id", "give every result the id of its entry", nil)
		}
		if _, dup := out[raw.ID]; dup {
			return rowErr(file, row, line, raw.ID, "id", "id repeats an earlier line", "give each entry one result", nil)
		}
		p, err := prediction(raw.Result)
		if err != nil {
			return rowErr(file, row, line, raw.ID, "result", err.Error(),
				`write each call as {"function_name": {"param": value}} or {"function_name": "{\"param\": value}"}`, nil)
		}
		out[raw.ID] = p
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading BFCL results: %w", err)
	}
	return out, nil
}

func prediction(result any) (Prediction, error) {
	list, ok := result.([]any)
	if !ok {
		if s, isText := result.(string); isText {
			return Prediction{Text: s}, nil
		}
		b, _ := json.Marshal(result)
		return Prediction{Text: string(b)}, nil
	}
	var p Prediction
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok || len(m) != 1 {
			return Prediction{}, fmt.Errorf("call %d must be an object with exactly one function name", i)
		}
		for name, args := range m {
			c := Call{Name: name}
			switch a := args.(type) {
			case map[string]any:
				c.Args = a
			case string:
				c.ArgsText = a
				c.Args, _ = metrics.DecodeArgs([]byte(a))
			default:
				return Prediction{}, fmt.Errorf("call %d (%s): arguments must be an object or JSON text", i, name)
			}
			p.Calls = append(p.Calls, c)
		}
	}
	return p, nil
}
