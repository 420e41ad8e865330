package golden

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/datasets"
	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
)

func generated(n int) []metrics.Dialog {
	cfg := datasets.DefaultGenConfig()
	cfg.Dialogs = n
	cfg.DependsOn = true
	var out []metrics.Dialog
	for d := range datasets.Generate(cfg) {
		out = append(out, d)
	}
	return out
}

// Generated dialogs survive a write and a read with small row groups and
// batches (dialogs straddle row groups and read calls).
func TestGeneratedRoundTrip(t *testing.T) {
	want := generated(300)
	path := filepath.Join(t.TempDir(), "gen.parquet")
	if _, err := Write(context.Background(), path, Slice(want), WriteOptions{RowGroupRows: 97}); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, path, ReadOptions{BatchRows: 13, RequireSorted: true})
	if diff := cmp.Diff(want, metricDialogs(got)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

// Shuffled rows come back as whole dialogs, in order of first appearance,
// through the on-disk fallback with many small runs.
func TestUnsortedGeneratedFallback(t *testing.T) {
	dialogs := generated(200)
	var rows []Row
	for _, d := range dialogs {
		for _, turn := range d.Turns {
			r, err := RowOf(turn)
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	path := filepath.Join(t.TempDir(), "shuffled.parquet")
	writeRows(t, path, rows, 256)

	// Expected order: first appearance in the shuffled file.
	byID := map[string]metrics.Dialog{}
	for _, d := range dialogs {
		byID[d.ID] = d
	}
	var want []metrics.Dialog
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.DialogID] {
			seen[r.DialogID] = true
			want = append(want, byID[r.DialogID])
		}
	}
	for _, mem := range []int64{0, 16 << 10} {
		got, r := readAll(t, path, ReadOptions{SpillDir: t.TempDir(), SpillMemory: mem, BatchRows: 100})
		if _, ok := r.Unsorted(); !ok {
			t.Fatal("shuffled file not detected as unsorted")
		}
		if diff := cmp.Diff(want, metricDialogs(got)); diff != "" {
			t.Errorf("spill memory %d: (-want +got):\n%s", mem, diff)
		}
		for _, d := range got {
			for i, row := range d.Rows {
				if rows[row].DialogID != d.ID || int(rows[row].TurnNo) != d.Turns[i].TurnNo {
					t.Fatalf("dialog %s turn %d: row %d is %s/%d", d.ID, i, row, rows[row].DialogID, rows[row].TurnNo)
				}
			}
		}
	}
}
