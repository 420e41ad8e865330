package models

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/models/onnxpb"
	ort "github.com/yalue/onnxruntime_go"
)

// tinyEncoder is a token-level model: last_hidden_state = table[input_ids]
// (attention_mask is declared but unused), the shape of a sentence-transformers export.
func tinyEncoder(outputs ...onnxpb.ValueInfo) onnxpb.Model {
	if outputs == nil {
		outputs = []onnxpb.ValueInfo{onnxpb.TensorInfo("last_hidden_state", onnxpb.Float, onnxpb.P("batch"), onnxpb.P("sequence"), onnxpb.D(2))}
	}
	return onnxpb.Model{
		OpsetImports: []onnxpb.OpsetID{{Version: 17}},
		Graph: onnxpb.Graph{
			Name: "tiny",
			Nodes: []onnxpb.Node{
				onnxpb.Op("Gather", []string{"table", InputIDs}, []string{"last_hidden_state"}, onnxpb.AttrI("axis", 0)),
			},
			Initializers: []onnxpb.Tensor{onnxpb.FloatTensor("table", []int64{3, 2}, []float32{0, 0, 1, 0, 0, 1})},
			Inputs: []onnxpb.ValueInfo{
				onnxpb.TensorInfo(InputIDs, onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("sequence")),
				onnxpb.TensorInfo(InputMask, onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("sequence")),
			},
			Outputs: outputs,
		},
	}
}

const tinyTokenizer = `{"version":"1.0","truncation":{"direction":"Right","max_length":256,"strategy":"LongestFirst","stride":0},"model":{"type":"WordPiece","vocab":{"[UNK]":0,"a":1,"b":2}}}`

func writeModelDir(t *testing.T, m onnxpb.Model, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{ModelFile: string(b), TokenizerFile: tinyTokenizer}
	for k, v := range extra {
		files[k] = v
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestDescribe(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name             string
		extra            map[string]string
		pooling, kind    string
		outputs          []onnxpb.ValueInfo
		wantFilesPooling bool
	}{
		{name: "no pooling config", pooling: "mean", kind: "token_embeddings"},
		{name: "cls", extra: map[string]string{PoolingConfigFile: `{"word_embedding_dimension":2,"pooling_mode_cls_token":true}`, ModulesFile: `[]`},
			pooling: "cls", kind: "token_embeddings", wantFilesPooling: true},
		{name: "max", extra: map[string]string{PoolingConfigFile: `{"pooling_mode_max_tokens":true}`}, pooling: "max", kind: "token_embeddings", wantFilesPooling: true},
		{name: "pre-pooled", outputs: []onnxpb.ValueInfo{onnxpb.TensorInfo("sentence_embedding", onnxpb.Float, onnxpb.P("batch"), onnxpb.D(2))},
			pooling: "none: pre-pooled", kind: "sentence_embedding"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeModelDir(t, tinyEncoder(c.outputs...), c.extra)
			m, err := Verify(ctx, dir) // no manifest: Verify describes
			if err != nil {
				t.Fatal(err)
			}
			if m.Pooling != c.pooling || m.OutputKind != c.kind || m.Dim != 2 || m.MaxTokens != 256 {
				t.Errorf("manifest = %+v", m)
			}
			if !strings.HasPrefix(m.ID, filepath.Base(dir)+"@sha256:") || len(m.Files[ModelFile]) != 64 {
				t.Errorf("ID = %q, files = %v", m.ID, m.Files)
			}
			if _, ok := m.Files[PoolingConfigFile]; ok != c.wantFilesPooling {
				t.Errorf("files = %v", m.Files)
			}
		})
	}
}

func TestDescribeRefuses(t *testing.T) {
	ctx := context.Background()
	noMask := tinyEncoder()
	noMask.Graph.Inputs = noMask.Graph.Inputs[:1]
	cases := []struct {
		name  string
		model onnxpb.Model
		extra map[string]string
		want  string
		is    error
	}{
		{"no attention_mask", noMask, nil, "inputs are input_ids INT64[batch,sequence]", ErrBadModel},
		{"1-d output", tinyEncoder(onnxpb.TensorInfo("scores", onnxpb.Float, onnxpb.P("batch"))), nil, "outputs are scores FLOAT[batch]", ErrBadModel},
		{"sqrt-len pooling", tinyEncoder(), map[string]string{PoolingConfigFile: `{"pooling_mode_mean_sqrt_len_tokens":true}`}, "not supported", ErrBadModel},
		{"corrupt pooling", tinyEncoder(), map[string]string{PoolingConfigFile: `{`}, "1_Pooling", ErrBadModel},
		{"corrupt tokenizer", tinyEncoder(), map[string]string{TokenizerFile: `[1,2]`}, "tokenizer.json", ErrBadModel},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeModelDir(t, c.model, c.extra)
			_, err := Verify(ctx, dir)
			if !errors.Is(err, c.is) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %v mentioning %q", err, c.is, c.want)
			}
		})
	}
	dir := writeModelDir(t, tinyEncoder(), nil)
	os.WriteFile(filepath.Join(dir, ModelFile), []byte("\xff\xff\xffnot onnx"), 0o644)
	if _, err := Verify(ctx, dir); !errors.Is(err, ErrBadModel) || !strings.Contains(err.Error(), "model.onnx") {
		t.Errorf("corrupt model.onnx: err = %v", err)
	}
	os.Remove(filepath.Join(dir, ModelFile))
	if _, err := Verify(ctx, dir); !errors.Is(err, ErrMissingFile) {
		t.Errorf("missing model.onnx: err = %v", err)
	}
}

// TestOnnxpbModelRunsInORT closes the loop on package onnxpb: a model it writes
// loads and runs in ONNX Runtime with the expected result.
func TestOnnxpbModelRunsInORT(t *testing.T) {
	initORT(t)
	m := tinyEncoder()
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ids, _ := ort.NewTensor(ort.NewShape(1, 3), []int64{2, 1, 0})
	defer ids.Destroy()
	mask, _ := ort.NewTensor(ort.NewShape(1, 3), []int64{1, 1, 1})
	defer mask.Destroy()
	out, _ := ort.NewEmptyTensor[float32](ort.NewShape(1, 3, 2))
	defer out.Destroy()
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(b, []string{InputIDs, InputMask}, []string{"last_hidden_state"}, nil)
	if err != nil {
		t.Fatalf("ONNX Runtime refused an onnxpb model: %v", err)
	}
	defer sess.Destroy()
	if err := sess.Run([]ort.Value{ids, mask}, []ort.Value{out}); err != nil {
		t.Fatal(err)
	}
	want := []float32{0, 1, 1, 0, 0, 0}
	for i, v := range out.GetData() {
		if v != want[i] {
			t.Fatalf("output = %v, want %v", out.GetData(), want)
		}
	}
}
