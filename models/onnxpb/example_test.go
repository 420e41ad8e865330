package onnxpb_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/aem-dev/aem/models/onnxpb"
)

// A token-embedding model: last_hidden_state[b, s, :] = table[input_ids[b, s], :].
// Shapes and axes that a backend must know statically are Constant nodes; the
// weights are an initializer.
func Example() {
	table := onnxpb.FloatTensor("table", []int64{4, 2}, []float32{
		0, 0,
		1, 0,
		0, 1,
		1, 1,
	})
	m := onnxpb.Model{
		ProducerName: "example",
		OpsetImports: []onnxpb.OpsetID{{Version: 17}},
		Graph: onnxpb.Graph{
			Name: "gather",
			Nodes: []onnxpb.Node{
				onnxpb.Op("Gather", []string{"table", "input_ids"}, []string{"last_hidden_state"}, onnxpb.AttrI("axis", 0)),
			},
			Initializers: []onnxpb.Tensor{table},
			Inputs: []onnxpb.ValueInfo{
				onnxpb.TensorInfo("input_ids", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
				onnxpb.TensorInfo("attention_mask", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
			},
			Outputs: []onnxpb.ValueInfo{
				onnxpb.TensorInfo("last_hidden_state", onnxpb.Float, onnxpb.P("batch"), onnxpb.P("seq"), onnxpb.D(2)),
			},
		},
	}
	b, err := m.Marshal()
	if err != nil {
		fmt.Println(err)
		return
	}
	back, err := onnxpb.Unmarshal(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	in := back.Graph.Inputs[0]
	fmt.Println(in.Name, in.ElemType, in.Shape[0].Param, in.Shape[1].Param)
	fmt.Println(back.Graph.Nodes[0].OpType, len(b), "bytes")
	fmt.Printf("sha256 %x\n", sha256.Sum256(b))
	// Output:
	// input_ids INT64 batch seq
	// Gather 282 bytes
	// sha256 a5c85397630f1928a42e435b44c2f816de53f12a3aac7d200335f1b7b2866d51
}
