package onnxpb

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protowire"
)

func sampleModel() Model {
	sub := Graph{
		Name:    "then",
		Nodes:   []Node{Constant("y", FloatTensor("", nil, []float32{1}))},
		Outputs: []ValueInfo{TensorInfo("y", Float)},
	}
	return Model{
		IRVersion:       8,
		ProducerName:    "aem-test",
		ProducerVersion: "1",
		Domain:          "dev.aem",
		ModelVersion:    3,
		DocString:       "doc",
		OpsetImports:    []OpsetID{{Version: 17}, {Domain: "com.microsoft", Version: 1}},
		Metadata:        []StringEntry{{"b", "2"}, {"a", "1"}},
		Graph: Graph{
			Name:      "g",
			DocString: "graph doc",
			Nodes: []Node{
				Constant("axes", Int64Tensor("", []int64{1}, []int64{-1})),
				Op("ReduceMean", []string{"x", "axes"}, []string{"m"}, AttrI("keepdims", 0)),
				Op("LayerNormalization", []string{"x", "w", ""}, []string{"ln"}, AttrF("epsilon", 1e-6), AttrI("axis", -1)),
				Op("Cast", []string{"m"}, []string{"c"}, AttrI("to", int64(Int64))),
				Op("Custom", []string{"c"}, []string{"d"},
					AttrS("mode", "sum"), AttrIs("perm", 0, 2, 1), AttrFs("scales", 0.5, -2),
					AttrSs("names", "a", ""), AttrG("then_branch", sub),
					AttrT("value", Int64Raw("", []int64{2}, []int64{-7, 1 << 40})),
					AttrI("zero", 0)),
			},
			Initializers: []Tensor{
				FloatTensor("w", []int64{2, 3}, []float32{1, -2, 3.5, 0, -0, 1e-30}),
				Int64Tensor("ids", []int64{3}, []int64{0, -1, 1 << 62}),
				{Name: "f", DataType: Float, Dims: []int64{2}, FloatData: []float32{1, 2}},
				{Name: "b", DataType: Bool, Dims: []int64{2}, Int32Data: []int32{1, 0}},
				{Name: "empty", DataType: Float, Dims: []int64{0}},
			},
			Inputs: []ValueInfo{
				TensorInfo("x", Float, P("batch"), P("seq"), D(3)),
				{Name: "any", ElemType: Int64, UnknownShape: true},
				TensorInfo("scalar", Float),
				TensorInfo("unknown_dim", Float, Dim{Value: -1}, D(0)),
			},
			Outputs:   []ValueInfo{TensorInfo("d", Int64, P("batch"))},
			ValueInfo: []ValueInfo{TensorInfo("m", Float, P("batch"), P("seq"))},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	m := sampleModel()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	// Symbolic dims decode with Value 0; P already has Value 0, so the model
	// must come back exactly as written.
	if diff := cmp.Diff(&m, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	b2, err := back.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b, b2) {
		t.Errorf("re-marshalled bytes differ")
	}
}

func TestDeterministic(t *testing.T) {
	a, b := sampleModel(), sampleModel()
	x, err := a.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	y, err := b.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x, y) {
		t.Fatal("same model marshalled to different bytes")
	}
}

// TestWireLayout checks the top-level field numbers and wire types against
// onnx.proto by walking the bytes with protowire directly.
func TestWireLayout(t *testing.T) {
	m := Model{OpsetImports: []OpsetID{{Version: 17}}, ProducerName: "p"}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var got []protowire.Number
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatal(protowire.ParseError(n))
		}
		got = append(got, num)
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		b = b[n:]
		if num == 1 && typ != protowire.VarintType {
			t.Errorf("ir_version wire type %v", typ)
		}
	}
	want := []protowire.Number{1, 2, 7, 8} // ir_version, producer_name, graph, opset_import
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
	if m.IRVersion != 0 {
		t.Errorf("Marshal changed the model")
	}
}

func TestMarshalErrors(t *testing.T) {
	cases := []struct {
		name   string
		tensor Tensor
		want   string
	}{
		{"too few floats", Tensor{Name: "t", DataType: Float, Dims: []int64{2, 2}, FloatData: []float32{1}}, "need 4 values, got 1"},
		{"raw not multiple", Tensor{Name: "t", DataType: Float, Dims: []int64{1}, RawData: []byte{1, 2, 3}}, "not a multiple of 4"},
		{"two data fields", Tensor{Name: "t", DataType: Int64, Dims: []int64{1}, Int64Data: []int64{1}, RawData: make([]byte, 8)}, "more than one data field"},
		{"no data", Tensor{Name: "t", DataType: Float, Dims: []int64{3}}, "got none"},
		{"float data on int64", Tensor{Name: "t", DataType: Int64, Dims: []int64{1}, FloatData: []float32{1}}, "float_data on a INT64"},
		{"raw of string", Tensor{Name: "t", DataType: String, Dims: []int64{1}, RawData: []byte{1}}, "unsupported type STRING"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Model{Graph: Graph{Initializers: []Tensor{c.tensor}}}
			_, err := m.Marshal()
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `initializer t`) {
				t.Fatalf("err = %v, want one naming the initializer and %q", err, c.want)
			}
		})
	}
	m := Model{Graph: Graph{Nodes: []Node{{Name: "n", OpType: "Constant", Attributes: []Attribute{{Name: "value", Type: AttrTensor}}}}}}
	if _, err := m.Marshal(); err == nil || !strings.Contains(err.Error(), `node "n" attribute "value"`) {
		t.Errorf("nil tensor attribute: err = %v", err)
	}
	m = Model{Graph: Graph{Nodes: []Node{{Name: "n", Attributes: []Attribute{{Name: "x", Type: 99}}}}}}
	if _, err := m.Marshal(); err == nil {
		t.Errorf("unknown attribute type: no error")
	}
}

func TestUnmarshalMalformed(t *testing.T) {
	m := sampleModel()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, cut := range []int{1, 7, len(b) / 2, len(b) - 1} {
		if _, err := Unmarshal(b[:cut]); err == nil {
			t.Errorf("truncated at %d: no error", cut)
		}
	}
	if _, err := Unmarshal([]byte{0xff, 0xff, 0xff}); err == nil {
		t.Error("garbage: no error")
	}
}

func TestTensorAccessors(t *testing.T) {
	f := FloatTensor("f", []int64{3}, []float32{1.5, -2, 0})
	got, err := f.Floats()
	if err != nil || !cmp.Equal(got, []float32{1.5, -2, 0}) {
		t.Errorf("Floats = %v, %v", got, err)
	}
	i := Int64Raw("i", []int64{2}, []int64{-3, 1 << 50})
	gi, err := i.Int64s()
	if err != nil || !cmp.Equal(gi, []int64{-3, 1 << 50}) {
		t.Errorf("Int64s = %v, %v", gi, err)
	}
	if _, err := f.Int64s(); err == nil {
		t.Error("Int64s on float tensor: no error")
	}
	if _, err := i.Floats(); err == nil {
		t.Error("Floats on int64 tensor: no error")
	}
	if n := (&Tensor{}).NumElements(); n != 1 {
		t.Errorf("scalar NumElements = %d", n)
	}
}

func FuzzUnmarshal(f *testing.F) {
	m := sampleModel()
	b, _ := m.Marshal()
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ReadSignature(data)
		got, err := Unmarshal(data)
		if err != nil {
			return
		}
		// Anything that decodes must re-encode without panicking; tensors with
		// inconsistent data may be refused.
		_, _ = got.Marshal()
	})
}

func TestReadSignature(t *testing.T) {
	m := sampleModel()
	// An older-style model lists an initializer among its inputs.
	m.Graph.Inputs = append(m.Graph.Inputs, TensorInfo("w", Float, D(2), D(3)))
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadSignature(b)
	if err != nil {
		t.Fatal(err)
	}
	var ins, outs []string
	for _, v := range s.Inputs {
		ins = append(ins, v.String())
	}
	for _, v := range s.Outputs {
		outs = append(outs, v.String())
	}
	wantIns := []string{"x FLOAT[batch,seq,3]", "any INT64[?]", "scalar FLOAT[]", "unknown_dim FLOAT[?,0]"}
	if diff := cmp.Diff(wantIns, ins); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"d INT64[batch]"}, outs); diff != "" {
		t.Errorf("outputs (-want +got):\n%s", diff)
	}
	if s.IRVersion != 8 || len(s.Opsets) != 2 || s.Opsets[1].Domain != "com.microsoft" {
		t.Errorf("header = %+v", s)
	}
	if _, err := ReadSignature([]byte{}); err == nil {
		t.Error("empty input: no error")
	}
	if _, err := ReadSignature(b[:len(b)/3]); err == nil {
		t.Error("truncated input: no error")
	}
}
