package batch

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
	"github.com/aem-dev/aem/rundir"
)

// fixedCosine is an embedding stand-in: every comparison scores the same
// cosine.
type fixedCosine float64

func (fixedCosine) ID() string { return "embed:fixed" }

func (f fixedCosine) Compare(_ context.Context, cs []metrics.Comparison) ([]metrics.Similarity, error) {
	out := make([]metrics.Similarity, len(cs))
	for i := range cs {
		out[i] = metrics.Similarity{Score: float64(f), By: metrics.ByEmbed}
	}
	return out, nil
}

// When a judge overrides a fitted composite, turns.parquet's cosine column
// holds the embedding cosine, not the composite's probability: sweep
// calibrates the embedding's thresholds on that column, and one column
// must not mix two scales. The cosine is 0.42 everywhere, below the
// similarity band, so clauses (no composite applies to them) are not
// judged; values get a composite's 0.5, in its band, and are judged;
// replies get 0.9, above it, and are decided by the composite, their
// cosine recorded but no judge asked. The summary's judge counts agree
// with a count of the rows by the judge's marks, which a cosine alone is
// not.
func TestRowsKeepTheCosineUnderAJudgedComposite(t *testing.T) {
	const cosine = 0.42
	constant := func(logit float64) *composite.Model {
		return &composite.Model{Features: []string{features.Cosine}, Mean: []float64{0}, Scale: []float64{1}, Coefficients: []float64{0},
			Intercept: logit, Threshold: 0.5, EmbeddingModel: composite.EmbeddingModel{ID: "embed:fixed"}}
	}
	first, err := composite.NewScorer(fixedCosine(cosine), map[string]*composite.Model{
		metrics.SubTruthValues: constant(0), metrics.SubTruthResponse: constant(math.Log(9))})
	if err != nil {
		t.Fatal(err)
	}
	srv := judgetest.NewServer()
	defer srv.Close()
	j, err := judge.New(judge.Options{URL: srv.URL(), Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	prob := judge.Band{Low: 0.4, High: 0.6}
	esc := judge.NewEscalation(first, j, judge.Bands{Similarity: judge.Band{Low: 0.5, High: 0.6}, Probability: &prob})

	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	o := baseOptions(writeGolden(t, dir, genDialogs(20, 3)), out)
	o.Scorer = esc
	sum := mustRun(t, o)

	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var semantic, judged int
	seen := map[string]int{}
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.AllScores() {
			if fs.By == nil {
				continue
			}
			semantic++
			what := "value"
			switch {
			case strings.HasPrefix(fs.Field, "response.clause["):
				what = "clause"
			case fs.Field == "response":
				what = "reply"
			}
			seen[what]++
			asked := fs.JudgeReason != nil || fs.JudgeError != nil
			switch {
			case asked != (what == "value"):
				t.Errorf("%s turn %d %s (%s): judged %v: %+v", tr.DialogID, tr.TurnNo, fs.Field, what, asked, fs)
			case what != "clause" && (fs.Cosine == nil || *fs.Cosine != cosine):
				t.Errorf("%s turn %d %s: cosine column %v, want the cosine %v (not the composite's probability)", tr.DialogID, tr.TurnNo, fs.Field, ptrText(fs.Cosine), cosine)
			case what == "reply" && (*fs.By != composite.ByComposite || math.Abs(fs.Score-0.9) > 1e-9):
				t.Errorf("%s turn %d: the reply was not the composite's to decide: %+v", tr.DialogID, tr.TurnNo, fs)
			case what == "clause" && fs.Cosine != nil:
				t.Errorf("%s turn %d %s: an embedding decision with a cosine %v", tr.DialogID, tr.TurnNo, fs.Field, *fs.Cosine)
			}
			if asked {
				judged++
			}
		}
	}
	if seen["value"] == 0 || seen["reply"] == 0 || seen["clause"] == 0 {
		t.Fatalf("decisions by kind %v: the test needs all three", seen)
	}
	if j := sum.Judge; j == nil || j.Semantic != semantic || j.Escalated != judged || j.Decided != judged || j.Errors != 0 {
		t.Errorf("summary judge block %+v; the rows have %d semantic fields, %d judged", sum.Judge, semantic, judged)
	}
}

func ptrText(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// paidMeter is a JudgeMeter whose judge paid one call per scorer call of
// sc, and records what Run carried into it.
type paidMeter struct {
	sc      *fakeScorer
	carried []rundir.JudgeUsage
}

func (m *paidMeter) Usage() rundir.JudgeUsage {
	n := m.sc.calls.Load()
	return rundir.JudgeUsage{Calls: n, PromptTokens: 100 * n}
}

func (m *paidMeter) Carry(u rundir.JudgeUsage) { m.carried = append(m.carried, u) }

// A run that paid a judge keeps its account in the checkpoint when it
// stops, even before its first part (the old rule removed such a
// checkpoint, and the resumed run forgot what had been paid); a resume
// carries the account into the judge's budget, and every later part's
// manifest holds the total. A run without a judge still leaves no empty
// checkpoint.
func TestJudgeAccountSurvivesAStop(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(60, 9))
	ref := filepath.Join(dir, "ref")
	mustRun(t, baseOptions(in, ref))
	for _, tc := range []struct {
		name   string
		judged bool
		failAt int64
		parts  bool // the stop leaves committed parts
	}{
		{name: "judged, stopped before any part", judged: true, failAt: 1},
		{name: "judged, stopped after parts", judged: true, failAt: 6, parts: true},
		{name: "no judge, stopped before any part", failAt: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			sc := &fakeScorer{failAt: tc.failAt}
			o := baseOptions(in, out)
			o.Scorer, o.Workers, o.CheckpointTurns = sc, 1, 1
			if tc.judged {
				o.Judge = &paidMeter{sc: sc}
			}
			if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), "model exploded") {
				t.Fatalf("Run = %v, want the scorer's error", err)
			}
			ckpt := filepath.Join(out, rundir.CheckpointDir)
			m, found, err := loadManifest(ckpt)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.judged {
				if found {
					t.Fatalf("a run without a judge that committed nothing left a checkpoint: %+v", m)
				}
				return
			}
			if !found {
				t.Fatal("a run that paid a judge left no checkpoint")
			}
			if (len(m.Parts) > 0) != tc.parts {
				t.Errorf("%d parts committed, want parts: %v", len(m.Parts), tc.parts)
			}
			want := rundir.JudgeUsage{Invocations: 1, Calls: tc.failAt, PromptTokens: 100 * tc.failAt}
			if m.JudgeUsage == nil || *m.JudgeUsage != want {
				t.Fatalf("checkpoint's judge account %+v, want %+v", m.JudgeUsage, want)
			}

			sc2 := &fakeScorer{}
			meter := &paidMeter{sc: sc2}
			o = baseOptions(in, out)
			o.Scorer, o.Workers, o.CheckpointTurns, o.Resume, o.Judge = sc2, 2, 1, true, meter
			mustRun(t, o)
			sameOutputs(t, ref, out)
			if len(meter.carried) != 1 || meter.carried[0] != want {
				t.Errorf("Run carried %+v into the judge, want once %+v", meter.carried, want)
			}
		})
	}
}
