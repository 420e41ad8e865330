package batch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
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
// and reply, in its band, and the cosine is 0.42 everywhere, below the
// similarity band: values and replies are judged, clauses (no composite
// applies to them) are not. The summary's judge counts agree with a count
// of the rows by another mark than the one it uses.
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
	var semantic, judged, clauses int
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.AllScores() {
			if fs.By == nil {
				continue
			}
			semantic++
			clause := strings.HasPrefix(fs.Field, "response.clause[")
			if clause {
				clauses++
			}
			asked := fs.JudgeReason != nil || fs.JudgeError != nil
			switch {
			case asked == clause:
				t.Errorf("%s turn %d %s: judged %v: %+v", tr.DialogID, tr.TurnNo, fs.Field, asked, fs)
			case asked && (fs.Cosine == nil || *fs.Cosine != cosine):
				t.Errorf("%s turn %d %s: cosine column %v, want the cosine %v (0.5 is the composite's probability)", tr.DialogID, tr.TurnNo, fs.Field, ptrText(fs.Cosine), cosine)
			case !asked && fs.Cosine != nil:
				t.Errorf("%s turn %d %s: not judged, yet a cosine %v", tr.DialogID, tr.TurnNo, fs.Field, *fs.Cosine)
			case asked:
				judged++
			}
		}
	}
	if judged == 0 || clauses == 0 {
		t.Fatalf("%d judged fields, %d clauses: the test needs both", judged, clauses)
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
