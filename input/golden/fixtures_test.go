package golden

import (
	"context"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/metrics"
	"github.com/parquet-go/parquet-go"
)

// Run `go test ./input/golden -run TestFixtures -update` to regenerate the
// Parquet files under testdata/ (the JSON fixtures are written by hand).
var update = flag.Bool("update", false, "rewrite the Parquet fixtures under testdata/")

// altRow is a user's own layout: other names, other physical types,
// required strings, a bare repeated tags column and extra columns.
type altRow struct {
	ConvID       int64    `parquet:"conv_id"`
	TurnNo       int32    `parquet:"turn_no"`
	Role         string   `parquet:"role"`
	Expected     *string  `parquet:"expected_text,optional"`
	Actual       *string  `parquet:"actual_text,optional"`
	GoldToolID   *string  `parquet:"gold_tool_id,optional"`
	GoldAction   *string  `parquet:"gold_action,optional"`
	ExpectedArgs *string  `parquet:"expected_arguments,optional,json"`
	PredToolID   *string  `parquet:"predict_tool_id,optional"`
	PredAction   *string  `parquet:"predict_action,optional"`
	PredArgs     *string  `parquet:"predict_args,optional"`
	Tags         []string `parquet:"tags"`
	Weight       float32  `parquet:"weight"`
	HumanScore   *int32   `parquet:"human_score,optional"`
	Source       string   `parquet:"source"`
	Meta         altMeta  `parquet:"meta"`
	Score        *float64 `parquet:"gold_response,optional"` // a user column that clashes with a canonical name
}

type altMeta struct {
	Lang  string   `parquet:"lang"`
	Notes []string `parquet:"notes,list"`
}

func sp(s string) *string { return &s }

var altMapping = Mapping{
	ColDialogID: "conv_id", ColTurn: "role", ColGoldResponse: "expected_text",
	ColPredictResponse: "actual_text", ColGoldArgs: "expected_arguments",
}

func altRows() []altRow {
	one := int32(1)
	return []altRow{
		{ConvID: 42, TurnNo: 2, Role: "tool", GoldToolID: sp("db"), GoldAction: sp("query"), ExpectedArgs: sp(`{"n": 1}`),
			PredToolID: sp("db"), PredAction: sp("query"), PredArgs: sp(`{"n": 2}`), Tags: []string{"a", "b"}, Weight: 0.5,
			Source: "s1", Meta: altMeta{Lang: "en", Notes: []string{"x"}}},
		{ConvID: 42, TurnNo: 1, Role: "Agent", Expected: sp("hello"), Actual: sp("hi"), Weight: 1, HumanScore: &one,
			Source: "s0", Meta: altMeta{Lang: "fr"}, Score: func() *float64 { f := 0.5; return &f }()},
		{ConvID: 7, TurnNo: 1, Role: "USER", Expected: sp("context"), Weight: 2, Source: "s2"},
	}
}

// canonRows builds rows of the canonical schema for unsorted and malformed fixtures.
func canonRows(spec ...[2]any) []Row {
	var rows []Row
	for _, s := range spec {
		rows = append(rows, Row{DialogID: s[0].(string), TurnNo: int64(s[1].(int)), Turn: "Agent",
			GoldResponse: sp("g"), PredictResponse: sp("p")})
	}
	return rows
}

func writeRows[T any](t *testing.T, path string, rows []T, rowGroup int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(rowGroup))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestFixtures(t *testing.T) {
	if !*update {
		t.Skip("run with -update to regenerate the Parquet fixtures")
	}
	td := "testdata"
	if _, err := Write(context.Background(), filepath.Join(td, "sales.parquet"), Slice(sampleDialogs()), WriteOptions{RowGroupRows: 3}); err != nil {
		t.Fatal(err)
	}
	writeRows(t, filepath.Join(td, "mapped_types.parquet"), altRows(), 2)
	// d1 d1 d2 d1 d3 d2 d3 across row groups of 2: d1 and d2 come back.
	writeRows(t, filepath.Join(td, "unsorted.parquet"), canonRows(
		[2]any{"d1", 2}, [2]any{"d1", 1}, [2]any{"d2", 1}, [2]any{"d1", 3}, [2]any{"d3", 1}, [2]any{"d2", 2}, [2]any{"d3", 2}), 2)

	m := filepath.Join(td, "malformed")
	data, err := os.ReadFile(filepath.Join(td, "sales.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(m, "truncated.parquet"), data[:len(data)/2], 0o644))
	must(os.WriteFile(filepath.Join(m, "empty.parquet"), nil, 0o644))
	bad := append([]byte(nil), data...)
	copy(bad[len(bad)-8-40:], make([]byte, 40)) // zero part of the footer
	must(os.WriteFile(filepath.Join(m, "bad_footer.parquet"), bad, 0o644))
	pages := append([]byte(nil), data...)
	for i := 8; i < len(pages)/3; i++ { // scramble the first column chunks' pages
		pages[i] ^= 0x5a
	}
	must(os.WriteFile(filepath.Join(m, "bad_pages.parquet"), pages, 0o644))

	row := func(mut func(*Row)) []Row {
		r := canonRows([2]any{"d1", 1}, [2]any{"d1", 2})
		mut(&r[1])
		return r
	}
	writeRows(t, filepath.Join(m, "bad_args.parquet"), row(func(r *Row) {
		r.Turn, r.GoldToolID, r.GoldAction, r.GoldArgs = "Tool", sp("db"), sp("q"), sp(`{"a": 1,}`)
		r.GoldResponse, r.PredictResponse = nil, nil
	}), 10)
	writeRows(t, filepath.Join(m, "args_not_object.parquet"), row(func(r *Row) {
		r.Turn, r.GoldToolID, r.GoldAction, r.GoldArgs = "Tool", sp("db"), sp("q"), sp(`[1, 2]`)
		r.GoldResponse, r.PredictResponse = nil, nil
	}), 10)
	writeRows(t, filepath.Join(m, "duplicate_turn.parquet"), row(func(r *Row) { r.TurnNo = 1 }), 10)
	writeRows(t, filepath.Join(m, "unknown_role.parquet"), row(func(r *Row) { r.Turn = "Assistant" }), 10)
	writeRows(t, filepath.Join(m, "negative_weight.parquet"), row(func(r *Row) { r.Weight = func() *float64 { f := -1.0; return &f }() }), 10)
	writeRows(t, filepath.Join(m, "huge_latency.parquet"), row(func(r *Row) { r.LatencyMS = func() *float64 { f := math.MaxFloat64; return &f }() }), 10)
	writeRows(t, filepath.Join(m, "nan_score.parquet"), row(func(r *Row) { r.HumanScore = func() *float64 { f := math.NaN(); return &f }() }), 10)
	writeRows(t, filepath.Join(m, "empty_dialog_id.parquet"), row(func(r *Row) { r.DialogID = "" }), 10)
	writeRows(t, filepath.Join(m, "zero_turn_no.parquet"), row(func(r *Row) { r.TurnNo = 0 }), 10)
	writeRows(t, filepath.Join(m, "no_sides.parquet"), row(func(r *Row) { r.GoldResponse, r.PredictResponse = nil, nil }), 10)
	writeRows(t, filepath.Join(m, "bad_depends_on.parquet"), row(func(r *Row) { r.DependsOn = []int64{2} }), 10)
	type missingCols struct {
		DialogID string `parquet:"dialog_id"`
		TurnNo   int64  `parquet:"turn_no"`
		Turn     string `parquet:"turn"`
		Expected string `parquet:"expected_arguments"`
	}
	writeRows(t, filepath.Join(m, "missing_columns.parquet"), []missingCols{{"d1", 1, "Agent", "{}"}}, 10)
	type wrongType struct {
		DialogID        string `parquet:"dialog_id"`
		TurnNo          string `parquet:"turn_no"`
		Turn            string `parquet:"turn"`
		GoldResponse    string `parquet:"gold_response"`
		PredictResponse string `parquet:"predict_response"`
		GoldToolID      string `parquet:"gold_tool_id"`
		GoldAction      string `parquet:"gold_action"`
		GoldArgs        string `parquet:"gold_args"`
		PredictToolID   string `parquet:"predict_tool_id"`
		PredictAction   string `parquet:"predict_action"`
		PredictArgs     string `parquet:"predict_args"`
	}
	writeRows(t, filepath.Join(m, "wrong_type.parquet"), []wrongType{{DialogID: "d1", TurnNo: "one", Turn: "Agent"}}, 10)
	_ = metrics.RoleAgent
}
