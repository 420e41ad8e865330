package golden

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// JSON input carries its unknown keys through like Parquet's extra columns:
// every key of a turn object that the format does not define, and every key
// of a dialog object besides dialog_id, trial, turns and tools, becomes an extra
// column.
// A dialog-level key is named "dialog_<key>" (unless it already starts with
// "dialog_") and repeats on each of the dialog's turns. The column's type
// is inferred from all its values in the file: string, boolean, int64 (all
// integers), double (all numbers), else a string holding each value's
// compact JSON text (objects, arrays, or mixed kinds; a field_labels object
// therefore reaches `aem sweep` as the JSON text it expects). A key absent
// from a turn, or null, is a null.

// knownTurnKeys are the keys of a turn object that the format defines.
var knownTurnKeys = map[string]bool{
	"turn_no": true, "turn": true, "gold_turn": true, "predict_turn": true, "tags": true,
	"depends_on": true, "human_label": true, "human_score": true, "weight": true,
	"critical": true, "latency_ms": true, "trial": true, "user_turn": true,
}

// jsonKind is what the values of one extra key turned out to be.
type jsonKind uint8

const (
	jkString jsonKind = 1 << iota
	jkBool
	jkInt
	jkFloat
	jkOther // objects, arrays
)

// jsonExtra is one extra column of a JSON input.
type jsonExtra struct {
	key    string // the JSON key
	dialog bool   // a key of the dialog object, not of a turn
	column string // the column name
	kinds  jsonKind
}

// columnKind is the single kind the column is written as; jkOther means
// JSON text.
func (e *jsonExtra) columnKind() jsonKind {
	switch e.kinds {
	case jkString, jkBool, jkInt:
		return e.kinds
	case jkFloat, jkInt | jkFloat:
		return jkFloat
	case 0:
		return jkString // only nulls
	}
	return jkOther
}

func (e *jsonExtra) node() parquet.Node {
	switch e.columnKind() {
	case jkBool:
		return parquet.Optional(parquet.Leaf(parquet.BooleanType))
	case jkInt:
		return parquet.Optional(parquet.Int(64))
	case jkFloat:
		return parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	return parquet.Optional(parquet.String())
}

// jsonExtras is the set of extra columns of one JSON input.
type jsonExtras struct {
	// dialogs: the rows are dialog objects (always in JSON Lines; in a
	// top-level array when its first element has "turns"), else turns.
	dialogs bool
	cols    []*jsonExtra
	turn    map[string]int // turn key -> index in cols, while scanning
	dialog  map[string]int // dialog key -> index in cols, while scanning
}

// observe records one value of an extra key.
func (x *jsonExtras) observe(key string, dialog bool, v json.RawMessage) {
	idx := x.turn
	if dialog {
		idx = x.dialog
	}
	i, ok := idx[key]
	if !ok {
		i = len(x.cols)
		idx[key] = i
		x.cols = append(x.cols, &jsonExtra{key: key, dialog: dialog})
	}
	x.cols[i].kinds |= kindOf(v)
}

// kindOf classifies a JSON value; null is no kind.
func kindOf(v json.RawMessage) jsonKind {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || isNull(v) {
		return 0
	}
	switch v[0] {
	case '"':
		return jkString
	case 't', 'f':
		return jkBool
	case '{', '[':
		return jkOther
	}
	if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return jkInt
	}
	return jkFloat
}

// name gives every column a name unique among the extras.
func (x *jsonExtras) name() {
	taken := map[string]bool{}
	for _, c := range x.cols {
		if !c.dialog {
			c.column = c.key
			taken[c.key] = true
		}
	}
	for _, c := range x.cols {
		if !c.dialog {
			continue
		}
		base := c.key
		if !strings.HasPrefix(base, "dialog_") {
			base = "dialog_" + base
		}
		n := base
		for i := 2; taken[n]; i++ {
			n = fmt.Sprintf("%s_%d", base, i)
		}
		c.column = n
		taken[n] = true
	}
}

// extrasStringBytes is the longest string value the extra keys' pass
// decodes: it needs the keys and the kinds of values, not their text, so
// longer strings are left out (jsonFilter) before the decoder reads them.
const extrasStringBytes = 4 << 10

// scanJSONExtras reads the JSON input f once, shallowly, to find its extra
// keys and their kinds, and whether its rows are dialogs; filter leaves
// long strings out before decoding them. Syntax errors end the scan
// quietly: the reading pass reports them, with their line. Only read
// errors are returned.
func scanJSONExtras(f io.Reader, format Format, filter bool) (*jsonExtras, error) {
	x := &jsonExtras{turn: map[string]int{}, dialog: map[string]int{}}
	er := &errReader{r: f}
	br := bufio.NewReaderSize(er, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	depth := 0
	if format == FormatJSON {
		depth = 1
	}
	var src io.Reader = br
	if filter {
		src = newJSONFilter(br, rowsAny, depth, extrasStringBytes)
	}
	dec := json.NewDecoder(src)
	if format == FormatJSON {
		if _, err := dec.Token(); err != nil { // '['
			return x, er.err
		}
	}
	// As the reader decides: JSON Lines hold dialog objects; a top-level
	// array holds dialog objects when its first element has "turns", else
	// turns.
	dialogs, first := format == FormatJSONL, true
	for dec.More() {
		var obj map[string]json.RawMessage
		if err := dec.Decode(&obj); err != nil {
			var ute *json.UnmarshalTypeError
			if errors.As(err, &ute) {
				continue // not an object: the reading pass says so
			}
			break
		}
		if first && format == FormatJSON {
			_, dialogs = obj["turns"]
		}
		first = false
		if !dialogs {
			x.observeTurn(obj)
			continue
		}
		for k, v := range obj {
			if k != "dialog_id" && k != "turns" && k != "tools" && k != "trial" {
				x.observe(k, true, v)
			}
		}
		var ts []map[string]json.RawMessage
		if json.Unmarshal(obj["turns"], &ts) == nil {
			for _, t := range ts {
				x.observeTurn(t)
			}
		}
	}
	if er.err != nil {
		return nil, er.err
	}
	x.dialogs = dialogs
	x.order()
	x.name()
	return x, nil
}

// errReader remembers the first read error other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

func (x *jsonExtras) observeTurn(t map[string]json.RawMessage) {
	for k, v := range t {
		if !knownTurnKeys[k] {
			x.observe(k, false, v)
		}
	}
}

// order makes the column order independent of Go's map iteration (which
// decided the order of first appearance): turn keys by name, then dialog
// keys by name.
func (x *jsonExtras) order() {
	slices.SortFunc(x.cols, func(a, b *jsonExtra) int {
		if a.dialog != b.dialog {
			if a.dialog {
				return 1
			}
			return -1
		}
		return strings.Compare(a.key, b.key)
	})
}

// columns returns the ExtraColumn list and schema the Reader exposes.
func (x *jsonExtras) columns() ([]ExtraColumn, *parquet.Schema) {
	if len(x.cols) == 0 {
		return nil, nil
	}
	extras := make([]ExtraColumn, len(x.cols))
	fields := make([]parquet.Field, len(x.cols))
	for i, c := range x.cols {
		f := renamed{Node: c.node(), name: c.column}
		extras[i] = ExtraColumn{Name: c.column, Node: f, FirstLeaf: i, Leaves: 1}
		fields[i] = f
	}
	return extras, parquet.NewSchema("extras", OrderedGroup(fields))
}

// row builds a turn's extra values from its object and its dialog's.
func (x *jsonExtras) row(turn, dialog map[string]json.RawMessage) (parquet.Row, error) {
	row := make(parquet.Row, len(x.cols))
	for i, c := range x.cols {
		src := turn
		if c.dialog {
			src = dialog
		}
		v, err := c.value(src[c.key])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.key, err)
		}
		row[i] = v.Level(0, 0, i)
		if !v.IsNull() {
			row[i] = v.Level(0, 1, i)
		}
	}
	return row, nil
}

// value converts one JSON value to the column's Parquet value.
func (c *jsonExtra) value(v json.RawMessage) (parquet.Value, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || isNull(v) {
		return parquet.NullValue(), nil
	}
	switch c.columnKind() {
	case jkString:
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return parquet.Value{}, err
		}
		return parquet.ByteArrayValue([]byte(s)), nil
	case jkBool:
		return parquet.BooleanValue(v[0] == 't'), nil
	case jkInt:
		n, err := strconv.ParseInt(string(v), 10, 64)
		return parquet.Int64Value(n), err
	case jkFloat:
		f, err := strconv.ParseFloat(string(v), 64)
		return parquet.DoubleValue(f), err
	}
	var b bytes.Buffer
	if err := json.Compact(&b, v); err != nil {
		return parquet.Value{}, err
	}
	return parquet.ByteArrayValue(b.Bytes()), nil
}
