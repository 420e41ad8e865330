package rundir

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/input/golden"
)

// TestLayoutsAddedLast: the fields a layout lists as added are the last
// fields of its row type, in order. A new column goes at the end of the
// row type and of its layout's list.
func TestLayoutsAddedLast(t *testing.T) {
	for name, l := range map[string]layout{"TurnRow": turnLayout, "DialogRow": dialogLayout, "OrdinalRow": ordinalLayout} {
		var last []string
		for _, f := range l.schema.Fields()[l.first:] {
			last = append(last, f.Name())
		}
		if !slices.Equal(last, l.added) {
			t.Errorf("%s: the last fields are %v, the layout lists %v as added", name, last, l.added)
		}
		for _, f := range l.schema.Fields()[l.first:] {
			if !f.Optional() {
				t.Errorf("%s.%s is added but not optional: an older file cannot read as absent", name, f.Name())
			}
		}
	}
}

// TestCurrentLayoutNotConverted: the files this version writes, with or
// without extra columns, are read as they are (no conversion, which would
// cost time and could change bytes on merge).
func TestCurrentLayoutNotConverted(t *testing.T) {
	ts, err := NewTurnSchema([]golden.ExtraColumn{{Name: "team", Node: parquet.Optional(parquet.String()), Leaves: 1}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := Create(FilesIn(dir), WriterOptions{Schema: ts})
	if err != nil {
		t.Fatal(err)
	}
	trial := int64(0)
	tr := TurnRow{DialogID: "a", TurnNo: 1, FailedChecks: []string{}, MissingKeys: []string{}, ExtraKeys: []string{}, Tags: []string{}, Trial: &trial}
	d := &Dialog{Row: DialogRow{DialogID: "a", TurnCount: 1, Trial: &trial}, Ordinal: OrdinalRow{DialogID: "a", Turns: 1},
		TurnsRaw: []parquet.Row{ts.Row(&tr, parquet.Row{parquet.ByteArrayValue([]byte("x")).Level(0, 1, 0)})}}
	if err := w.Add(d); err != nil {
		t.Fatal(err)
	}
	if err := w.CommitData(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file   string
		layout layout
	}{{TurnsFile, turnLayout}, {DialogsFile, dialogLayout}} {
		p, err := openParquet(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		fl, err := c.layout.of(p.pf.Schema())
		p.Close()
		if err != nil || fl.conv != nil || fl.fields != len(c.layout.schema.Fields()) || fl.shift != 0 {
			t.Errorf("%s: layout %+v, %v; want the current one, unconverted", c.file, fl, err)
		}
	}
}
