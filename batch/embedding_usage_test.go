package batch

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/aem-dev/aem/rundir"
)

// summary.json's embedding section: the scorer's figures, completed with
// the turns scored and the field and clause comparisons no scorer saw
// (counted here again from the rows written); absent without an
// EmbeddingUsage.
func TestRunEmbeddingUsage(t *testing.T) {
	dir := t.TempDir()
	in := writeGolden(t, dir, genDialogs(60, 1))

	plain := mustRun(t, baseOptions(in, filepath.Join(dir, "plain")))
	if plain.Embedding != nil {
		t.Errorf("a run without EmbeddingUsage has an embedding section: %+v", plain.Embedding)
	}

	out := filepath.Join(dir, "out")
	o := baseOptions(in, out)
	o.EmbeddingUsage = func() rundir.EmbeddingUsage {
		return rundir.EmbeddingUsage{StringsEmbedded: 300, EmbeddedByKind: map[string]int64{"values": 300}, Sessions: 2, Threads: 1}
	}
	mustRun(t, o)
	sum, err := rundir.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	u := sum.Embedding
	if u == nil {
		t.Fatal("no embedding section in summary.json")
	}
	if u.ScoredTurns != int64(sum.Turns) || u.StringsEmbedded != 300 || u.StringsPerScoredTurn != 300/float64(sum.Turns) ||
		u.Sessions != 2 || u.EmbeddedByKind["values"] != 300 {
		t.Errorf("embedding section %+v for %d scored turns", u, sum.Turns)
	}
	want := map[string]int64{}
	count := func(method string, by *string) {
		switch method {
		case metrics.MethodExact, metrics.MethodNormalized, metrics.MethodTyped, metrics.MethodAny, metrics.MethodNotRequired:
			if by == nil {
				want[method]++
			}
		}
	}
	rd, err := rundir.Open(context.Background(), out, rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	for tr, err := range rd.Turns(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.FieldScores {
			count(fs.Method, fs.By)
		}
		for _, c := range tr.Clauses {
			count(c.Method, c.By)
		}
	}
	for _, m := range []string{metrics.MethodExact, metrics.MethodNormalized, metrics.MethodTyped, metrics.MethodAny, metrics.MethodNotRequired} {
		if n, ok := u.DecidedWithoutModel[m]; !ok || n != want[m] {
			t.Errorf("decided_without_model[%s] = %d (present: %v), rows say %d", m, n, ok, want[m])
		}
	}
	if want[metrics.MethodExact] == 0 {
		t.Error("the generated dialogs decide no field exactly: the test needs some")
	}
}
