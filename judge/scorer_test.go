package judge_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/google/go-cmp/cmp"
)

// tableScorer is a first scorer whose score for a comparison is looked up
// by its gold string.
type tableScorer map[string]float64

func (tableScorer) ID() string { return "table" }

func (t tableScorer) Compare(_ context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out := make([]metrics.Similarity, len(cs))
	for i, c := range cs {
		out[i] = metrics.Similarity{Score: t[c.Gold], By: metrics.ByEmbed}
	}
	return out, nil
}

// Band routing: only comparisons whose first score lies in the band (bounds
// included) reach the judge, which then decides them; the rest keep the
// first scorer's decision. A judge error keeps it too, recorded.
func TestEscalationRoutesTheBand(t *testing.T) {
	f := newServer(t)
	f.Answer("in-low", "p", judge.Answer{Equivalent: true, Score: 0.9, Reason: "Same."})
	first := tableScorer{"below": 0.34, "in-low": 0.35, "in-mid": 0.6, "in-high": 0.8, "above": 0.81, "broken": 0.5}
	j, _ := newTestJudge(t, f)
	e := judge.NewEscalation(first, j, judge.Bands{Similarity: judge.DefaultBand})
	var cs []metrics.Comparison
	for _, g := range []string{"below", "in-low", "in-mid", "in-high", "above"} {
		cs = append(cs, metrics.Comparison{Kind: metrics.CompareValue, Field: "t.a.p", Context: "ctx", Gold: g, Predicted: "p"})
	}
	got, err := e.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	differ := judgetest.Differ
	want := []metrics.Similarity{
		{Score: 0.34, By: metrics.ByEmbed},
		{Score: 0.9, By: metrics.ByJudge, Judge: &metrics.JudgeNote{FirstScore: 0.35, FirstBy: metrics.ByEmbed, Cosine: 0.35, Reason: "Same."}},
		{Score: differ.Score, By: metrics.ByJudge, Judge: &metrics.JudgeNote{FirstScore: 0.6, FirstBy: metrics.ByEmbed, Cosine: 0.6, Reason: differ.Reason}},
		{Score: differ.Score, By: metrics.ByJudge, Judge: &metrics.JudgeNote{FirstScore: 0.8, FirstBy: metrics.ByEmbed, Cosine: 0.8, Reason: differ.Reason}},
		{Score: 0.81, By: metrics.ByEmbed},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("similarities (-want +got):\n%s", d)
	}
	reqs := f.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d judge requests, want 3 (the band's)", len(reqs))
	}
	for _, r := range reqs {
		if u := r.Body.Messages[1].Content; !strings.HasPrefix(u, "Field: t.a.p\nContext: ctx\n") {
			t.Errorf("field and context not passed on: %q", u)
		}
	}
	if st := e.Stats(); st != (judge.EscalationStats{Comparisons: 5, Escalated: 3}) {
		t.Errorf("stats %+v", st)
	}
	if want := "table+judge:test-model@prompt-2[band 0.35:0.8]"; e.ID() != want {
		t.Errorf("ID %q, want %q", e.ID(), want)
	}

	// A judge error: the first scorer's decision stands, the error is kept.
	f.SetContent(func(judgetest.Request) string { return "not json" })
	got, err = e.Compare(context.Background(), []metrics.Comparison{{Kind: metrics.CompareReply, Field: "response", Gold: "broken", Predicted: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if g := got[0]; g.Score != 0.5 || g.By != metrics.ByEmbed || g.Judge == nil || g.Judge.FirstScore != 0.5 || !strings.Contains(g.Judge.Error, "malformed judge answer") {
		t.Errorf("judge error: %+v", g)
	}
	if st := e.Stats(); st.JudgeErrors != 1 {
		t.Errorf("stats %+v", st)
	}
}

// EveryScore sends everything; a run-stopping error (the budget) is the
// Compare's error.
func TestEscalationEveryScoreAndBudget(t *testing.T) {
	f := newServer(t)
	j, _ := newTestJudge(t, f, func(o *judge.Options) { o.MaxCalls = 2 })
	e := judge.NewEscalation(tableScorer{"a": -1, "b": 1}, j, judge.Bands{Similarity: judge.EveryScore})
	got, err := e.Compare(context.Background(), []metrics.Comparison{{Kind: metrics.CompareClause, Gold: "a", Predicted: "x"}, {Kind: metrics.CompareClause, Gold: "b", Predicted: "y"}})
	if err != nil || got[0].By != metrics.ByJudge || got[1].By != metrics.ByJudge {
		t.Fatalf("got %+v, %v", got, err)
	}
	if !strings.HasSuffix(e.ID(), "[band all]") {
		t.Errorf("ID %q", e.ID())
	}
	_, err = e.Compare(context.Background(), []metrics.Comparison{{Kind: metrics.CompareValue, Gold: "c", Predicted: "z"}})
	if !errors.Is(err, judge.ErrBudget) {
		t.Errorf("past the budget: %v, want ErrBudget", err)
	}
}

// probScorer is a first scorer with fitted composites: gold strings
// starting with "p" get a composite's probability, the others a cosine.
type probScorer map[string]float64

func (probScorer) ID() string { return "table" }

func (t probScorer) Compare(_ context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out := make([]metrics.Similarity, len(cs))
	for i, c := range cs {
		out[i] = metrics.Similarity{Score: t[c.Gold], By: metrics.ByEmbed}
		if strings.HasPrefix(c.Gold, "p") {
			cos := 0.99
			out[i] = metrics.Similarity{Score: t[c.Gold], By: composite.ByComposite, Cosine: &cos}
		}
	}
	return out, nil
}

// A composite's probability meets the probability band, a similarity the
// similarity band, whatever the number.
func TestEscalationRoutesByScale(t *testing.T) {
	prob := judge.Band{Low: 0.1, High: 0.3}
	for _, tc := range []struct {
		name  string
		bands judge.Bands
		asked []string
		id    string
	}{
		{"both bands", judge.Bands{Similarity: judge.Band{Low: 0.5, High: 0.9}, Probability: &prob},
			[]string{"c-in", "p-in"}, "[band 0.5:0.9 composite 0.1:0.3]"},
		{"default probability band", judge.Bands{Similarity: judge.Band{Low: 0.5, High: 0.9}},
			[]string{"c-in", "p-mid"}, "[band 0.5:0.9]"},
		{"every score", judge.Bands{Similarity: judge.EveryScore, Probability: &judge.Band{Low: math.Inf(-1), High: math.Inf(1)}},
			[]string{"c-in", "c-out", "p-in", "p-mid", "p-out"}, "[band all]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newServer(t)
			j, _ := newTestJudge(t, f)
			first := probScorer{"c-in": 0.6, "c-out": 0.2, "p-in": 0.15, "p-mid": 0.6, "p-out": 0.95}
			e := judge.NewEscalation(first, j, tc.bands)
			var cs []metrics.Comparison
			for _, g := range []string{"c-in", "c-out", "p-in", "p-mid", "p-out"} {
				cs = append(cs, metrics.Comparison{Kind: metrics.CompareValue, Field: "t.a.p", Gold: g, Predicted: "x"})
			}
			got, err := e.Compare(context.Background(), cs)
			if err != nil {
				t.Fatal(err)
			}
			var asked []string
			for _, r := range f.Requests() {
				g, _, err := r.Pair()
				if err != nil {
					t.Fatal(err)
				}
				asked = append(asked, g)
			}
			slices.Sort(asked)
			if d := cmp.Diff(tc.asked, asked); d != "" {
				t.Errorf("asked (-want +got):\n%s", d)
			}
			for i, s := range got {
				asked := slices.Contains(tc.asked, cs[i].Gold)
				if asked != (s.By == metrics.ByJudge) || asked != (s.Judge != nil) {
					t.Errorf("%s: %+v", cs[i].Gold, s)
				}
				if s.Judge != nil && (s.Judge.FirstScore != first[cs[i].Gold] || (s.Judge.FirstBy == composite.ByComposite) != strings.HasPrefix(cs[i].Gold, "p")) {
					t.Errorf("%s: note %+v", cs[i].Gold, s.Judge)
				}
				if strings.HasPrefix(cs[i].Gold, "p") && (s.Cosine == nil || *s.Cosine != 0.99) {
					t.Errorf("%s: the composite's cosine is lost: %+v", cs[i].Gold, s)
				}
				wantCos := first[cs[i].Gold]
				if strings.HasPrefix(cs[i].Gold, "p") {
					wantCos = 0.99
				}
				if s.Judge != nil && s.Judge.Cosine != wantCos {
					t.Errorf("%s: note's cosine %v, want %v (the cosine, not the probability)", cs[i].Gold, s.Judge.Cosine, wantCos)
				}
			}
			if !strings.HasSuffix(e.ID(), tc.id) {
				t.Errorf("ID %q, want the suffix %q", e.ID(), tc.id)
			}
		})
	}
}

func TestParseBand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want judge.Band
		err  string
	}{
		{in: "0.35:0.8", want: judge.DefaultBand},
		{in: " 0 : 1 ", want: judge.Band{0, 1}},
		{in: "-1:1", want: judge.Band{-1, 1}},
		{in: "0.5:0.5", want: judge.Band{0.5, 0.5}},
		{in: "all", want: judge.EveryScore},
		{in: "0.35", err: "write LOW:HIGH"},
		{in: "a:b", err: "must be numbers"},
		{in: "0.8:0.35", err: "LOW is above HIGH"},
		{in: "-2:0.5", err: "in [-1, 1]"},
		{in: "NaN:0.5", err: "in [-1, 1]"},
	} {
		got, err := judge.ParseBand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBand(%q) = %v, %v; want error %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBand(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := judge.ParseBand(got.String()); err != nil || back != got {
			t.Errorf("round trip of %v: %v, %v", got, back, err)
		}
	}
	for _, tc := range []struct {
		in   string
		want judge.Band
		err  string
	}{
		{in: "0.2:0.8", want: judge.DefaultProbabilityBand},
		{in: "0:1", want: judge.Band{0, 1}},
		{in: "all", want: judge.EveryScore},
		{in: "-0.1:0.5", err: "in [0, 1]"},
		{in: "0.5", err: "for example 0.2:0.8"},
	} {
		got, err := judge.ParseProbabilityBand(tc.in)
		if (err != nil) != (tc.err != "") || err != nil && !strings.Contains(err.Error(), tc.err) || err == nil && got != tc.want {
			t.Errorf("ParseProbabilityBand(%q) = %v, %v; want %v, error %q", tc.in, got, err, tc.want, tc.err)
		}
	}
	if judge.EveryScore.Contains(math.NaN()) {
		t.Error("NaN in the band")
	}
}

// pairScorer is a first scorer whose cosine for a comparison is looked up
// by its gold and predicted strings.
type pairScorer map[[2]string]float64

func (pairScorer) ID() string { return "pairs" }

func (p pairScorer) Compare(_ context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out := make([]metrics.Similarity, len(cs))
	for i, c := range cs {
		s, ok := p[[2]string{c.Gold, c.Predicted}]
		if !ok {
			return nil, fmt.Errorf("no score for %q vs %q", c.Gold, c.Predicted)
		}
		out[i] = metrics.Similarity{Score: s, By: metrics.ByEmbed}
	}
	return out, nil
}

// Alternatives of one decision (a gold clause against each predicted
// clause) are judged from the highest first score down until one is
// equivalent; a group with one above the band is not judged; the rest
// are spared. Comparisons that are no alternative go as before.
func TestEscalationJudgesAlternativesFromTheTop(t *testing.T) {
	f := newServer(t)
	eq := judge.Answer{Equivalent: true, Score: 0.9, Reason: "Same."}
	first := pairScorer{
		{"covered", "a1"}: 0.7, {"covered", "a2"}: 0.6, {"covered", "a3"}: 0.2, // the top is accepted: 1 call
		{"above", "x1"}: 0.85, {"above", "x2"}: 0.5, // one above the band: no call
		{"uncovered", "u1"}: 0.7, {"uncovered", "u2"}: 0.6, {"uncovered", "u3"}: 0.4, // none equivalent: 3 calls
		{"second", "b1"}: 0.75, {"second", "b2"}: 0.7, {"second", "b3"}: 0.65, // the second is accepted: 2 calls
		{"after-error", "e1"}: 0.8, {"after-error", "e2"}: 0.5, // a judge error is not equivalent: 2 calls
		{"other-reply", "a2"}: 0.6, // the same field and gold in another reply: its own group
		{"value", "v"}:        0.5, // no alternative: asked
	}
	f.SetContent(func(r judgetest.Request) string {
		g, p, _ := r.Pair()
		if g == "after-error" && p == "e1" {
			return "not json"
		}
		a := judgetest.Differ
		if (g == "covered" && p == "a1") || (g == "second" && p == "b2") || (g == "after-error" && p == "e2") || g == "other-reply" {
			a = eq
		}
		b, _ := json.Marshal(a)
		return string(b)
	})
	j, _ := newTestJudge(t, f)
	e := judge.NewEscalation(first, j, judge.Bands{Similarity: judge.DefaultBand})
	group := func(gold string, preds ...string) []metrics.Comparison {
		var cs []metrics.Comparison
		for _, p := range preds {
			cs = append(cs, metrics.Comparison{Kind: metrics.CompareClause, Field: "response.clause[0]", Gold: gold, Predicted: p, Among: strings.Join(preds, "\n")})
		}
		return cs
	}
	var cs []metrics.Comparison
	cs = append(cs, group("covered", "a1", "a2", "a3")...)
	cs = append(cs, group("above", "x1", "x2")...)
	cs = append(cs, group("uncovered", "u3", "u1", "u2")...) // the order asked in is not the order judged in
	cs = append(cs, group("second", "b1", "b2", "b3")...)
	cs = append(cs, group("after-error", "e1", "e2")...)
	cs = append(cs, group("other-reply", "a2")...)
	cs = append(cs, metrics.Comparison{Kind: metrics.CompareValue, Field: "t.a.p", Gold: "value", Predicted: "v"})
	got, err := e.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		by     string
		spared bool
		judged bool
	}
	want := map[[2]string]outcome{
		{"covered", "a1"}: {metrics.ByJudge, false, true}, {"covered", "a2"}: {metrics.ByEmbed, true, false}, {"covered", "a3"}: {metrics.ByEmbed, false, false},
		{"above", "x1"}: {metrics.ByEmbed, false, false}, {"above", "x2"}: {metrics.ByEmbed, true, false},
		{"uncovered", "u1"}: {metrics.ByJudge, false, true}, {"uncovered", "u2"}: {metrics.ByJudge, false, true}, {"uncovered", "u3"}: {metrics.ByJudge, false, true},
		{"second", "b1"}: {metrics.ByJudge, false, true}, {"second", "b2"}: {metrics.ByJudge, false, true}, {"second", "b3"}: {metrics.ByEmbed, true, false},
		{"after-error", "e1"}: {metrics.ByEmbed, false, true}, {"after-error", "e2"}: {metrics.ByJudge, false, true},
		{"other-reply", "a2"}: {metrics.ByJudge, false, true},
		{"value", "v"}:        {metrics.ByJudge, false, true},
	}
	for i, s := range got {
		k := [2]string{cs[i].Gold, cs[i].Predicted}
		if o := (outcome{s.By, s.Spared, s.Judge != nil}); o != want[k] {
			t.Errorf("%v: %+v, want %+v", k, o, want[k])
		}
	}
	var asked []string
	for _, r := range f.Requests() {
		g, p, _ := r.Pair()
		asked = append(asked, g+"|"+p)
	}
	slices.Sort(asked)
	wantAsked := []string{"after-error|e1", "after-error|e1", "after-error|e2", "covered|a1", "other-reply|a2", "second|b1", "second|b2",
		"uncovered|u1", "uncovered|u2", "uncovered|u3", "value|v"} // e1 twice: the repair retry
	if d := cmp.Diff(wantAsked, asked); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if st := e.Stats(); st != (judge.EscalationStats{Comparisons: int64(len(cs)), Escalated: 10, Spared: 3, JudgeErrors: 1}) {
		t.Errorf("stats %+v", st)
	}
}

// A Moot comparison (no verdict turns on it) is never sent, whatever its
// score; it keeps the first scorer's answer and is counted.
func TestEscalationLeavesMootComparisons(t *testing.T) {
	f := newServer(t)
	j, _ := newTestJudge(t, f)
	e := judge.NewEscalation(pairScorer{{"$4M", "high"}: 0.6, {"fell", "dropped"}: 0.6}, j, judge.Bands{Similarity: judge.DefaultBand})
	cs := []metrics.Comparison{
		{Kind: metrics.CompareClause, Field: "response.clause[0]", Gold: "$4M", Predicted: "high", Among: "high", Moot: true},
		{Kind: metrics.CompareClause, Field: "response.clause[1]", Gold: "fell", Predicted: "dropped", Among: "dropped"},
	}
	got, err := e.Compare(context.Background(), cs)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].By != metrics.ByEmbed || got[0].Judge != nil || got[0].Spared || got[1].By != metrics.ByJudge {
		t.Errorf("got %+v", got)
	}
	if n := len(f.Requests()); n != 1 {
		t.Errorf("%d requests, want 1 (the moot one left out)", n)
	}
	if st := e.Stats(); st != (judge.EscalationStats{Comparisons: 2, Escalated: 1, Moot: 1}) {
		t.Errorf("stats %+v", st)
	}
}
