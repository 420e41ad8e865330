package rundir_test

import (
	"context"
	"testing"

	"github.com/aem-dev/aem/rundir"
)

// TestReadRunWithoutKinds: a run directory written before field_scores had
// a kind reads, each value's kind null.
func TestReadRunWithoutKinds(t *testing.T) {
	ctx := context.Background()
	r, err := rundir.Open(ctx, "testdata/v1/trials", rundir.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for tr, err := range rundir.ReadTurns[rundir.TurnRow](ctx, r) {
		if err != nil {
			t.Fatal(err)
		}
		for _, fs := range tr.FieldScores {
			n++
			if fs.Kind != nil || fs.Field == "" || fs.Method == "" {
				t.Errorf("%s/%d: field score %+v: want its field and method, and no kind", tr.DialogID, tr.TurnNo, fs)
			}
		}
	}
	if n == 0 {
		t.Fatal("no field scores read")
	}
}
