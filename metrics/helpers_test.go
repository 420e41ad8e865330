package metrics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// importTurn is one turn of the JSON import format of issue 2.
type importTurn struct {
	TurnNo     int         `json:"turn_no"`
	Turn       string      `json:"turn"`
	Gold       *importSide `json:"gold_turn"`
	Predict    *importSide `json:"predict_turn"`
	Tags       []string    `json:"tags"`
	DependsOn  []int       `json:"depends_on"`
	HumanLabel *bool       `json:"human_label"`
	HumanScore *float64    `json:"human_score"`
	Weight     *float64    `json:"weight"`
	Critical   bool        `json:"critical"`
}

type importSide struct {
	NoCall   bool            `json:"no_call"`
	Response *string         `json:"response"`
	ToolID   string          `json:"tool_id"`
	Action   string          `json:"action"`
	Args     json.RawMessage `json:"args"`
}

// loadJSONL reads dialogs in the JSON Lines import format (a test helper:
// the real importer lives in batch).
func loadJSONL(t testing.TB, path string) []Dialog {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Dialog
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var raw struct {
			DialogID string       `json:"dialog_id"`
			Turns    []importTurn `json:"turns"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatalf("%s line %d: %v", path, line, err)
		}
		d := Dialog{ID: raw.DialogID}
		for _, it := range raw.Turns {
			d.Turns = append(d.Turns, toTurn(t, raw.DialogID, it))
		}
		out = append(out, d)
	}
	return out
}

func toTurn(t testing.TB, id string, it importTurn) Turn {
	t.Helper()
	role, err := ParseRole(it.Turn)
	if err != nil {
		t.Fatalf("dialog %s turn %d: %v", id, it.TurnNo, err)
	}
	tr := Turn{DialogID: id, TurnNo: it.TurnNo, Role: role, Tags: it.Tags, DependsOn: it.DependsOn,
		HumanLabel: it.HumanLabel, HumanScore: it.HumanScore, Weight: it.Weight, Critical: it.Critical}
	if it.Gold != nil && it.Gold.NoCall {
		tr.GoldNoCall, tr.HasGold = true, true
	} else if it.Gold != nil {
		tr.HasGold = true
		tr.GoldResponse, tr.Gold = side(t, it.Gold)
	}
	if it.Predict != nil {
		tr.HasPredict = true
		tr.PredictResponse, tr.Predict = predictSide(t, it.Predict)
	}
	return tr
}

func side(t testing.TB, s *importSide) (string, Call) {
	t.Helper()
	resp := ""
	if s.Response != nil {
		resp = *s.Response
	}
	c := Call{ToolID: s.ToolID, Action: s.Action, Args: map[string]any{}}
	if len(s.Args) > 0 {
		args, err := DecodeArgs(s.Args)
		if err != nil {
			t.Fatal(err)
		}
		c.Args = args
	}
	return resp, c
}

// predictSide is side for a prediction, whose arguments may be malformed:
// the agent's mistake, kept as UnparsedArgs (as the golden reader does).
func predictSide(t testing.TB, s *importSide) (string, Call) {
	t.Helper()
	if _, err := DecodeArgs(s.Args); len(s.Args) > 0 && err != nil {
		text := string(s.Args)
		_ = json.Unmarshal(s.Args, &text)
		c := *s
		c.Args = nil
		resp, call := side(t, &c)
		call.UnparsedArgs = text
		return resp, call
	}
	return side(t, s)
}

// mustNew is New for a config the test knows to be valid.
func mustNew(t testing.TB, cfg Config) *Metric {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// evalAll decides dialogs with the Lexical scorer.
func evalAll(t testing.TB, cfg Config, ds ...Dialog) []DialogResult {
	t.Helper()
	res, err := mustNew(t, cfg).Evaluate(t.Context(), Lexical{}, ds)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// compact is the write-up's per-dialog summary.
func compact(r DialogResult) map[string]any {
	return map[string]any{
		"success_rate": r.SuccessRate, "test_pass": r.TestPass, "first_failure_turn": r.FirstFailureTurn,
		"root_cause": string(r.RootCause), "root_cause_count": r.RootCauseCount, "cascading_count": r.CascadingCount,
	}
}

// dialogJSON parses one dialog written in the JSON import format.
func dialogJSON(t testing.TB, s string) Dialog {
	t.Helper()
	var raw struct {
		DialogID string       `json:"dialog_id"`
		Turns    []importTurn `json:"turns"`
	}
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		t.Fatalf("bad test dialog: %v\n%s", err, s)
	}
	d := Dialog{ID: raw.DialogID}
	for _, it := range raw.Turns {
		d.Turns = append(d.Turns, toTurn(t, raw.DialogID, it))
	}
	return d
}

// pairScores gives similarities by (gold, predicted) alone, whatever the
// comparison's kind and field.
type pairScores map[[2]string]float64

// sim answers a comparison from the table, ErrMissingSimilarity when absent.
func (ps pairScores) sim(c Comparison) (Similarity, error) {
	s, ok := ps[[2]string{c.Gold, c.Predicted}]
	if !ok {
		return Similarity{}, ErrMissingSimilarity
	}
	return Similarity{Score: s, By: "table"}, nil
}

// similarities answers every comparison of cs whose pair is in the table.
func (ps pairScores) similarities(cs []Comparison) Similarities {
	sims := Similarities{}
	for _, c := range cs {
		if s, err := ps.sim(c); err == nil {
			sims[c] = s
		}
	}
	return sims
}

// lexicalSims answers every comparison of cs with LexicalSimilarity.
func lexicalSims(cs []Comparison) Similarities {
	sims := Similarities{}
	for _, c := range cs {
		sims[c] = Similarity{Score: LexicalSimilarity(c.Gold, c.Predicted), By: ByLexical}
	}
	return sims
}

// countingScorer wraps Lexical and records its calls.
type countingScorer struct {
	calls int
	cs    []Comparison
}

func (c *countingScorer) ID() string { return "counting" }

func (c *countingScorer) Compare(ctx context.Context, cs []Comparison) ([]Similarity, error) {
	c.calls++
	c.cs = append(c.cs, cs...)
	return Lexical{}.Compare(ctx, cs)
}

// fixedScorer returns the same similarity for every comparison.
type fixedScorer float64

func (f fixedScorer) ID() string { return "fixed" }

func (f fixedScorer) Compare(_ context.Context, cs []Comparison) ([]Similarity, error) {
	out := make([]Similarity, len(cs))
	for i := range out {
		out[i] = Similarity{Score: float64(f), By: "fixed"}
	}
	return out, nil
}

func withThreshold(th float64) Config {
	c := DefaultConfig()
	c.Thresholds.Threshold = th
	return c
}

func verdict(t testing.TB, r DialogResult, turnNo int) Verdict {
	t.Helper()
	for _, v := range r.Turns {
		if v.TurnNo == turnNo {
			return v
		}
	}
	t.Fatalf("dialog %s has no verdict for turn %d", r.DialogID, turnNo)
	return Verdict{}
}
