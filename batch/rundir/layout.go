package rundir

import (
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"
)

// layout is the column layout of a row type over time: the fields added
// after the first release come last, in the order they were added, and a
// file written before one was added lacks it and every later one. Open
// accepts such a file; typed readers see the missing columns as absent
// (null, nil), and DialogReader upgrades its raw rows to the current
// layout, so that Merge of shards written by an older aem writes the
// current layout.
type layout struct {
	schema *parquet.Schema // the current layout
	first  int             // top-level fields of the first release
	added  []string        // the fields added since, in order
	// leaves[n] is the number of leaf columns of the first n top-level
	// fields.
	leaves []int
	// zero is the row of the zero value: the values a row lacking the
	// added columns gets for them.
	zero parquet.Row
}

// The layouts of the run files: their added fields.
var (
	ordinalLayout = newLayout(ordinalRowSchema, &OrdinalRow{})
	turnLayout    = newLayout(turnRowSchema, &TurnRow{}, "trial")
	dialogLayout  = newLayout(dialogRowSchema, &DialogRow{}, "trial", "task_trials", "task_passed", "task_pass_at_k", "task_pass_hat_k", "task_flaky")
)

// newLayout describes schema, the schema of zero's type, whose last fields
// are added, in order (a test checks that they are).
func newLayout(schema *parquet.Schema, zero any, added ...string) layout {
	fields := schema.Fields()
	l := layout{schema: schema, first: len(fields) - len(added), added: added, leaves: make([]int, len(fields)+1)}
	for i, f := range fields {
		l.leaves[i+1] = l.leaves[i] + leafCount(f)
	}
	l.zero = schema.Deconstruct(nil, zero)
	return l
}

// leafCount is the number of leaf columns under n.
func leafCount(n parquet.Node) int {
	if n.Leaf() {
		return 1
	}
	c := 0
	for _, f := range n.Fields() {
		c += leafCount(f)
	}
	return c
}

// fieldsIn returns how many of the row type's top-level fields the file
// schema s starts with: at least the first release's (else an error
// saying which column differs), then as many of the added fields, in
// order, as it has. The fields after those are the input's extra columns
// (turns.parquet only).
func (l layout) fieldsIn(s *parquet.Schema) (int, error) {
	got, want := s.Columns(), l.schema.Columns()
	base := l.leaves[l.first]
	if len(got) < base {
		return 0, fmt.Errorf("%d columns, want at least %d", len(got), base)
	}
	for i := range base {
		if !slices.Equal(got[i], want[i]) {
			return 0, fmt.Errorf("column %d is %v, want %v", i, got[i], want[i])
		}
	}
	fields, rowFields := s.Fields(), l.schema.Fields()
	n := l.first
	for n < len(rowFields) && n < len(fields) && fields[n].Name() == rowFields[n].Name() && parquet.EqualNodes(fields[n], rowFields[n]) {
		n++
	}
	return n, nil
}

// upgrade returns a raw row of a file holding the first n top-level
// fields (see fieldsIn) as a row of the current layout: the missing added
// columns get their zero values and the extra columns after them move
// along. With n the current number of fields it returns row unchanged.
func (l layout) upgrade(row parquet.Row, n int) parquet.Row {
	fields := len(l.schema.Fields())
	if n == fields {
		return row
	}
	have, full := l.leaves[n], l.leaves[fields]
	shift := full - have
	out := make(parquet.Row, 0, len(row)+shift)
	i := 0
	for ; i < len(row) && row[i].Column() < have; i++ {
		out = append(out, row[i])
	}
	for _, v := range l.zero {
		if c := v.Column(); c >= have && c < full {
			out = append(out, v)
		}
	}
	for ; i < len(row); i++ {
		v := row[i]
		out = append(out, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column()+shift))
	}
	return out
}
