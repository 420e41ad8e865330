package badinput_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/aem-dev/aem/internal/badinput"
)

var errKind = errors.New("bad value")

func TestRowErrorMessage(t *testing.T) {
	cause := errors.New("invalid character 'x'")
	tests := []struct {
		name string
		err  *badinput.RowError
		want string
	}{
		{"parquet row", &badinput.RowError{File: "g.parquet", Row: 0, Field: "gold_args", Problem: "bad args JSON", Fix: "write a JSON object", Err: cause},
			"g.parquet: row 0, field gold_args: bad args JSON: invalid character 'x' (fix: write a JSON object)"},
		{"csv row and line", &badinput.RowError{File: "l.csv", Row: 2, Line: 4, Field: "label", Problem: `label "maybe"`},
			`l.csv: row 2, line 4, field label: label "maybe"`},
		{"json path", &badinput.RowError{File: "g.json", Row: badinput.NoRow, Line: 7, Field: "turns[1].turn_no", Problem: "duplicate turn_no 1"},
			"g.json: line 7, field turns[1].turn_no: duplicate turn_no 1"},
		{"whole file", &badinput.RowError{File: "p.tsv", Row: badinput.NoRow, Problem: "no pairs", Fix: "add data rows"},
			"p.tsv: no pairs (fix: add data rows)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q\nwant      %q", got, tt.want)
			}
		})
	}
}

func TestRowErrorUnwrap(t *testing.T) {
	cause := &json.SyntaxError{Offset: 3}
	var err error = &badinput.RowError{File: "f", Row: 1, Kind: errKind, Err: cause}
	wrapped := errors.Join(errors.New("reading labels"), err)
	for _, target := range []error{badinput.ErrInvalid, errKind} {
		if !errors.Is(wrapped, target) {
			t.Errorf("errors.Is(%v) = false", target)
		}
	}
	var se *json.SyntaxError
	if !errors.As(wrapped, &se) || se != cause {
		t.Error("errors.As does not reach the cause")
	}
	var re *badinput.RowError
	if !errors.As(wrapped, &re) || re.Row != 1 {
		t.Errorf("errors.As(*RowError) = %v", re)
	}
	if errors.Is(&badinput.RowError{File: "f"}, errKind) {
		t.Error("a RowError without Kind matches an unrelated sentinel")
	}
}

func TestRecover(t *testing.T) {
	at := badinput.RowError{File: "t.parquet", Row: 4, Problem: "cannot decode the row", Kind: errKind}
	err := badinput.Recover(at, func() error { panic("index out of range [7] with length 3") })
	var re *badinput.RowError
	if !errors.As(err, &re) || re.Row != 4 || !errors.Is(err, errKind) || !errors.Is(err, badinput.ErrInvalid) {
		t.Fatalf("Recover = %v, want a RowError at row 4 of kind errKind", err)
	}
	if want := "t.parquet: row 4: cannot decode the row: decoder failed: index out of range [7] with length 3"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	plain := errors.New("plain")
	if err := badinput.Recover(at, func() error { return plain }); err != plain {
		t.Errorf("Recover passes f's error through: got %v", err)
	}
	if err := badinput.Recover(at, func() error { return nil }); err != nil {
		t.Errorf("Recover(nil) = %v", err)
	}
}
