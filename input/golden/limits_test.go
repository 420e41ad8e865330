package golden

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
)

// readWith reads a whole file with opts and returns the first error.
func readWith(path string, opts ReadOptions) error {
	r, err := Open(context.Background(), path, opts)
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		if _, err := r.Next(context.Background()); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestFieldLimit: a text value over ReadOptions.MaxFieldBytes is refused
// in both formats, naming the file, the row (Parquet) or line and path
// (JSON), and the field; one at the limit is read; a negative limit is
// none.
func TestFieldLimit(t *testing.T) {
	dir := t.TempDir()
	const limit = 64
	at, over := strings.Repeat("a", limit), strings.Repeat("b", limit+1)
	jsonl := func(name, predict, tag string) string {
		p := filepath.Join(dir, name+".jsonl")
		line := `{"dialog_id":"d","turns":[{"turn_no":1,"turn":"Agent","gold_turn":{"response":"ok"},"predict_turn":{"response":"ok"}},` +
			`{"turn_no":2,"turn":"Agent","tags":["` + tag + `"],"gold_turn":{"response":"fine"},"predict_turn":{"response":"` + predict + `"}}]}` + "\n"
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	parquetFile := func(name, predict string) string {
		p := filepath.Join(dir, name+".parquet")
		rows := canonRows([2]any{"d", 1}, [2]any{"d", 2})
		rows[1].PredictResponse = &predict
		writeRows(t, p, rows, 10)
		return p
	}
	for _, c := range []struct {
		name, path string
		max        int
		row        int64
		line       int
		field      string
	}{
		{name: "jsonl at the limit", path: jsonl("at", at, "t"), max: limit},
		{name: "jsonl over", path: jsonl("over", over, "t"), max: limit, row: badinput.NoRow, line: 1, field: "turns[1].predict_turn.response"},
		{name: "jsonl tag over", path: jsonl("tag", "ok", over), max: limit, row: badinput.NoRow, line: 1, field: "turns[1].tags"},
		{name: "jsonl no limit", path: jsonl("none", over, "t"), max: -1},
		{name: "parquet at the limit", path: parquetFile("at", at), max: limit},
		{name: "parquet over", path: parquetFile("over", over), max: limit, row: 1, field: ColPredictResponse},
		{name: "default limit", path: jsonl("default", strings.Repeat("c", DefaultMaxFieldBytes+1), "t"), row: badinput.NoRow, line: 1, field: "turns[1].predict_turn.response"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readWith(c.path, ReadOptions{MaxFieldBytes: c.max})
			if c.field == "" {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRow) || re.File != c.path || re.Row != c.row || re.Line != c.line || re.Field != c.field ||
				!strings.Contains(err.Error(), "over the limit of") || !strings.Contains(err.Error(), "--max-field-bytes") {
				t.Fatalf("err = %v (%+v), want an ErrInvalidRow at row %d line %d field %s over the limit", err, re, c.row, c.line, c.field)
			}
		})
	}
}

// TestFieldLimitJSON: what the JSON reader measures and where it says so,
// through the filter that leaves long values out before decoding them:
// args written as JSON by their raw text, tools by their compact text,
// strings by their decoded length; extra keys and a long line of short
// values are not limited; a key given twice counts by its last value.
func TestFieldLimitJSON(t *testing.T) {
	dir := t.TempDir()
	const limit = 64
	long := strings.Repeat("x", limit+1)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	turn := func(fields string) string {
		return `{"turn_no":1,"turn":"Tool","gold_turn":{"tool_id":"files","action":"write","args":{}}` + fields + `}`
	}
	argsJSON := `{"path": "a.txt",  "content": "` + long + `"}`
	var many []string
	for i := range 40 {
		many = append(many, fmt.Sprintf(`{"turn_no":%d,"turn":"Agent","gold_turn":{"response":"%s"}}`, i+1, long[:limit]))
	}
	for _, c := range []struct {
		name, path string
		row        int64
		line       int
		field      string
		problem    string
	}{
		{name: "args written as JSON: their raw length", path: write("args.jsonl", `{"dialog_id":"d","turns":[`+turn(`,"predict_turn":{"tool_id":"files","action":"write","args":`+argsJSON+`}`)+`]}`),
			row: badinput.NoRow, line: 1, field: "turns[0].predict_turn.args", problem: fmt.Sprintf("predict_args is %d bytes", len(argsJSON))},
		{name: "escapes count as they decode", path: write("escaped.jsonl", `{"dialog_id":"d","turns":[{"turn_no":1,"gold_turn":{"response":"`+strings.Repeat(`\u00e9`, limit/2)+`"}}]}`)},
		{name: "one past the limit, escaped", path: write("escaped_over.jsonl", `{"dialog_id":"d","turns":[{"turn_no":1,"gold_turn":{"response":"`+strings.Repeat(`\u00e9`, limit/2)+`\n"}}]}`),
			row: badinput.NoRow, line: 1, field: "turns[0].gold_turn.response", problem: fmt.Sprintf("gold_response is %d bytes", limit+1)},
		{name: "extra keys are not limited", path: write("extras.jsonl", `{"dialog_id":"d","log":"`+long+`","turns":[`+turn(`,"trace":{"text":"`+long+`"},"note":"`+long+`"`)+`]}`)},
		{name: "a long line of short values", path: write("many.jsonl", `{"dialog_id":"d","turns":[`+strings.Join(many, ",")+`]}`)},
		{name: "a key given twice: the last value counts", path: write("twice.jsonl", `{"dialog_id":"d","turns":[`+turn(`,"predict_turn":{"tool_id":"`+long+`","tool_id":"files","action":"write"}`)+`]}`)},
		{name: "a key given twice, the last too long", path: write("twice_over.jsonl", `{"dialog_id":"d","turns":[`+turn(`,"predict_turn":{"tool_id":"files","tool_id":"`+long+`","action":"write"}`)+`]}`),
			row: badinput.NoRow, line: 1, field: "turns[0].predict_turn.tool_id", problem: fmt.Sprintf("predict_tool_id is %d bytes", limit+1)},
		{name: "a function's name is its tool_id", path: write("name.jsonl", `{"dialog_id":"d","turns":[`+turn(`,"predict_turn":{"name":"`+long+`"}`)+`]}`),
			row: badinput.NoRow, line: 1, field: "turns[0].predict_turn.tool_id", problem: fmt.Sprintf("predict_tool_id is %d bytes", limit+1)},
		{name: "dialog_id", path: write("id.jsonl", `{"dialog_id":"ok","turns":[`+turn("")+`]}`+"\n"+`{"dialog_id":"`+long+`","turns":[`+turn("")+`]}`),
			row: badinput.NoRow, line: 2, field: "turns[0].dialog_id", problem: fmt.Sprintf("dialog_id is %d bytes", limit+1)},
		{name: "tools: their compact text", path: write("tools.jsonl", `{"dialog_id":"d","tools": [ {"name": "files", "description": "`+long+`"} ],"turns":[`+turn("")+`]}`),
			row: badinput.NoRow, line: 1, field: "tools", problem: fmt.Sprintf("tools is %d bytes", len(`[{"name":"files","description":"`+long+`"}]`))},
		{name: "an array of dialogs", path: write("dialogs.json", "[\n"+`{"dialog_id":"a","turns":[`+turn("")+"]},\n"+`{"dialog_id":"b","turns":[`+turn("")+",\n"+turn(`,"tags":["t","`+long+`"]`)+"]}\n]"),
			row: badinput.NoRow, line: 3, field: "turns[1].tags", problem: fmt.Sprintf("tags is %d bytes", limit+1)},
		{name: "an array of turns", path: write("turns.json", "[\n"+turn("")+",\n"+turn(`,"predict_turn":{"response":"`+long+`"}`)+"\n]"),
			row: 1, line: 3, field: "predict_turn.response", problem: fmt.Sprintf("predict_response is %d bytes", limit+1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := readWith(c.path, ReadOptions{MaxFieldBytes: limit})
			if c.field == "" {
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				return
			}
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, ErrInvalidRow) || re.Row != c.row || re.Line != c.line || re.Field != c.field ||
				!strings.HasPrefix(re.Problem, c.problem+", over the limit of 64 bytes") {
				t.Fatalf("err = %v (%+v), want an ErrInvalidRow at row %d line %d field %s: %s", err, re, c.row, c.line, c.field, c.problem)
			}
		})
	}
}

// TestFieldLimitJSONExtrasIntact: an extra key's value over the limit
// reaches the extra column whole (the filter leaves out only what
// validate limits).
func TestFieldLimitJSONExtrasIntact(t *testing.T) {
	long := strings.Repeat("y", 100)
	path := filepath.Join(t.TempDir(), "extras.jsonl")
	line := `{"dialog_id":"d","log":"` + long + `","turns":[{"turn_no":1,"turn":"Agent","note":"` + long + `","gold_turn":{"response":"ok"}}]}`
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, r := readAll(t, path, ReadOptions{MaxFieldBytes: 10})
	got := extraValues(t, r, ds[0])
	if got[0]["note"] != long || got[0]["dialog_log"] != long {
		t.Errorf("extra values = %v, want both %d bytes long", got, len(long))
	}
}

// TestFieldLimitJSONMemory: refusing a JSON value over the limit costs a
// small part of its size in memory, not the value several times over
// (issue 28: a 50 MB reply took 1 GB and 50 s to refuse).
func TestFieldLimitJSONMemory(t *testing.T) {
	const size = 32 << 20
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	var b strings.Builder
	b.WriteString(`{"dialog_id":"d","turns":[{"turn_no":1,"turn":"Agent","gold_turn":{"response":"ok"},"predict_turn":{"response":"`)
	b.WriteString(strings.Repeat("a log line\\n", size/12))
	b.WriteString(`"}}]}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := readWith(path, ReadOptions{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrInvalidRow) || !strings.Contains(err.Error(), "predict_response is") {
		t.Fatalf("err = %v, want the reply refused", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("refusing a %d MiB reply allocated %d MiB, want under a quarter of it", size>>20, alloc>>20)
	}
}
