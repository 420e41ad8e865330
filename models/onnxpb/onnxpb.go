package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"
)

// DataType is TensorProto.DataType: the element type of a tensor.
type DataType int32

// Element types used by inference graphs (values from onnx.proto).
const (
	Undefined DataType = 0
	Float     DataType = 1
	Uint8     DataType = 2
	Int8      DataType = 3
	Int32     DataType = 6
	Int64     DataType = 7
	String    DataType = 8
	Bool      DataType = 9
	Float16   DataType = 10
	Double    DataType = 11
)

// String returns the ONNX name of the data type, e.g. "FLOAT" or "INT64".
func (d DataType) String() string {
	switch d {
	case Undefined:
		return "UNDEFINED"
	case Float:
		return "FLOAT"
	case Uint8:
		return "UINT8"
	case Int8:
		return "INT8"
	case Int32:
		return "INT32"
	case Int64:
		return "INT64"
	case String:
		return "STRING"
	case Bool:
		return "BOOL"
	case Float16:
		return "FLOAT16"
	case Double:
		return "DOUBLE"
	}
	return fmt.Sprintf("DataType(%d)", int32(d))
}

// AttributeType is AttributeProto.AttributeType.
type AttributeType int32

// Attribute types (values from onnx.proto).
const (
	AttrUndefined AttributeType = 0
	AttrFloat     AttributeType = 1
	AttrInt       AttributeType = 2
	AttrString    AttributeType = 3
	AttrTensor    AttributeType = 4
	AttrGraph     AttributeType = 5
	AttrFloats    AttributeType = 6
	AttrInts      AttributeType = 7
	AttrStrings   AttributeType = 8
)

// DefaultIRVersion is the ONNX IR version written when Model.IRVersion is zero
// (IR 8 goes with opsets up to 18 and is read by ONNX Runtime 1.14 and later).
const DefaultIRVersion = 8

// Model is ModelProto.
type Model struct {
	IRVersion       int64 // 0 means DefaultIRVersion
	OpsetImports    []OpsetID
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	DocString       string
	Graph           Graph
	Metadata        []StringEntry // metadata_props, written in slice order
}

// OpsetID is OperatorSetIdProto; an empty Domain is the default "ai.onnx" domain.
type OpsetID struct {
	Domain  string
	Version int64
}

// StringEntry is StringStringEntryProto (one metadata key/value pair).
type StringEntry struct {
	Key, Value string
}

// Graph is GraphProto.
type Graph struct {
	Name         string
	Nodes        []Node // must be in topological order
	Initializers []Tensor
	DocString    string
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	ValueInfo    []ValueInfo
}

// Node is NodeProto: one operator application.
type Node struct {
	Inputs     []string // "" marks an omitted optional input
	Outputs    []string
	Name       string
	OpType     string
	Domain     string
	Attributes []Attribute
	DocString  string
}

// Attribute is AttributeProto. Set Type and the one field it names; the helpers
// AttrI, AttrF, AttrS, AttrT, AttrG, AttrIs, AttrFs and AttrSs do that.
type Attribute struct {
	Name    string
	Type    AttributeType
	F       float32
	I       int64
	S       []byte
	T       *Tensor
	G       *Graph
	Floats  []float32
	Ints    []int64
	Strings [][]byte
}

// Tensor is TensorProto. Exactly one of the data fields should be set (or none, for
// an empty tensor): FloatData, Int32Data (also used for BOOL, INT8, UINT8, FLOAT16),
// Int64Data, or RawData (little-endian, as ONNX requires).
type Tensor struct {
	Dims      []int64
	DataType  DataType
	FloatData []float32
	Int32Data []int32
	Int64Data []int64
	Name      string
	RawData   []byte
	DocString string
}

// ValueInfo is ValueInfoProto for a tensor-typed value. Shape lists the dimensions
// (an empty Shape is a scalar); set UnknownShape to omit the shape (unknown rank).
type ValueInfo struct {
	Name         string
	ElemType     DataType
	Shape        []Dim
	UnknownShape bool
	DocString    string
}

// Dim is one TensorShapeProto.Dimension: a fixed size (Value) or a symbolic name
// (Param). When Param is set it wins; a negative Value with no Param is an unknown,
// unnamed size (an empty Dimension message).
type Dim struct {
	Value int64
	Param string
}

// D returns a fixed-size dimension.
func D(n int64) Dim { return Dim{Value: n} }

// P returns a symbolic dimension such as "batch" or "seq".
func P(name string) Dim { return Dim{Param: name} }

// TensorInfo returns a ValueInfo for a tensor with the given element type and shape.
func TensorInfo(name string, elem DataType, dims ...Dim) ValueInfo {
	return ValueInfo{Name: name, ElemType: elem, Shape: dims}
}

// FloatTensor returns a float32 tensor stored as raw_data. It copies data.
func FloatTensor(name string, dims []int64, data []float32) Tensor {
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, DataType: Float, Dims: append([]int64(nil), dims...), RawData: raw}
}

// Int64Tensor returns an int64 tensor stored in int64_data. It copies data.
func Int64Tensor(name string, dims []int64, data []int64) Tensor {
	return Tensor{Name: name, DataType: Int64, Dims: append([]int64(nil), dims...), Int64Data: append([]int64(nil), data...)}
}

// Int64Raw returns an int64 tensor stored as raw_data.
func Int64Raw(name string, dims []int64, data []int64) Tensor {
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	return Tensor{Name: name, DataType: Int64, Dims: append([]int64(nil), dims...), RawData: raw}
}

// NumElements is the product of the tensor's dims (1 for a scalar).
func (t *Tensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		n *= d
	}
	return n
}

// Floats returns the tensor's values as float32, from FloatData or RawData.
func (t *Tensor) Floats() ([]float32, error) {
	if t.DataType != Float {
		return nil, fmt.Errorf("tensor %q is %v, not FLOAT", t.Name, t.DataType)
	}
	if t.RawData == nil {
		return t.FloatData, nil
	}
	if len(t.RawData)%4 != 0 {
		return nil, fmt.Errorf("tensor %q: raw_data length %d is not a multiple of 4", t.Name, len(t.RawData))
	}
	out := make([]float32, len(t.RawData)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:]))
	}
	return out, nil
}

// Int64s returns the tensor's values as int64, from Int64Data or RawData.
func (t *Tensor) Int64s() ([]int64, error) {
	if t.DataType != Int64 {
		return nil, fmt.Errorf("tensor %q is %v, not INT64", t.Name, t.DataType)
	}
	if t.RawData == nil {
		return t.Int64Data, nil
	}
	if len(t.RawData)%8 != 0 {
		return nil, fmt.Errorf("tensor %q: raw_data length %d is not a multiple of 8", t.Name, len(t.RawData))
	}
	out := make([]int64, len(t.RawData)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(t.RawData[8*i:]))
	}
	return out, nil
}

// AttrI returns an INT attribute.
func AttrI(name string, v int64) Attribute { return Attribute{Name: name, Type: AttrInt, I: v} }

// AttrF returns a FLOAT attribute.
func AttrF(name string, v float32) Attribute { return Attribute{Name: name, Type: AttrFloat, F: v} }

// AttrS returns a STRING attribute.
func AttrS(name, v string) Attribute { return Attribute{Name: name, Type: AttrString, S: []byte(v)} }

// AttrT returns a TENSOR attribute (the "value" of a Constant node, for example).
func AttrT(name string, t Tensor) Attribute { return Attribute{Name: name, Type: AttrTensor, T: &t} }

// AttrG returns a GRAPH attribute (a subgraph for If or Loop).
func AttrG(name string, g Graph) Attribute { return Attribute{Name: name, Type: AttrGraph, G: &g} }

// AttrIs returns an INTS attribute.
func AttrIs(name string, v ...int64) Attribute {
	return Attribute{Name: name, Type: AttrInts, Ints: append([]int64{}, v...)}
}

// AttrFs returns a FLOATS attribute.
func AttrFs(name string, v ...float32) Attribute {
	return Attribute{Name: name, Type: AttrFloats, Floats: append([]float32{}, v...)}
}

// AttrSs returns a STRINGS attribute.
func AttrSs(name string, v ...string) Attribute {
	a := Attribute{Name: name, Type: AttrStrings}
	for _, s := range v {
		a.Strings = append(a.Strings, []byte(s))
	}
	return a
}

// Op returns a node with the given operator, inputs, outputs and attributes;
// the node is named after its first output.
func Op(opType string, inputs, outputs []string, attrs ...Attribute) Node {
	n := Node{OpType: opType, Inputs: inputs, Outputs: outputs, Attributes: attrs}
	if len(outputs) > 0 {
		n.Name = outputs[0]
	}
	return n
}

// Constant returns a Constant node producing the tensor t under the name out.
// Graphs meant for onnx-gomlx (hugot's Go backend) should use Constant nodes
// rather than initializers for shapes, axes and scalars: it treats initializers as
// variables and cannot fold them into static shapes.
func Constant(out string, t Tensor) Node {
	t.Name = ""
	return Node{Name: out, OpType: "Constant", Outputs: []string{out}, Attributes: []Attribute{AttrT("value", t)}}
}

// Int8Tensor returns an int8 tensor stored as raw_data. It copies data.
func Int8Tensor(name string, dims []int64, data []int8) Tensor {
	raw := make([]byte, len(data))
	for i, v := range data {
		raw[i] = byte(v)
	}
	return Tensor{Name: name, DataType: Int8, Dims: append([]int64(nil), dims...), RawData: raw}
}

// Uint8Tensor returns a uint8 tensor stored as raw_data. It copies data.
func Uint8Tensor(name string, dims []int64, data []uint8) Tensor {
	return Tensor{Name: name, DataType: Uint8, Dims: append([]int64(nil), dims...), RawData: append([]byte{}, data...)}
}
