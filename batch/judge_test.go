package batch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/batch/rundir"
	"github.com/aem-dev/aem/judge"
	"github.com/aem-dev/aem/judge/judgetest"
	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/metrics/composite"
	"github.com/aem-dev/aem/metrics/features"
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
// must not mix two scales. The composite here answers 0.5 for every value
// and reply, the cosine is 0.42 everywhere, and every score is escalated;
// the judged clauses (no composite applies to them) check the plain case.
func TestRowsKeepTheCosineUnderAJudgedComposite(t *testing.T) {
	const cosine = 0.42
	flat := &composite.Model{Features: []string{features.Cosine}, Mean: []float64{0}, Scale: []float64{1}, Coefficients: []float64{0},
		Threshold: 0.5, EmbeddingModel: composite.EmbeddingModel{ID: "embed:fixed"}}
	first, err := composite.NewScorer(fixedCosine(cosine), map[string]*composite.Model{composite.DefaultKey: flat})
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
	esc := judge.NewEscalation(first, j, judge.Bands{Similarity: judge.Band{Low: 0.3, High: 0.6}, Probability: &prob})

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
	kinds := map[string]int{}
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.FieldScores {
			if fs.By == nil {
				continue
			}
			if fs.Cosine == nil || *fs.By != metrics.ByJudge {
				t.Fatalf("%s turn %d %s: not escalated: %+v", tr.DialogID, tr.TurnNo, fs.Field, fs)
			}
			if *fs.Cosine != cosine {
				t.Errorf("%s turn %d %s: cosine column %v, want the cosine %v (0.5 is the composite's probability)", tr.DialogID, tr.TurnNo, fs.Field, *fs.Cosine, cosine)
			}
			kinds[tr.Kind]++
		}
	}
	if kinds["action"] == 0 || kinds["response"] == 0 {
		t.Errorf("judged fields by kind %v: the test needs values and replies", kinds)
	}
	// The summary's judge counts agree with the rows': every semantic
	// field was escalated and decided by the judge.
	if j := sum.Judge; j == nil || j.Escalated != j.Semantic || j.Decided != j.Semantic || j.Semantic != kinds["action"]+kinds["response"] {
		t.Errorf("summary judge block %+v, rows counted %v", sum.Judge, kinds)
	}
}
