package golden

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"

	"github.com/aem-dev/aem/metrics"
	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeArgs: no panics; whatever decodes re-encodes to the same map.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{"", "{}", `{"a": 1.10, "b": [1, "x", null], "c": {"$any": ["NYC", "New York"]}}`,
		`{"a": 1e400}`, `{"a": "\u00e9\ud83d\ude00"}`, `[1]`, `{"a": 1} x`, `{"a":`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := DecodeArgs(s)
		if err != nil {
			return
		}
		if m == nil {
			t.Fatal("nil map without error")
		}
		text, err := EncodeArgs(m)
		if err != nil {
			t.Fatalf("EncodeArgs(%v): %v", m, err)
		}
		again, err := DecodeArgs(text)
		if err != nil {
			t.Fatalf("re-decoding %q: %v", text, err)
		}
		if !cmp.Equal(m, again) {
			t.Fatalf("round trip changed args: %v -> %s -> %v", m, text, again)
		}
	})
}

// FuzzJSONImport: the JSON/JSONL parser never panics, fails only with
// ErrInvalidInput errors, and what it accepts is well formed.
func FuzzJSONImport(f *testing.F) {
	for _, p := range []string{"testdata/sales_report.json", "testdata/dialogs.jsonl", "testdata/dialogs_array.json",
		"testdata/malformed/bad_args.jsonl", "testdata/malformed/duplicate_turn.json", "testdata/malformed/bad_spec.json",
		"testdata/tools.jsonl"} {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"dialog_id":"a","turns":[{"turn_no":1,"gold_turn":{"tool_id":"t","action":"a","args":"{\"x\":1}"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.HasPrefix(data, []byte("PAR1")) {
			return // Parquet: covered by FuzzParquetOpen
		}
		// In memory, as Open would after detecting JSON (no temp files).
		format := FormatJSONL
		if t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n"); len(t) > 0 && t[0] == '[' {
			format = FormatJSON
		}
		r := &Reader{path: "fuzz.jsonl", format: format}
		if err := r.openJSON(bytes.NewReader(data), format, newToolSource(nil)); err != nil {
			if !errors.Is(err, badinput.ErrInvalid) {
				t.Fatalf("Open: error not badinput.ErrInvalid: %v", err)
			}
			return
		}
		defer r.Close()
		for {
			d, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if !errors.Is(err, badinput.ErrInvalid) {
					t.Fatalf("Next: error not badinput.ErrInvalid: %v", err)
				}
				return
			}
			if d.ID == "" || len(d.Turns) == 0 || len(d.Rows) != len(d.Turns) {
				t.Fatalf("malformed dialog %+v", d)
			}
			if !slices.IsSortedFunc(d.Turns, func(a, b metrics.Turn) int { return a.TurnNo - b.TurnNo }) {
				t.Fatalf("turns not sorted: %+v", d.Turns)
			}
			for i, turn := range d.Turns {
				if turn.DialogID != d.ID || turn.TurnNo < 1 || (i > 0 && d.Turns[i-1].TurnNo == turn.TurnNo) {
					t.Fatalf("bad turn %+v", turn)
				}
				if !turn.HasGold && !turn.HasPredict {
					t.Fatalf("turn with no side: %+v", turn)
				}
				row, err := RowOf(turn)
				if err != nil {
					t.Fatalf("TurnRow: %v", err)
				}
				if row.GoldArgs != nil {
					if _, err := DecodeArgs(*row.GoldArgs); err != nil {
						t.Fatalf("stored gold args %q do not decode: %v", *row.GoldArgs, err)
					}
				}
			}
		}
	})
}

// FuzzParquetOpen: mangled Parquet files give errors, never panics.
func FuzzParquetOpen(f *testing.F) {
	data, err := os.ReadFile("testdata/sales.parquet")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, uint(100), byte(0xff), uint(0))
	f.Add(data, uint(len(data)-20), byte(0x01), uint(0))
	f.Add(data, uint(4000), byte(0x80), uint(len(data)/2))
	f.Fuzz(func(t *testing.T, base []byte, at uint, x byte, cut uint) {
		if len(base) < 8 {
			return
		}
		b := slices.Clone(base)
		b[int(at%uint(len(b)))] ^= x
		if cut > 0 && int(cut) < len(b) {
			b = b[:cut]
		}
		path := filepath.Join(t.TempDir(), "in.parquet")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_ = readErr(path) // must not panic; any error is fine
	})
}
