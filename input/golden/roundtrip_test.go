package golden

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"

	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
)

func f64(v float64) *float64 { return &v }
func bptr(v bool) *bool      { return &v }

// sampleDialogs exercises every field, both null sides and all roles.
func sampleDialogs() []metrics.Dialog {
	return []metrics.Dialog{
		{ID: "sales-1", Turns: []metrics.Turn{
			{DialogID: "sales-1", TurnNo: 1, Role: metrics.RoleUser, HasGold: true, GoldResponse: "Show Q3 revenue"},
			{DialogID: "sales-1", TurnNo: 2, Role: metrics.RoleTool, HasGold: true, HasPredict: true,
				Gold:    metrics.Call{ToolID: "db", Action: "query", Args: map[string]any{"metric": "revenue", "q": json.Number("3"), "nested": map[string]any{"a": []any{json.Number("1.10"), true, nil}}}},
				Predict: metrics.Call{ToolID: "db", Action: "query", Args: map[string]any{"metric": "profit", "q": json.Number("3")}},
				Tags:    []string{"OrderInvariant_a", "x"}, DependsOn: []int{1}, Weight: f64(2), Critical: true, LatencyMS: f64(12.5)},
			{DialogID: "sales-1", TurnNo: 3, Role: metrics.RoleTool, HasGold: true, HasPredict: false,
				Gold: metrics.Call{ToolID: "chart", Action: "plot", Args: map[string]any{}}, DependsOn: []int{}},
			{DialogID: "sales-1", TurnNo: 4, Role: metrics.RoleTool, HasGold: false, HasPredict: true,
				// testdata/sales.parquet predates the naming rule: it holds
				// predict_tool_id "" and predict_action "extra", which read
				// as the plain function "extra".
				Predict: metrics.FunctionCall("extra", map[string]any{"k": "<&>"})},
			{DialogID: "sales-1", TurnNo: 5, Role: metrics.RoleAgent, HasGold: true, HasPredict: true,
				GoldResponse: "Revenue was 3M.", PredictResponse: "", HumanLabel: bptr(false), HumanScore: f64(0.25)},
		}},
		{ID: "d2", Turns: []metrics.Turn{
			{DialogID: "d2", TurnNo: 1, Role: metrics.RoleAgent, HasGold: true, GoldResponse: "hi"},
			{DialogID: "d2", TurnNo: 7, Role: metrics.RoleAgent, HasPredict: true, PredictResponse: "extra", HumanLabel: bptr(true)},
		}},
	}
}

func readAll(t *testing.T, path string, opts ReadOptions) ([]Dialog, *Reader) {
	t.Helper()
	r, err := Open(context.Background(), path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	var out []Dialog
	for {
		d, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, d)
	}
	return out, r
}

func metricDialogs(ds []Dialog) []metrics.Dialog {
	out := make([]metrics.Dialog, len(ds))
	for i, d := range ds {
		out[i] = d.Dialog
	}
	return out
}

func TestWriteReadRoundTrip(t *testing.T) {
	for _, rows := range []int64{0, 1, 3} {
		path := filepath.Join(t.TempDir(), "g.parquet")
		want := sampleDialogs()
		n, err := Write(context.Background(), path, Slice(want), WriteOptions{RowGroupRows: rows})
		if err != nil {
			t.Fatal(err)
		}
		if n != 7 {
			t.Errorf("turns written = %d, want 7", n)
		}
		got, r := readAll(t, path, ReadOptions{BatchRows: 2})
		if diff := cmp.Diff(want, metricDialogs(got)); diff != "" {
			t.Errorf("row groups of %d: round trip mismatch (-want +got):\n%s", rows, diff)
		}
		if r.NumRows() != 7 {
			t.Errorf("NumRows = %d, want 7", r.NumRows())
		}
		if _, unsorted := r.Unsorted(); unsorted {
			t.Error("sorted file reported unsorted")
		}
		if len(r.Extras()) != 0 {
			t.Errorf("extras = %v, want none", r.Extras())
		}
		if got[1].Rows[1] != 6 {
			t.Errorf("row of last turn = %d, want 6", got[1].Rows[1])
		}
	}
}

func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.parquet")
	boom := errors.New("boom")
	seq := func(yield func(metrics.Dialog, error) bool) {
		if !yield(sampleDialogs()[0], nil) {
			return
		}
		yield(metrics.Dialog{}, boom)
	}
	if _, err := Write(context.Background(), path, seq, WriteOptions{}); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left files behind: %v", entries)
	}
	// A cancelled context leaves nothing either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, path, Slice(sampleDialogs()), WriteOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left files behind: %v", entries)
	}
}

func TestSafelyRecoversPanics(t *testing.T) {
	err := safely("x.parquet", "reading row group 3", func() error { panic("index out of range") })
	if !errors.Is(err, ErrCorrupt) || !errors.Is(err, badinput.ErrInvalid) {
		t.Fatalf("err = %v, want ErrCorrupt", err)
	}
	for _, want := range []string{"x.parquet", "row group 3", "index out of range"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not mention %q", err, want)
		}
	}
	if err := safely("x", "y", func() error { return nil }); err != nil {
		t.Errorf("err = %v", err)
	}
}

func TestWriterMisuse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.parquet")
	w, err := Create(path, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := metrics.Dialog{ID: "a", Turns: []metrics.Turn{{DialogID: "b", TurnNo: 1, Role: metrics.RoleAgent, HasGold: true}}}
	if err := w.Write(bad); err == nil || !strings.Contains(err.Error(), `dialog_id "b"`) {
		t.Errorf("mismatched dialog id: err = %v", err)
	}
	if err := w.Write(sampleDialogs()[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Abort() // no-op after Commit
	if err := w.Write(sampleDialogs()[1]); err == nil {
		t.Error("Write after Commit succeeded")
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("stat = %v, %v", st, err)
	}
	got, r := readAll(t, path, ReadOptions{})
	if len(got) != 1 || w.Turns() != 2 {
		t.Errorf("got %d dialogs, %d turns", len(got), w.Turns())
	}
	r.Close()
	if _, err := r.Next(context.Background()); err == nil {
		t.Error("Next after Close succeeded")
	}
}
