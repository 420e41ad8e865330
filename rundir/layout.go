package rundir

import (
	"fmt"

	"github.com/parquet-go/parquet-go"

	"github.com/aem-dev/aem/input/golden"
)

// layout is the column layout of a row type over time. Files written by
// earlier versions of aem are read in the current layout:
//
//   - a top-level field may change inside (a nested column added, a
//     column made optional): the file still has it under its name, and
//     its values convert by column path (parquet.Convert), a missing
//     nested column reading as zero or null;
//   - a top-level field added after the first release comes last, in the
//     order added, and is optional: a file written before lacks it and
//     every later one, which read as null.
//
// Open accepts such a file, typed readers convert its rows by column
// name, and DialogReader upgrades its raw rows (fileLayout.upgrade), so
// that Merge of shards written by an older aem writes the current layout.
type layout struct {
	schema *parquet.Schema // the current layout
	first  int             // top-level fields of the first release
	added  []string        // the fields added since, in order
}

// The layouts of the run files: their added fields.
var (
	ordinalLayout = newLayout(ordinalRowSchema)
	turnLayout    = newLayout(turnRowSchema, "trial", "clauses", "read_only", "user_turn")
	dialogLayout  = newLayout(dialogRowSchema, "trial", "task_trials", "task_passed", "task_pass_at_k", "task_pass_hat_k", "task_flaky")
)

// newLayout describes schema whose last fields are added, in order (a test
// checks that they are).
func newLayout(schema *parquet.Schema, added ...string) layout {
	return layout{schema: schema, first: len(schema.Fields()) - len(added), added: added}
}

// fileLayout says how the rows of a file map to the current layout.
type fileLayout struct {
	// fields is the number of the row type's top-level fields the file
	// starts with; the fields after them are the input's extra columns
	// (turns.parquet only). leaves is their number of leaf columns.
	fields, leaves int
	// conv converts those leaf columns to the current row type's; nil when
	// they are the current ones.
	conv parquet.Conversion
	// shift moves the extra columns to their place after the current row
	// type's columns.
	shift int
}

// of returns how the file schema s maps to the current layout: s must
// start with the fields of the first release, by name and in order, then
// may have the added fields, in order, as many as it was written with.
// Anything else is an error saying which field differs.
func (l layout) of(s *parquet.Schema) (fileLayout, error) {
	fields, want := s.Fields(), l.schema.Fields()
	if len(fields) < l.first {
		return fileLayout{}, fmt.Errorf("%d top-level columns, want at least %d", len(fields), l.first)
	}
	for i := range l.first {
		if fields[i].Name() != want[i].Name() {
			return fileLayout{}, fmt.Errorf("column %d is %q, want %q", i, fields[i].Name(), want[i].Name())
		}
	}
	n := l.first
	for n < len(want) && n < len(fields) && fields[n].Name() == want[n].Name() && parquet.EqualNodes(fields[n], want[n]) {
		n++
	}
	fl := fileLayout{fields: n}
	for _, f := range fields[:n] {
		fl.leaves += golden.CountLeaves(f)
	}
	fl.shift = len(l.schema.Columns()) - fl.leaves
	prefix := parquet.NewSchema("prefix", golden.OrderedGroup(fields[:n]))
	if !parquet.EqualNodes(prefix, l.schema) {
		conv, err := parquet.Convert(l.schema, prefix)
		if err != nil {
			return fileLayout{}, fmt.Errorf("its columns do not convert to this version's: %w", err)
		}
		fl.conv = conv
	}
	return fl, nil
}

// upgrade returns a raw row of the file as a row of the current layout:
// the row type's columns converted, the extra columns after them moved
// along. A row of the current layout is returned unchanged.
func (fl fileLayout) upgrade(row parquet.Row) (parquet.Row, error) {
	if fl.conv == nil {
		return row, nil
	}
	i := 0
	for i < len(row) && row[i].Column() < fl.leaves {
		i++
	}
	rows := []parquet.Row{row[:i:i]}
	if _, err := fl.conv.Convert(rows); err != nil {
		return nil, err
	}
	out := rows[0]
	for _, v := range row[i:] {
		out = append(out, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column()+fl.shift))
	}
	return out, nil
}
