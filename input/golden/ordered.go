package golden

import (
	"fmt"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// OrderedGroup returns a group node whose fields keep the given order
// (parquet.Group sorts its fields by name). Its leaf columns are numbered
// in that order, which is what lets a writer append carried-through extra
// columns after its own: see ExtendSchema.
func OrderedGroup(fields []parquet.Field) parquet.Node { return orderedGroup(fields) }

type orderedGroup []parquet.Field

func (g orderedGroup) ID() int                     { return 0 }
func (g orderedGroup) String() string              { return parquet.NewSchema("", g).String() }
func (g orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g orderedGroup) Optional() bool              { return false }
func (g orderedGroup) Repeated() bool              { return false }
func (g orderedGroup) Required() bool              { return true }
func (g orderedGroup) Leaf() bool                  { return false }
func (g orderedGroup) Fields() []parquet.Field     { return g }
func (g orderedGroup) Encoding() encoding.Encoding { return nil }
func (g orderedGroup) Compression() compress.Codec { return nil }
func (g orderedGroup) GoType() reflect.Type {
	fs := make([]reflect.StructField, len(g))
	for i, f := range g {
		fs[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: f.GoType(),
			Tag: reflect.StructTag(fmt.Sprintf(`parquet:%q`, f.Name()))}
	}
	return reflect.StructOf(fs)
}

// ExtendSchema returns a schema named name with base's top-level fields
// followed by the extra columns (from Reader.Extras), for writing an output
// file that carries the input's extra columns. An extra column whose name
// clashes with a base field is renamed "input_<name>" (then
// "input2_<name>", ...). Build each output row with AppendExtra.
func ExtendSchema(name string, base parquet.Node, extras []ExtraColumn) *parquet.Schema {
	fields := append([]parquet.Field(nil), base.Fields()...)
	taken := map[string]bool{}
	for _, f := range fields {
		taken[f.Name()] = true
	}
	for _, e := range extras {
		n := e.Name
		for i := 1; taken[n]; i++ {
			if i == 1 {
				n = "input_" + e.Name
			} else {
				n = fmt.Sprintf("input%d_%s", i, e.Name)
			}
		}
		taken[n] = true
		fields = append(fields, renamed{Node: e.Node, name: n})
	}
	return parquet.NewSchema(name, orderedGroup(fields))
}

// renamed gives a node a (new) field name.
type renamed struct {
	parquet.Node
	name string
}

func (r renamed) Name() string { return r.name }

// Value is only used when writing Go values, which these schemas are not
// meant for; it delegates when the node is a field.
func (r renamed) Value(base reflect.Value) reflect.Value {
	if f, ok := r.Node.(parquet.Field); ok {
		return f.Value(base)
	}
	return base.FieldByName(r.name)
}

// AppendExtra appends a turn's extra values (a Dialog.Extra element) to
// row, a row of the base schema with baseLeaves leaf columns, shifting their
// column indexes so that the result is a row of ExtendSchema's schema.
func AppendExtra(row parquet.Row, baseLeaves int, extra parquet.Row) parquet.Row {
	for _, v := range extra {
		row = append(row, v.Level(v.RepetitionLevel(), v.DefinitionLevel(), v.Column()+baseLeaves))
	}
	return row
}
