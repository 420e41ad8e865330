package review

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/aem-dev/aem/internal/badinput"
)

func bp(b bool) *bool       { return &b }
func fp(f float64) *float64 { return &f }
func ip(i int64) *int64     { return &i }

func TestWriteRead(t *testing.T) {
	items := []Item{
		{Review: Version, ID: "r0001", DialogID: "d1", TurnNo: 2, Field: "crm.find.city", Kind: "action", SubMetric: "truthfulness.values",
			Gold: "NYC", Predicted: "New York <City> & co", Score: 0.61, Threshold: 0.7, ThresholdFrom: "threshold", By: "embed", Verdict: "fail", SamePair: 3},
		{Review: Version, ID: "r0002", DialogID: "d2", Trial: ip(1), TurnNo: 4, Field: "response", Kind: "response",
			Gold: "It is sunny.", Predicted: "Sunny.", HumanLabel: bp(true), HumanScore: fp(0.9), Note: "close enough"},
	}
	path := filepath.Join(t.TempDir(), File)
	if err := Write(path, items); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	items[0].Line, items[1].Line = 1, 2
	if d := cmp.Diff(items, got); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"New York <City> & co"`) || strings.Count(string(raw), "\n") != 2 {
		t.Errorf("file is not one unescaped item per line:\n%s", raw)
	}
	if !Sniff(path) {
		t.Error("Sniff does not recognise a review file")
	}
	other := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(other, []byte(`{"dialog_id":"d1","turn_no":2,"label":true}`+"\n"), 0o644)
	if Sniff(other) {
		t.Error("Sniff takes a plain labels file for a review file")
	}
}

func TestReadLabels(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  *bool
	}{
		{`true`, bp(true)}, {`false`, bp(false)}, {`null`, nil}, {`"pass"`, bp(true)}, {`"Fail"`, bp(false)},
		{`"yes"`, bp(true)}, {`"no"`, bp(false)}, {`1`, bp(true)}, {`0`, bp(false)}, {`""`, nil},
	} {
		path := filepath.Join(t.TempDir(), File)
		os.WriteFile(path, []byte(`{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_label":`+tc.label+"}\n"), 0o644)
		items, err := Read(path)
		if err != nil {
			t.Errorf("human_label %s: %v", tc.label, err)
			continue
		}
		if got := items[0].HumanLabel; (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("human_label %s read as %v, want %v", tc.label, got, tc.want)
		}
	}
}

// TestReadRefuses covers the bad inputs: each is a RowError naming the
// item, its line and field, wrapping badinput.ErrInvalid and the kind.
func TestReadRefuses(t *testing.T) {
	ok := `{"review":1,"id":"r1","dialog_id":"d","turn_no":1,"field":"f","human_label":true}`
	for _, tc := range []struct {
		name, content string
		kind          error
		row           int64
		line          int
		field         string
	}{
		{"not JSON", ok + "\n{oops\n", ErrSyntax, 1, 2, ""},
		{"an array", "[1,2]\n", ErrSyntax, 0, 1, ""},
		{"other version", `{"review":2,"dialog_id":"d","turn_no":1,"field":"f"}` + "\n", ErrVersion, 0, 1, "review"},
		{"no version", `{"dialog_id":"d","turn_no":1,"field":"f"}` + "\n", ErrVersion, 0, 1, "review"},
		{"no dialog", `{"review":1,"turn_no":1,"field":"f"}` + "\n", ErrValue, 0, 1, "dialog_id"},
		{"no field", `{"review":1,"dialog_id":"d","turn_no":1,"field":" "}` + "\n", ErrValue, 0, 1, "field"},
		{"no turn", `{"review":1,"dialog_id":"d","field":"f"}` + "\n", ErrValue, 0, 1, "turn_no"},
		{"turn as text", `{"review":1,"dialog_id":"d","turn_no":"x","field":"f"}` + "\n", ErrValue, 0, 1, "turn_no"},
		{"label maybe", "\n" + `{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_label":"maybe"}` + "\n", ErrValue, 0, 2, "human_label"},
		{"label object", `{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_label":{}}` + "\n", ErrValue, 0, 1, "human_label"},
		{"score as text", `{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_score":"high"}` + "\n", ErrValue, 0, 1, "human_score"},
		{"twice", ok + "\n" + strings.Replace(ok, "true", "false", 1) + "\n", ErrDuplicate, 1, 2, "field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), File)
			os.WriteFile(path, []byte(tc.content), 0o644)
			_, err := Read(path)
			var re *badinput.RowError
			if !errors.As(err, &re) || !errors.Is(err, badinput.ErrInvalid) || !errors.Is(err, tc.kind) {
				t.Fatalf("err = %v, want a RowError of %v", err, tc.kind)
			}
			if re.File != path || re.Row != tc.row || re.Line != tc.line || re.Field != tc.field || re.Fix == "" {
				t.Errorf("located at %s row %d line %d field %q (fix %q), want row %d line %d field %q", re.File, re.Row, re.Line, re.Field, re.Fix, tc.row, tc.line, tc.field)
			}
		})
	}
	if _, err := Read(filepath.Join(t.TempDir(), "missing.jsonl")); err == nil || errors.Is(err, badinput.ErrInvalid) {
		t.Errorf("a missing file: %v, want an I/O error", err)
	}
}

func FuzzDecodeItem(f *testing.F) {
	f.Add([]byte(`{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_label":"pass"}`))
	f.Add([]byte(`{"review":1,"dialog_id":"d","turn_no":1,"field":"f","human_score":0.5,"human_label":null}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		it, err := decodeItem(raw)
		if err != nil {
			var re *badinput.RowError
			if !errors.As(err, &re) || re.Fix == "" {
				t.Fatalf("error without a fix: %v", err)
			}
			return
		}
		if it.Review != Version || strings.TrimSpace(it.DialogID) == "" || strings.TrimSpace(it.Field) == "" {
			t.Fatalf("accepted an item without its key: %+v", it)
		}
	})
}
