package golden

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
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
