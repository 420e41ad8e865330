package embed

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/aem-dev/aem/home/hometest"
	"github.com/aem-dev/aem/models/onnxpb"
)

// testVocab is the width of the tiny models' token tables: enough rows for
// both fixture tokenizers (testdata/unigram: 26 pieces; testdata/wordpiece: 16).
const (
	testVocab = 26
	testDim   = 3
)

// tokenTable is the tiny models' embedding table, row i = token i.
func tokenTable() [][]float32 {
	t := make([][]float32, testVocab)
	for i := range t {
		f := float64(i + 1)
		t[i] = []float32{float32(math.Sin(f)), float32(math.Cos(2 * f)), float32(i%5) - 2}
	}
	return t
}

func flat(rows [][]float32) []float32 {
	var out []float32
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// typeTable is added to token vectors by the token_type_ids model.
var typeTable = [][]float32{{0, 0, 5}, {0, 7, 0}}

// ortLib returns the ONNX Runtime library for tests, or skips.
func ortLib(t testing.TB) string {
	t.Helper()
	if !ortAvailable {
		t.Skip("built without cgo: no ORT backend")
	}
	if p := os.Getenv(EnvORTLib); p != "" {
		return p
	}
	home := os.Getenv(EnvHome)
	if home == "" {
		home = filepath.Join("..", ".aem")
	}
	p := filepath.Join(home, "lib", PlatformDir(), "libonnxruntime.so.1")
	if _, err := os.Stat(p); err != nil {
		hometest.Missing(t, "ONNX Runtime library not installed at %s: run scripts/setup (or set %s) to run ORT tests", p, EnvORTLib)
	}
	return p
}

// gatherModel: last_hidden_state[b, s, :] = table[input_ids[b, s]] (+ typeTable[token_type_ids[b, s]]).
func gatherModel(withTypes bool) onnxpb.Model {
	nodes := []onnxpb.Node{onnxpb.Op("Gather", []string{"table", "input_ids"}, []string{"tok"}, onnxpb.AttrI("axis", 0))}
	inits := []onnxpb.Tensor{onnxpb.FloatTensor("table", []int64{testVocab, testDim}, flat(tokenTable()))}
	inputs := []onnxpb.ValueInfo{
		onnxpb.TensorInfo("input_ids", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
		onnxpb.TensorInfo("attention_mask", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
	}
	if withTypes {
		inits = append(inits, onnxpb.FloatTensor("types", []int64{2, testDim}, flat(typeTable)))
		nodes = append(nodes,
			onnxpb.Op("Gather", []string{"types", "token_type_ids"}, []string{"typ"}, onnxpb.AttrI("axis", 0)),
			onnxpb.Op("Add", []string{"tok", "typ"}, []string{"last_hidden_state"}))
		inputs = append(inputs, onnxpb.TensorInfo("token_type_ids", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")))
	} else {
		nodes = append(nodes, onnxpb.Op("Identity", []string{"tok"}, []string{"last_hidden_state"}))
	}
	return onnxpb.Model{
		OpsetImports: []onnxpb.OpsetID{{Version: 13}},
		Graph: onnxpb.Graph{
			Name: "gather", Nodes: nodes, Initializers: inits, Inputs: inputs,
			Outputs: []onnxpb.ValueInfo{onnxpb.TensorInfo("last_hidden_state", onnxpb.Float, onnxpb.P("batch"), onnxpb.P("seq"), onnxpb.D(testDim))},
		},
	}
}

// pooledModel: embedding[b, :] = masked mean of table[input_ids[b, s]] over s
// (the shape of USE-lite's output), built only from ops both backends run.
func pooledModel() onnxpb.Model {
	return onnxpb.Model{
		OpsetImports: []onnxpb.OpsetID{{Version: 13}},
		Graph: onnxpb.Graph{
			Name: "pooled",
			Nodes: []onnxpb.Node{
				onnxpb.Op("Gather", []string{"table", "input_ids"}, []string{"tok"}, onnxpb.AttrI("axis", 0)),
				onnxpb.Op("Cast", []string{"attention_mask"}, []string{"maskf"}, onnxpb.AttrI("to", int64(onnxpb.Float))),
				onnxpb.Constant("axes", onnxpb.Int64Tensor("", []int64{1}, []int64{-1})),
				onnxpb.Op("Unsqueeze", []string{"maskf", "axes"}, []string{"mask3"}),
				onnxpb.Op("Mul", []string{"tok", "mask3"}, []string{"masked"}),
				onnxpb.Op("ReduceMean", []string{"masked"}, []string{"num"}, onnxpb.AttrIs("axes", 1), onnxpb.AttrI("keepdims", 0)),
				onnxpb.Op("ReduceMean", []string{"mask3"}, []string{"den"}, onnxpb.AttrIs("axes", 1), onnxpb.AttrI("keepdims", 0)),
				onnxpb.Op("Div", []string{"num", "den"}, []string{"embedding"}),
			},
			Initializers: []onnxpb.Tensor{onnxpb.FloatTensor("table", []int64{testVocab, testDim}, flat(tokenTable()))},
			Inputs: []onnxpb.ValueInfo{
				onnxpb.TensorInfo("input_ids", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
				onnxpb.TensorInfo("attention_mask", onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("seq")),
			},
			Outputs: []onnxpb.ValueInfo{onnxpb.TensorInfo("embedding", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(testDim))},
		},
	}
}

// writeModelDir writes m as model.onnx beside a fixture tokenizer and the
// given extra files (relative path -> content).
func writeModelDir(t testing.TB, m onnxpb.Model, tokenizer string, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := m.Marshal()
	if err != nil {
		t.Fatalf("marshalling test model: %v", err)
	}
	files := map[string][]byte{"model.onnx": b}
	tb, err := os.ReadFile(filepath.Join("testdata", tokenizer, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	files["tokenizer.json"] = tb
	for k, v := range extra {
		files[k] = []byte(v)
	}
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func poolingConfig(mode string) string {
	c := map[string]any{
		"word_embedding_dimension": testDim,
		"pooling_mode_cls_token":   mode == "cls",
		"pooling_mode_mean_tokens": mode == "mean",
		"pooling_mode_max_tokens":  mode == "max",
	}
	b, _ := json.Marshal(c)
	return string(b)
}

const modulesJSON = `[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},
{"idx":2,"name":"2","path":"2_Normalize","type":"sentence_transformers.models.Normalize"}]`

// backends lists the backends to test: "go" always, "ort" when its library is installed.
func testBackends(t *testing.T) []string {
	t.Helper()
	bs := []string{BackendGo}
	if !ortAvailable {
		t.Log("built without cgo: testing the go backend only")
		return bs
	}
	if lib := os.Getenv(EnvORTLib); lib != "" {
		bs = append(bs, BackendORT)
	} else if _, err := os.Stat(filepath.Join("..", ".aem", "lib", PlatformDir(), "libonnxruntime.so.1")); err == nil {
		bs = append(bs, BackendORT)
	} else {
		t.Logf("ONNX Runtime library not installed: testing the go backend only (run scripts/setup or set %s)", EnvORTLib)
	}
	return bs
}

// openTest opens an Embedder on dir with the given backend.
func openTest(t testing.TB, dir, backend string, mod func(*Options)) *Embedder {
	t.Helper()
	o := Options{ModelDir: dir, Backend: backend, BatchSize: 4, Home: t.TempDir()}
	if backend == BackendORT {
		o.ORTLib = ortLib(t)
	}
	if mod != nil {
		mod(&o)
	}
	e, err := Open(context.Background(), o)
	if err != nil {
		t.Fatalf("Open(%s, %s): %v", dir, backend, err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e
}

func unit(v []float32) []float32 {
	out := append([]float32(nil), v...)
	normalize(out)
	return out
}

func assertClose(t testing.TB, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > tol {
			t.Fatalf("%s: got %v, want %v (index %d differs by more than %g)", what, got, want, i, tol)
		}
	}
}
