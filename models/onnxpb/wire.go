package onnxpb

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Marshal encodes the model as an ONNX ModelProto. The bytes are deterministic.
// It checks that every tensor's data length matches its dims and data type.
func (m *Model) Marshal() ([]byte, error) {
	var e encoder
	ir := m.IRVersion
	if ir == 0 {
		ir = DefaultIRVersion
	}
	e.varint(1, uint64(ir))
	e.str(2, m.ProducerName)
	e.str(3, m.ProducerVersion)
	e.str(4, m.Domain)
	if m.ModelVersion != 0 {
		e.varint(5, uint64(m.ModelVersion))
	}
	e.str(6, m.DocString)
	e.msg(7, func(e *encoder) { e.graph(&m.Graph, "graph") })
	for _, o := range m.OpsetImports {
		e.msg(8, func(e *encoder) {
			e.str(1, o.Domain)
			e.varint(2, uint64(o.Version))
		})
	}
	for _, kv := range m.Metadata {
		e.msg(14, func(e *encoder) {
			e.str(1, kv.Key)
			e.str(2, kv.Value)
		})
	}
	if e.err != nil {
		return nil, e.err
	}
	return e.b, nil
}

type encoder struct {
	b   []byte
	err error
}

func (e *encoder) tag(num protowire.Number, typ protowire.Type) {
	e.b = protowire.AppendTag(e.b, num, typ)
}

func (e *encoder) varint(num protowire.Number, v uint64) {
	e.tag(num, protowire.VarintType)
	e.b = protowire.AppendVarint(e.b, v)
}

// str writes a non-empty string field (proto2 optional: absent when empty).
func (e *encoder) str(num protowire.Number, s string) {
	if s == "" {
		return
	}
	e.tag(num, protowire.BytesType)
	e.b = protowire.AppendString(e.b, s)
}

func (e *encoder) bytes(num protowire.Number, b []byte) {
	e.tag(num, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, b)
}

// msg writes an embedded message produced by body.
func (e *encoder) msg(num protowire.Number, body func(*encoder)) {
	sub := encoder{}
	body(&sub)
	if sub.err != nil && e.err == nil {
		e.err = sub.err
	}
	e.tag(num, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, sub.b)
}

func (e *encoder) graph(g *Graph, where string) {
	for i := range g.Nodes {
		n := &g.Nodes[i]
		e.msg(1, func(e *encoder) { e.node(n, where) })
	}
	e.str(2, g.Name)
	for i := range g.Initializers {
		t := &g.Initializers[i]
		e.msg(5, func(e *encoder) { e.tensor(t, where+" initializer "+t.Name) })
	}
	e.str(10, g.DocString)
	for _, group := range []struct {
		num protowire.Number
		vis []ValueInfo
	}{{11, g.Inputs}, {12, g.Outputs}, {13, g.ValueInfo}} {
		for i := range group.vis {
			vi := &group.vis[i]
			e.msg(group.num, func(e *encoder) { e.valueInfo(vi) })
		}
	}
}

func (e *encoder) node(n *Node, where string) {
	for _, in := range n.Inputs {
		e.tag(1, protowire.BytesType)
		e.b = protowire.AppendString(e.b, in)
	}
	for _, out := range n.Outputs {
		e.tag(2, protowire.BytesType)
		e.b = protowire.AppendString(e.b, out)
	}
	e.str(3, n.Name)
	e.str(4, n.OpType)
	for i := range n.Attributes {
		a := &n.Attributes[i]
		e.msg(5, func(e *encoder) { e.attribute(a, fmt.Sprintf("%s node %q attribute %q", where, n.Name, a.Name)) })
	}
	e.str(6, n.DocString)
	e.str(7, n.Domain)
}

func (e *encoder) attribute(a *Attribute, where string) {
	e.str(1, a.Name)
	switch a.Type {
	case AttrFloat:
		e.tag(2, protowire.Fixed32Type)
		e.b = protowire.AppendFixed32(e.b, math.Float32bits(a.F))
	case AttrInt:
		e.varint(3, uint64(a.I))
	case AttrString:
		e.bytes(4, a.S)
	case AttrTensor:
		if a.T == nil {
			e.fail(fmt.Errorf("%s: TENSOR attribute has no tensor", where))
			return
		}
		e.msg(5, func(e *encoder) { e.tensor(a.T, where) })
	case AttrGraph:
		if a.G == nil {
			e.fail(fmt.Errorf("%s: GRAPH attribute has no graph", where))
			return
		}
		e.msg(6, func(e *encoder) { e.graph(a.G, where) })
	case AttrFloats:
		for _, f := range a.Floats {
			e.tag(7, protowire.Fixed32Type)
			e.b = protowire.AppendFixed32(e.b, math.Float32bits(f))
		}
	case AttrInts:
		for _, v := range a.Ints {
			e.varint(8, uint64(v))
		}
	case AttrStrings:
		for _, s := range a.Strings {
			e.bytes(9, s)
		}
	default:
		e.fail(fmt.Errorf("%s: unsupported attribute type %d", where, a.Type))
		return
	}
	e.varint(20, uint64(a.Type))
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

func elemSize(d DataType) int {
	switch d {
	case Float, Int32:
		return 4
	case Int64, Double:
		return 8
	case Uint8, Int8, Bool:
		return 1
	case Float16:
		return 2
	}
	return 0
}

func (e *encoder) tensor(t *Tensor, where string) {
	want := t.NumElements()
	var got int64
	set := 0
	if t.FloatData != nil {
		set++
		got = int64(len(t.FloatData))
		if t.DataType != Float {
			e.fail(fmt.Errorf("%s: float_data on a %v tensor", where, t.DataType))
		}
	}
	if t.Int32Data != nil {
		set++
		got = int64(len(t.Int32Data))
	}
	if t.Int64Data != nil {
		set++
		got = int64(len(t.Int64Data))
		if t.DataType != Int64 {
			e.fail(fmt.Errorf("%s: int64_data on a %v tensor", where, t.DataType))
		}
	}
	if t.RawData != nil {
		set++
		size := elemSize(t.DataType)
		if size == 0 {
			e.fail(fmt.Errorf("%s: raw_data for unsupported type %v", where, t.DataType))
		} else {
			got = int64(len(t.RawData) / size)
			if len(t.RawData)%size != 0 {
				e.fail(fmt.Errorf("%s: raw_data length %d is not a multiple of %d", where, len(t.RawData), size))
			}
		}
	}
	switch {
	case set > 1:
		e.fail(fmt.Errorf("%s: more than one data field set", where))
	case set == 1 && got != want:
		e.fail(fmt.Errorf("%s: dims %v need %d values, got %d", where, t.Dims, want, got))
	case set == 0 && want != 0:
		e.fail(fmt.Errorf("%s: dims %v need %d values, got none", where, t.Dims, want))
	}
	for _, d := range t.Dims {
		e.varint(1, uint64(d))
	}
	e.varint(2, uint64(t.DataType))
	if len(t.FloatData) > 0 {
		e.tag(4, protowire.BytesType)
		e.b = protowire.AppendVarint(e.b, uint64(4*len(t.FloatData)))
		for _, f := range t.FloatData {
			e.b = protowire.AppendFixed32(e.b, math.Float32bits(f))
		}
	}
	if len(t.Int32Data) > 0 {
		var p []byte
		for _, v := range t.Int32Data {
			p = protowire.AppendVarint(p, uint64(int64(v)))
		}
		e.bytes(5, p)
	}
	if len(t.Int64Data) > 0 {
		var p []byte
		for _, v := range t.Int64Data {
			p = protowire.AppendVarint(p, uint64(v))
		}
		e.bytes(7, p)
	}
	e.str(8, t.Name)
	if t.RawData != nil {
		e.bytes(9, t.RawData)
	}
	e.str(12, t.DocString)
}

func (e *encoder) valueInfo(v *ValueInfo) {
	e.str(1, v.Name)
	e.msg(2, func(e *encoder) { // TypeProto
		e.msg(1, func(e *encoder) { // TypeProto.Tensor
			e.varint(1, uint64(v.ElemType))
			if v.UnknownShape {
				return
			}
			e.msg(2, func(e *encoder) { // TensorShapeProto
				for _, d := range v.Shape {
					e.msg(1, func(e *encoder) {
						switch {
						case d.Param != "":
							e.str(2, d.Param)
						case d.Value >= 0:
							e.varint(1, uint64(d.Value))
						}
					})
				}
			})
		})
	})
	e.str(3, v.DocString)
}

// Unmarshal decodes an ONNX ModelProto into the subset this package models.
// Fields outside that subset are skipped; tensors stored as external data decode
// with no data. Malformed protobuf yields an error.
func Unmarshal(b []byte) (*Model, error) {
	m := &Model{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			m.IRVersion = int64(v)
		case 2:
			m.ProducerName = string(p)
		case 3:
			m.ProducerVersion = string(p)
		case 4:
			m.Domain = string(p)
		case 5:
			m.ModelVersion = int64(v)
		case 6:
			m.DocString = string(p)
		case 7:
			return decodeGraph(p, &m.Graph)
		case 8:
			o, err := decodeOpset(p)
			m.OpsetImports = append(m.OpsetImports, o)
			return err
		case 14:
			var kv StringEntry
			err := fields(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				switch num {
				case 1:
					kv.Key = string(p)
				case 2:
					kv.Value = string(p)
				}
				return nil
			})
			m.Metadata = append(m.Metadata, kv)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding ONNX model: %w", err)
	}
	return m, nil
}

var errMalformed = errors.New("malformed protobuf")

// fields calls f for each field of the message b. For varint and fixed fields v
// holds the value; for length-delimited fields p holds the payload.
func fields(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %w", errMalformed, protowire.ParseError(n))
		}
		b = b[n:]
		var v uint64
		var p []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			p, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: field %d: %w", errMalformed, num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := f(num, typ, v, p); err != nil {
			return err
		}
	}
	return nil
}

// repeated decodes a repeated scalar field that may be packed (BytesType) or not.
func repeated(typ protowire.Type, v uint64, p []byte, fixed32 bool, add func(uint64)) error {
	if typ != protowire.BytesType {
		add(v)
		return nil
	}
	for len(p) > 0 {
		var x uint64
		var n int
		if fixed32 {
			var y uint32
			y, n = protowire.ConsumeFixed32(p)
			x = uint64(y)
		} else {
			x, n = protowire.ConsumeVarint(p)
		}
		if n < 0 {
			return fmt.Errorf("%w: packed field: %w", errMalformed, protowire.ParseError(n))
		}
		add(x)
		p = p[n:]
	}
	return nil
}

func decodeGraph(b []byte, g *Graph) error {
	return fields(b, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		switch num {
		case 1:
			var n Node
			if err := decodeNode(p, &n); err != nil {
				return err
			}
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(p)
		case 5:
			var t Tensor
			if err := decodeTensor(p, &t); err != nil {
				return err
			}
			g.Initializers = append(g.Initializers, t)
		case 10:
			g.DocString = string(p)
		case 11, 12, 13:
			var vi ValueInfo
			if err := decodeValueInfo(p, &vi); err != nil {
				return err
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, vi)
			case 12:
				g.Outputs = append(g.Outputs, vi)
			default:
				g.ValueInfo = append(g.ValueInfo, vi)
			}
		}
		return nil
	})
}

func decodeNode(b []byte, n *Node) error {
	return fields(b, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(p))
		case 2:
			n.Outputs = append(n.Outputs, string(p))
		case 3:
			n.Name = string(p)
		case 4:
			n.OpType = string(p)
		case 5:
			var a Attribute
			if err := decodeAttribute(p, &a); err != nil {
				return err
			}
			n.Attributes = append(n.Attributes, a)
		case 6:
			n.DocString = string(p)
		case 7:
			n.Domain = string(p)
		}
		return nil
	})
}

func decodeAttribute(b []byte, a *Attribute) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			a.Name = string(p)
		case 2:
			a.F = math.Float32frombits(uint32(v))
		case 3:
			a.I = int64(v)
		case 4:
			a.S = append([]byte{}, p...)
		case 5:
			a.T = &Tensor{}
			return decodeTensor(p, a.T)
		case 6:
			a.G = &Graph{}
			return decodeGraph(p, a.G)
		case 7:
			return repeated(typ, v, p, true, func(x uint64) { a.Floats = append(a.Floats, math.Float32frombits(uint32(x))) })
		case 8:
			return repeated(typ, v, p, false, func(x uint64) { a.Ints = append(a.Ints, int64(x)) })
		case 9:
			a.Strings = append(a.Strings, append([]byte{}, p...))
		case 20:
			a.Type = AttributeType(v)
		}
		return nil
	})
}

func decodeTensor(b []byte, t *Tensor) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			return repeated(typ, v, p, false, func(x uint64) { t.Dims = append(t.Dims, int64(x)) })
		case 2:
			t.DataType = DataType(v)
		case 4:
			return repeated(typ, v, p, true, func(x uint64) { t.FloatData = append(t.FloatData, math.Float32frombits(uint32(x))) })
		case 5:
			return repeated(typ, v, p, false, func(x uint64) { t.Int32Data = append(t.Int32Data, int32(x)) })
		case 7:
			return repeated(typ, v, p, false, func(x uint64) { t.Int64Data = append(t.Int64Data, int64(x)) })
		case 8:
			t.Name = string(p)
		case 9:
			t.RawData = append([]byte{}, p...)
		case 12:
			t.DocString = string(p)
		}
		return nil
	})
}

func decodeValueInfo(b []byte, vi *ValueInfo) error {
	vi.UnknownShape = true
	return fields(b, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		switch num {
		case 1:
			vi.Name = string(p)
		case 3:
			vi.DocString = string(p)
		case 2: // TypeProto
			return fields(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				if num != 1 { // only tensor types
					return nil
				}
				return fields(p, func(num protowire.Number, _ protowire.Type, v uint64, p []byte) error {
					switch num {
					case 1:
						vi.ElemType = DataType(v)
					case 2:
						vi.UnknownShape = false
						vi.Shape = nil
						return fields(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
							if num != 1 {
								return nil
							}
							d := Dim{}
							set := false
							err := fields(p, func(num protowire.Number, _ protowire.Type, v uint64, p []byte) error {
								switch num {
								case 1:
									d.Value, set = int64(v), true
								case 2:
									d.Param, set = string(p), true
								}
								return nil
							})
							if !set {
								d.Value = -1
							}
							vi.Shape = append(vi.Shape, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
}

// Signature is what a model consumes and produces, read without decoding weights.
type Signature struct {
	IRVersion int64
	Opsets    []OpsetID
	Inputs    []ValueInfo // graph inputs, initializers excluded when listed as inputs
	Outputs   []ValueInfo
}

// ReadSignature decodes only the graph inputs, outputs and opset imports of an
// ONNX model, skipping nodes and initializers, so it is cheap even for large
// models. Older exporters list initializers among the graph inputs; those are
// left out.
func ReadSignature(b []byte) (*Signature, error) {
	s := &Signature{}
	var graph []byte
	err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			s.IRVersion = int64(v)
		case 7:
			graph = p
		case 8:
			o, err := decodeOpset(p)
			s.Opsets = append(s.Opsets, o)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding ONNX model: %w", err)
	}
	if graph == nil {
		return nil, fmt.Errorf("decoding ONNX model: no graph (not an ONNX model?)")
	}
	inits := map[string]bool{}
	err = fields(graph, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
		switch num {
		case 5: // initializer: only its name
			return fields(p, func(num protowire.Number, _ protowire.Type, _ uint64, p []byte) error {
				if num == 8 {
					inits[string(p)] = true
				}
				return nil
			})
		case 11, 12:
			var vi ValueInfo
			if err := decodeValueInfo(p, &vi); err != nil {
				return err
			}
			if num == 11 {
				s.Inputs = append(s.Inputs, vi)
			} else {
				s.Outputs = append(s.Outputs, vi)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("decoding ONNX graph: %w", err)
	}
	kept := s.Inputs[:0]
	for _, in := range s.Inputs {
		if !inits[in.Name] {
			kept = append(kept, in)
		}
	}
	s.Inputs = kept
	return s, nil
}

// String formats a value as NAME ELEM[d0,d1,...], e.g. "input_ids INT64[batch,sequence]".
func (v ValueInfo) String() string {
	if v.UnknownShape {
		return v.Name + " " + v.ElemType.String() + "[?]"
	}
	dims := make([]string, len(v.Shape))
	for i, d := range v.Shape {
		switch {
		case d.Param != "":
			dims[i] = d.Param
		case d.Value < 0:
			dims[i] = "?"
		default:
			dims[i] = fmt.Sprint(d.Value)
		}
	}
	return v.Name + " " + v.ElemType.String() + "[" + strings.Join(dims, ",") + "]"
}

// decodeOpset decodes one OperatorSetIdProto.
func decodeOpset(p []byte) (OpsetID, error) {
	var o OpsetID
	err := fields(p, func(num protowire.Number, _ protowire.Type, v uint64, p []byte) error {
		switch num {
		case 1:
			o.Domain = string(p)
		case 2:
			o.Version = int64(v)
		}
		return nil
	})
	return o, err
}
