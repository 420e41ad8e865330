package rundir

import (
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
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

// TestUpgrade: a row of an older layout with extra columns gets the added
// columns as nulls and keeps its extra values, moved along.
func TestUpgrade(t *testing.T) {
	trial := int64(4)
	full := turnRowSchema.Deconstruct(nil, &TurnRow{DialogID: "a", TurnNo: 1, Trial: &trial})
	base := turnLayout.leaves[turnLayout.first]
	var old parquet.Row
	for _, v := range full {
		if v.Column() < base {
			old = append(old, v)
		}
	}
	extra := parquet.ByteArrayValue([]byte("x")).Level(0, 1, base) // the first extra column
	old = append(old, extra)
	up := turnLayout.upgrade(old, turnLayout.first)
	if len(up) != len(full)+1 {
		t.Fatalf("upgraded row has %d values, want %d", len(up), len(full)+1)
	}
	var tr TurnRow
	if err := turnRowSchema.Reconstruct(&tr, up[:len(full)]); err != nil {
		t.Fatal(err)
	}
	if tr.DialogID != "a" || tr.Trial != nil {
		t.Errorf("upgraded row reads %+v", tr)
	}
	if last := up[len(up)-1]; last.Column() != len(turnRowSchema.Columns()) || string(last.ByteArray()) != "x" {
		t.Errorf("extra value at column %d (%q), want column %d", last.Column(), last.ByteArray(), len(turnRowSchema.Columns()))
	}
	if got := turnLayout.upgrade(full, len(turnRowSchema.Fields())); !slices.Equal(got, full) {
		t.Error("a row of the current layout changed")
	}
}
