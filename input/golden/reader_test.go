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
	"github.com/parquet-go/parquet-go"
)

func TestReadSalesFixture(t *testing.T) {
	got, _ := readAll(t, "testdata/sales.parquet", ReadOptions{})
	if diff := cmp.Diff(sampleDialogs(), metricDialogs(got)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestReadMappedTypesAndExtras(t *testing.T) {
	got, r := readAll(t, "testdata/mapped_types.parquet", ReadOptions{Mapping: altMapping})
	if len(got) != 2 {
		t.Fatalf("got %d dialogs, want 2", len(got))
	}
	d := got[0]
	if d.ID != "42" || len(d.Turns) != 2 {
		t.Fatalf("dialog 0 = %q with %d turns, want \"42\" with 2", d.ID, len(d.Turns))
	}
	// Sorted by turn_no: the Agent row (input row 1) comes first.
	if d.Rows[0] != 1 || d.Rows[1] != 0 {
		t.Errorf("rows = %v, want [1 0]", d.Rows)
	}
	t1, t2 := d.Turns[0], d.Turns[1]
	if t1.Role != metrics.RoleAgent || t1.GoldResponse != "hello" || t1.PredictResponse != "hi" || !t1.HasGold || !t1.HasPredict {
		t.Errorf("turn 1 = %+v", t1)
	}
	if t1.HumanScore == nil || *t1.HumanScore != 1 {
		t.Errorf("human_score from int32 = %v, want 1", t1.HumanScore)
	}
	if t2.Role != metrics.RoleTool || t2.Gold.Args["n"] != json.Number("1") || t2.Predict.Args["n"] != json.Number("2") {
		t.Errorf("turn 2 = %+v", t2)
	}
	if *t2.Weight != 0.5 || !cmp.Equal(t2.Tags, []string{"a", "b"}) {
		t.Errorf("turn 2 weight %v tags %v", *t2.Weight, t2.Tags)
	}
	if got[1].ID != "7" || got[1].Turns[0].Role != metrics.RoleUser {
		t.Errorf("dialog 1 = %+v", got[1])
	}

	// Extras: everything not canonical, in file order, with their types.
	var names []string
	for _, e := range r.Extras() {
		names = append(names, e.Name)
	}
	if want := []string{"source", "meta", "gold_response"}; !cmp.Equal(names, want) {
		t.Fatalf("extras = %v, want %v", names, want)
	}
	if r.ExtraSchema() == nil || len(r.ExtraSchema().Columns()) != 4 {
		t.Fatalf("extra schema = %v", r.ExtraSchema())
	}
	// Write the extras next to a base schema and read them back.
	type base struct {
		DialogID     string  `parquet:"dialog_id"`
		TurnNo       int64   `parquet:"turn_no"`
		GoldResponse *string `parquet:"gold_response,optional"`
	}
	bs := parquet.SchemaOf(base{})
	schema := ExtendSchema("turns", bs, r.Extras())
	cols := schema.Columns()
	if want := []string{"dialog_id", "turn_no", "gold_response", "source", "meta", "input_gold_response"}; !cmp.Equal(topLevel(cols), want) {
		t.Errorf("extended columns = %v, want %v", topLevel(cols), want)
	}
	path := filepath.Join(t.TempDir(), "turns.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewWriter(f, schema)
	for _, dl := range got {
		for i, turn := range dl.Turns {
			row := bs.Deconstruct(nil, &base{DialogID: dl.ID, TurnNo: int64(turn.TurnNo)})
			if _, err := w.WriteRows([]parquet.Row{AppendExtra(row, len(bs.Columns()), dl.Extra[i])}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	type out struct {
		DialogID string   `parquet:"dialog_id"`
		TurnNo   int64    `parquet:"turn_no"`
		Source   string   `parquet:"source"`
		Meta     altMeta  `parquet:"meta"`
		Score    *float64 `parquet:"input_gold_response,optional"`
	}
	rows, err := parquet.ReadFile[out](path)
	if err != nil {
		t.Fatal(err)
	}
	half := 0.5
	want := []out{
		{"42", 1, "s0", altMeta{Lang: "fr"}, &half},
		{"42", 2, "s1", altMeta{Lang: "en", Notes: []string{"x"}}, nil},
		{"7", 1, "s2", altMeta{}, nil},
	}
	if diff := cmp.Diff(want, rows, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") })); diff != "" {
		t.Errorf("carried extras (-want +got):\n%s", diff)
	}
}

func topLevel(cols [][]string) []string {
	var out []string
	for _, c := range cols {
		if len(out) == 0 || out[len(out)-1] != c[0] {
			out = append(out, c[0])
		}
	}
	return out
}

func TestMissingColumnsWithoutMapping(t *testing.T) {
	_, err := Open(context.Background(), "testdata/mapped_types.parquet", ReadOptions{})
	var ce *badinput.RowError
	if !errors.As(err, &ce) || !errors.Is(err, ErrMissingColumn) || !errors.Is(err, badinput.ErrInvalid) || ce.Row != badinput.NoRow {
		t.Fatalf("err = %v, want a *badinput.RowError about the file wrapping ErrMissingColumn", err)
	}
	for _, want := range []string{"mapped_types.parquet", "dialog_id", "turn", "conv_id", "--map"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// A mapping to a column that does not exist.
	_, err = Open(context.Background(), "testdata/mapped_types.parquet", ReadOptions{Mapping: Mapping{ColDialogID: "nope"}})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "dialog_id=nope") {
		t.Errorf("err = %v, want the bad mapping named", err)
	}
	// Two canonical names fed by one column.
	_, err = Open(context.Background(), "testdata/sales.parquet", ReadOptions{Mapping: Mapping{ColGoldResponse: "predict_response"}})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "both") {
		t.Errorf("err = %v, want a shared column error", err)
	}
}

func TestUnsortedFallback(t *testing.T) {
	wantIDs := []string{"d1", "d2", "d3"}
	for _, mem := range []int64{0, 1} { // in memory, and one run per row
		t.Run(map[int64]string{0: "memory", 1: "spill"}[mem], func(t *testing.T) {
			dir := t.TempDir()
			hook := &recordHook{}
			got, r := readAll(t, "testdata/unsorted.parquet", ReadOptions{SpillDir: dir, SpillMemory: mem, Hook: hook})
			var ids []string
			for _, d := range got {
				ids = append(ids, d.ID)
				for i, turn := range d.Turns {
					if turn.TurnNo != i+1 || turn.DialogID != d.ID {
						t.Errorf("dialog %s turn %d = %+v", d.ID, i, turn)
					}
				}
			}
			if !cmp.Equal(ids, wantIDs) {
				t.Errorf("dialogs = %v, want %v", ids, wantIDs)
			}
			if !cmp.Equal(got[0].Rows, []int64{1, 0, 3}) {
				t.Errorf("d1 rows = %v, want [1 0 3]", got[0].Rows)
			}
			info, ok := r.Unsorted()
			if !ok || len(hook.infos) != 1 || info != hook.infos[0] {
				t.Fatalf("unsorted = %+v %v, hook = %+v", info, ok, hook.infos)
			}
			if info.DialogID != "d1" || info.Row != 3 || info.FirstRow != 1 || info.Dialogs != 3 || info.Rows != 7 {
				t.Errorf("info = %+v", info)
			}
			if mem == 1 {
				if entries, _ := os.ReadDir(dir); len(entries) == 0 {
					t.Error("no spill runs written")
				}
			}
			r.Close()
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("spill files left after Close: %v", entries)
			}
		})
	}
}

type recordHook struct{ infos []UnsortedInfo }

func (h *recordHook) UnsortedFallback(i UnsortedInfo) { h.infos = append(h.infos, i) }

func TestRequireSorted(t *testing.T) {
	_, err := Open(context.Background(), "testdata/unsorted.parquet", ReadOptions{RequireSorted: true})
	var ue *badinput.RowError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnsorted) || ue.Row != 3 || ue.Field != ColDialogID {
		t.Fatalf("err = %v, want a *badinput.RowError at row 3, field dialog_id, wrapping ErrUnsorted", err)
	}
	for _, want := range []string{"row 3", "row 1", `"d1"`, "sort", "--require-sorted"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	// Sorted input passes.
	readAll(t, "testdata/sales.parquet", ReadOptions{RequireSorted: true})
}

func TestMalformed(t *testing.T) {
	type want struct {
		sentinel error
		row      int64
		column   string
		text     []string
	}
	cases := map[string]want{
		"truncated.parquet":       {sentinel: ErrCorrupt, text: []string{"truncated.parquet"}},
		"empty.parquet":           {sentinel: ErrEmpty, text: []string{"empty.parquet", "0 bytes"}},
		"bad_footer.parquet":      {sentinel: ErrCorrupt, text: []string{"bad_footer.parquet"}},
		"bad_pages.parquet":       {sentinel: ErrCorrupt, text: []string{"bad_pages.parquet", "row group"}},
		"not_golden.csv":          {sentinel: ErrCorrupt, text: []string{"not_golden.csv", "PAR1"}},
		"missing_columns.parquet": {sentinel: ErrMissingColumn, text: []string{"gold_response", "predict_args", "expected_arguments", "--map"}},
		"wrong_type.parquet":      {sentinel: ErrMissingColumn, text: []string{"turn_no", "int32 or int64", "STRING"}},
		"bad_args.parquet":        {sentinel: ErrInvalidRow, row: 1, column: "gold_args", text: []string{"bad args", "invalid character", "fix:"}},
		"args_not_object.parquet": {sentinel: ErrInvalidRow, row: 1, column: "gold_args", text: []string{"must be a JSON object, got an array"}},
		"duplicate_turn.parquet":  {sentinel: ErrInvalidRow, row: 1, column: "turn_no", text: []string{"duplicate turn_no 1", "row 0"}},
		"unknown_role.parquet":    {sentinel: ErrInvalidRow, row: 1, column: "turn", text: []string{`"Assistant"`, "Agent"}},
		"negative_weight.parquet": {sentinel: ErrInvalidRow, row: 1, column: "weight", text: []string{"-1"}},
		"nan_score.parquet":       {sentinel: ErrInvalidRow, row: 1, column: "human_score", text: []string{"NaN"}},
		"huge_latency.parquet":    {sentinel: ErrInvalidRow, row: 1, column: "latency_ms", text: []string{"1.7976931348623157e+308", "about 31 years"}},
		"huge_latency.json":       {sentinel: ErrInvalidRow, column: "latency_ms", text: []string{"1.7976931348623157e+308", "about 31 years"}},
		"empty_dialog_id.parquet": {sentinel: ErrInvalidRow, row: 1, column: "dialog_id", text: []string{"empty"}},
		"zero_turn_no.parquet":    {sentinel: ErrInvalidRow, row: 1, column: "turn_no", text: []string{"number turns from 1"}},
		"no_sides.parquet":        {sentinel: ErrInvalidRow, row: 1, column: "gold_response", text: []string{"neither"}},
		"bad_depends_on.parquet":  {sentinel: ErrInvalidRow, row: 1, column: "depends_on", text: []string{"depends on turn 2"}},
		"bad_args.jsonl":          {sentinel: ErrInvalidRow, row: -1, column: "turns[0].gold_turn.args", text: []string{"line 2", "invalid character"}},
		"truncated.jsonl":         {sentinel: ErrCorrupt, text: []string{"truncated.jsonl"}},
		"duplicate_dialog.jsonl":  {sentinel: ErrInvalidRow, row: -1, column: "dialog_id", text: []string{"line 2", "already appeared on line 1"}},
		"duplicate_turn.json":     {sentinel: ErrInvalidRow, row: 1, column: "turn_no", text: []string{"line 2", "row 0"}},
		"unknown_role.json":       {sentinel: ErrInvalidRow, column: "turn", text: []string{`"Bot"`}},
		"args_array.json":         {sentinel: ErrInvalidRow, column: "gold_turn.args", text: []string{"got an array"}},
		"unknown_side_field.json": {sentinel: ErrInvalidRow, column: "gold_turn.respnse", text: []string{"unknown field"}},
		"name_beside_action.json": {sentinel: ErrInvalidRow, column: "gold_turn.name", text: []string{"function name beside tool_id or action"}},
		"string_turn_no.json":     {sentinel: ErrInvalidRow, column: "turn_no", text: []string{"not an integer"}},
		"negative_weight.json":    {sentinel: ErrInvalidRow, column: "weight", text: []string{"-2"}},
		"empty_dialog_id.jsonl":   {sentinel: ErrInvalidRow, row: -1, column: "dialog_id", text: []string{"line 1"}},
		"bad_spec.json":           {sentinel: ErrInvalidRow, column: "gold_turn.args", text: []string{"$any must be a JSON array"}},
		"trial_twice.jsonl":       {sentinel: ErrInvalidRow, row: -1, column: "dialog_id", text: []string{"line 3", `dialog_id "a" trial 1 already appeared on line 1`}},
		"trial_in_turn.jsonl":     {sentinel: ErrInvalidRow, row: -1, column: "turns[0].trial", text: []string{"line 1", "give the trial on the dialog object"}},
		"negative_trial.jsonl":    {sentinel: ErrInvalidRow, row: -1, column: "trial", text: []string{"line 1", "trial -1 is negative"}},
		"mixed_trial.json":        {sentinel: ErrInvalidRow, row: 1, column: "trial", text: []string{"has no trial here but has one at row 0", "every row"}},
		"string_trial.json":       {sentinel: ErrInvalidRow, row: 0, column: "trial", text: []string{`trial "first" is not an integer`}},
	}
	entries, err := os.ReadDir("testdata/malformed")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := cases[e.Name()]; !ok {
			t.Errorf("testdata/malformed/%s has no test case", e.Name())
		}
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			err := readErr(filepath.Join("testdata/malformed", name))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, w.sentinel) || !errors.Is(err, badinput.ErrInvalid) {
				t.Errorf("err = %v, want %v", err, w.sentinel)
			}
			if w.sentinel == ErrInvalidRow {
				var re *badinput.RowError
				if !errors.As(err, &re) {
					t.Fatalf("err %T is not a *badinput.RowError", err)
				}
				if re.Row != w.row || re.Field != w.column || re.Fix == "" && !strings.Contains(name, "json") {
					t.Errorf("row error = %+v, want row %d column %s and a fix", re, w.row, w.column)
				}
			}
			for _, s := range append(w.text, name) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// readErr opens and reads a whole file, returning the first error.
func readErr(path string) error {
	r, err := Open(context.Background(), path, ReadOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		_, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func TestReadJSON(t *testing.T) {
	got, r := readAll(t, "testdata/sales_report.json", ReadOptions{})
	if r.Format() != FormatJSON || len(got) != 1 || r.NumRows() != -1 {
		t.Fatalf("format %s, %d dialogs", r.Format(), len(got))
	}
	d := got[0]
	if d.ID != "sales_report" || len(d.Turns) != 5 {
		t.Fatalf("dialog %q with %d turns", d.ID, len(d.Turns))
	}
	if !cmp.Equal(d.Rows, []int64{0, 1, 2, 4, 3}) {
		t.Errorf("rows = %v, want [0 1 2 4 3] (sorted by turn_no)", d.Rows)
	}
	t2 := d.Turns[1]
	wantGold := metrics.Call{ToolID: "sales_db", Action: "query", Args: map[string]any{"metric": "revenue", "quarter": "Q3", "limit": json.Number("10")}}
	wantPred := metrics.Call{ToolID: "sales_db", Action: "query", Args: map[string]any{"metric": "profit", "quarter": "Q3", "limit": json.Number("10")}}
	if diff := cmp.Diff(wantGold, t2.Gold); diff != "" {
		t.Errorf("gold call: %s", diff)
	}
	if diff := cmp.Diff(wantPred, t2.Predict); diff != "" {
		t.Errorf("predicted call (args as text): %s", diff)
	}
	if !t2.Critical || *t2.Weight != 2 || *t2.LatencyMS != 120.5 || !cmp.Equal(t2.Tags, []string{"report"}) {
		t.Errorf("turn 2 extras: %+v", t2)
	}
	if t4 := d.Turns[3]; t4.Role != metrics.RoleTool || !t4.HasGold || t4.HasPredict {
		t.Errorf("turn 4 (role inferred, predict null) = %+v", t4)
	}
	if t5 := d.Turns[4]; *t5.HumanLabel || *t5.HumanScore != 0.1 || t5.PredictResponse != "Here is the Q3 profit report." {
		t.Errorf("turn 5 = %+v", t5)
	}
	if !cmp.Equal(d.Turns[2].DependsOn, []int{2}) {
		t.Errorf("depends_on = %v", d.Turns[2].DependsOn)
	}

	got, r = readAll(t, "testdata/dialogs.jsonl", ReadOptions{})
	if r.Format() != FormatJSONL || len(got) != 3 {
		t.Fatalf("format %s, %d dialogs", r.Format(), len(got))
	}
	b := got[1]
	if b.ID != "b" || b.Turns[0].Role != metrics.RoleUser || b.Turns[1].Gold.Args["n"] != json.Number("1.50") {
		t.Errorf("dialog b = %+v", b)
	}
	if !b.Turns[1].HasPredict || len(b.Turns[1].Predict.Args) != 0 || b.Turns[1].Predict.Args == nil {
		t.Errorf("null args should be an empty object: %+v", b.Turns[1].Predict)
	}
	if c := got[2]; c.ID != "17" || c.Turns[0].HasGold || !c.Turns[0].HasPredict || c.Turns[0].Role != metrics.RoleAgent {
		t.Errorf("dialog 17 = %+v", c)
	}

	got, _ = readAll(t, "testdata/dialogs_array.json", ReadOptions{})
	if len(got) != 2 || got[0].ID != "x1" || got[1].ID != "x2" || got[1].Turns[0].HasPredict {
		t.Errorf("array of dialogs = %+v", got)
	}

	// --map is for Parquet only.
	if _, err := Open(context.Background(), "testdata/dialogs.jsonl", ReadOptions{Mapping: Mapping{ColTurn: "role"}}); !errors.Is(err, ErrBadMapping) {
		t.Errorf("err = %v, want ErrBadMapping", err)
	}
}

func TestImportRoundTrip(t *testing.T) {
	for _, in := range []string{"testdata/sales_report.json", "testdata/dialogs.jsonl", "testdata/dialogs_array.json"} {
		want, r := readAll(t, in, ReadOptions{})
		out := filepath.Join(t.TempDir(), "out.parquet")
		if _, err := Import(context.Background(), out, r, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		// r is exhausted; read again from the start.
		r2, err := Open(context.Background(), in, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Import(context.Background(), out, r2, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		r2.Close()
		got, _ := readAll(t, out, ReadOptions{})
		if diff := cmp.Diff(metricDialogs(want), metricDialogs(got)); diff != "" {
			t.Errorf("%s: import round trip (-json +parquet):\n%s", in, diff)
		}
	}
}

func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	// Content wins over the extension.
	data, _ := os.ReadFile("testdata/dialogs.jsonl")
	p := filepath.Join(dir, "dialogs.parquet")
	os.WriteFile(p, data, 0o644)
	if _, r := readAll(t, p, ReadOptions{}); r.Format() != FormatJSONL {
		t.Errorf("format = %s, want jsonl", r.Format())
	}
	pq, _ := os.ReadFile("testdata/sales.parquet")
	p = filepath.Join(dir, "sales.json")
	os.WriteFile(p, pq, 0o644)
	if _, r := readAll(t, p, ReadOptions{}); r.Format() != FormatParquet {
		t.Errorf("format = %s, want parquet", r.Format())
	}
	// A file without turns is refused alike, whatever its format
	// (TestEmpty).
	if _, err := Open(context.Background(), filepath.Join(dir, "nope.parquet"), ReadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want ErrNotExist", err)
	}
}

// TestEmpty: every form of an input without turns is refused alike, with
// ErrEmpty (exit status 3), at Open when the file has no content, at the
// first Next otherwise.
func TestEmpty(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noRows := filepath.Join(dir, "no-rows.parquet")
	writeRows(t, noRows, []Row{}, 10)
	for _, c := range []struct{ path, what string }{
		{write("empty.jsonl", nil), "the file is empty (0 bytes)"},
		{write("empty.parquet", nil), "the file is empty (0 bytes)"},
		{write("empty", nil), "the file is empty (0 bytes)"},
		{write("blank.jsonl", []byte("\n \n\t\n")), "the file holds only white space"},
		{write("array.json", []byte("[]\n")), "it has no rows"},
		{noRows, "it has no rows"},
	} {
		err := readErr(c.path)
		var re *badinput.RowError
		if !errors.Is(err, ErrEmpty) || !errors.Is(err, badinput.ErrInvalid) || !errors.As(err, &re) ||
			re.File != c.path || !strings.Contains(err.Error(), "holds no turns: "+c.what) {
			t.Errorf("%s: err = %v, want ErrEmpty saying %q", filepath.Base(c.path), err, c.what)
		}
	}
}

func TestNextAfterCancel(t *testing.T) {
	r, err := Open(context.Background(), "testdata/sales.parquet", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestOptionalColumnsAndNulls(t *testing.T) {
	// anyRow has every canonical column optional, as pyarrow writes them.
	good := []anyRow{
		{DialogID: sp("d"), TurnNo: ip(1), Turn: sp("Tool"), GoldToolID: sp("t"), PredictAction: sp("a"), LatencyMS: fp(12.5)},
		{DialogID: sp("d"), TurnNo: ip(2), Turn: sp("Agent"), PredictResponse: sp("")},
	}
	path := filepath.Join(t.TempDir(), "opt.parquet")
	writeRows(t, path, good, 10)
	got, _ := readAll(t, path, ReadOptions{})
	if len(got) != 1 || len(got[0].Turns) != 2 {
		t.Fatalf("got %+v", got)
	}
	t1, t2 := got[0].Turns[0], got[0].Turns[1]
	// A tool id or an action alone is a function name (metrics.Named).
	wantGold := metrics.FunctionCall("t", map[string]any{})
	wantPred := metrics.FunctionCall("a", map[string]any{})
	if !t1.HasGold || !t1.HasPredict || !cmp.Equal(t1.Gold, wantGold) || !cmp.Equal(t1.Predict, wantPred) || *t1.LatencyMS != 12.5 || t1.Critical {
		t.Errorf("turn 1 = %+v", t1)
	}
	if t2.HasGold || !t2.HasPredict || t2.PredictResponse != "" {
		t.Errorf("turn 2 (unexpected, empty reply) = %+v", t2)
	}

	for name, mut := range map[string]func(*anyRow){
		"dialog_id": func(r *anyRow) { r.DialogID = nil },
		"turn_no":   func(r *anyRow) { r.TurnNo = nil },
	} {
		rows := append([]anyRow(nil), good...)
		mut(&rows[1])
		path := filepath.Join(t.TempDir(), name+".parquet")
		writeRows(t, path, rows, 10)
		var re *badinput.RowError
		if err := readErr(path); !errors.As(err, &re) || re.Field != name || re.Row != 1 {
			t.Errorf("null %s: err = %v", name, err)
		}
	}

	// A null role is inferred from the sides, as for a JSON turn without
	// "turn": row 1 has a reply, so it is an Agent turn.
	inferred := append([]anyRow(nil), good...)
	inferred[1].Turn = nil
	path = filepath.Join(t.TempDir(), "turn.parquet")
	writeRows(t, path, inferred, 10)
	ds, _ := readAll(t, path, ReadOptions{})
	if got := ds[0].Turns[1].Role; got != metrics.RoleAgent {
		t.Errorf("null turn: role %q, want it inferred as Agent", got)
	}
}

// extraValues renders a dialog's extra values by column name, for
// comparing: nil for null, else the value's Go form.
func extraValues(t *testing.T, r *Reader, d Dialog) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i := range d.Turns {
		m := map[string]any{}
		for _, e := range r.Extras() {
			v := d.Extra[i][e.FirstLeaf]
			switch {
			case v.IsNull():
				m[e.Name] = nil
			case v.Kind() == parquet.Boolean:
				m[e.Name] = v.Boolean()
			case v.Kind() == parquet.Int64:
				m[e.Name] = v.Int64()
			case v.Kind() == parquet.Double:
				m[e.Name] = v.Double()
			default:
				m[e.Name] = string(v.ByteArray())
			}
		}
		out = append(out, m)
	}
	return out
}

func TestJSONExtras(t *testing.T) {
	tests := []struct {
		file    string
		columns string // name:type, in order
		want    [][]map[string]any
	}{
		{
			file: "testdata/extras.jsonl",
			// Turn keys by name, then dialog keys; a dialog key whose
			// name a turn key already has gets a suffix.
			columns: "category:BYTE_ARRAY dialog_scenario:BYTE_ARRAY field_labels:BYTE_ARRAY flag:BOOLEAN mixed:BYTE_ARRAY score_hint:DOUBLE dialog_priority:INT64 dialog_scenario_2:BYTE_ARRAY",
			want: [][]map[string]any{
				{
					{"category": "greeting", "dialog_scenario": nil, "field_labels": `{"response":true}`, "flag": nil, "mixed": nil, "score_hint": 1.0, "dialog_priority": int64(2), "dialog_scenario_2": "billing"},
					{"category": nil, "dialog_scenario": "clash", "field_labels": nil, "flag": true, "mixed": nil, "score_hint": 0.5, "dialog_priority": int64(2), "dialog_scenario_2": "billing"},
				},
				{{"category": nil, "dialog_scenario": nil, "field_labels": nil, "flag": nil, "mixed": `"a"`, "score_hint": nil, "dialog_priority": int64(3), "dialog_scenario_2": nil}},
				{{"category": nil, "dialog_scenario": nil, "field_labels": `{"response":0.25,"note":[1,2]}`, "flag": nil, "mixed": "5", "score_hint": nil, "dialog_priority": nil, "dialog_scenario_2": nil}},
			},
		},
		{
			// An array of turns: "turns" inside a turn is an extra too.
			file:    "testdata/extras_turns.json",
			columns: "source:BYTE_ARRAY turns:INT64",
			want:    [][]map[string]any{{{"source": nil, "turns": int64(3)}, {"source": "log-7", "turns": nil}}},
		},
		{file: "testdata/dialogs.jsonl", columns: ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, r := readAll(t, tt.file, ReadOptions{})
			var cols []string
			for _, e := range r.Extras() {
				cols = append(cols, e.Name+":"+e.Node.Type().Kind().String())
				if !e.Node.Optional() || e.Leaves != 1 {
					t.Errorf("column %s: optional %v, %d leaves", e.Name, e.Node.Optional(), e.Leaves)
				}
			}
			if s := strings.Join(cols, " "); s != tt.columns {
				t.Fatalf("extra columns\n got %s\nwant %s", s, tt.columns)
			}
			if tt.want == nil {
				for _, d := range got {
					if d.Extra != nil {
						t.Errorf("dialog %s has extras without extra keys", d.ID)
					}
				}
				return
			}
			for i, d := range got {
				if diff := cmp.Diff(tt.want[i], extraValues(t, r, d)); diff != "" {
					t.Errorf("dialog %s extras (-want +got):\n%s", d.ID, diff)
				}
			}

			// aem import keeps them: the Parquet file reads back with the
			// same columns and values.
			out := filepath.Join(t.TempDir(), "golden.parquet")
			r2, err := Open(context.Background(), tt.file, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r2.Close()
			if _, err := Import(context.Background(), out, r2, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			back, rb := readAll(t, out, ReadOptions{})
			if len(rb.Extras()) != len(r.Extras()) {
				t.Fatalf("imported file has %d extra columns, want %d", len(rb.Extras()), len(r.Extras()))
			}
			for i, d := range back {
				if diff := cmp.Diff(tt.want[i], extraValues(t, rb, d)); diff != "" {
					t.Errorf("imported dialog %s extras (-want +got):\n%s", d.ID, diff)
				}
			}
		})
	}
}

// TestSideFaultsInKeyOrder: a side with several faults is refused for the
// same one on every read (the first key in name order), as the same input
// must always give the same message.
func TestSideFaultsInKeyOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two_faults.jsonl")
	line := `{"dialog_id":"d","turns":[{"turn_no":1,"gold_turn":{"zeta":1,"response":2,"beta":3,"alpha":4}}]}`
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		var re *badinput.RowError
		if err := readErr(path); !errors.As(err, &re) || re.Field != "turns[0].gold_turn.alpha" {
			t.Fatalf("err = %v, want the fault at gold_turn.alpha every time", err)
		}
	}
}
