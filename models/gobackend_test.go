package models

import (
	"path/filepath"
	"testing"

	"github.com/gomlx/gomlx/backends"
	_ "github.com/gomlx/gomlx/backends/simplego" // pure-Go backend, as hugot's Go session uses
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	"github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"

	"github.com/aem-dev/aem/models/usetok"
)

// runGoBackend embeds texts in one padded batch with onnx-gomlx on gomlx's
// pure-Go backend, the way hugot's Go session loads a model.
func runGoBackend(t testing.TB, modelPath string, tok *usetok.Tokenizer, texts []string) [][]float32 {
	t.Helper()
	m, err := onnx.ReadFile(modelPath)
	if err != nil {
		t.Fatalf("parsing %s with onnx-gomlx: %v", modelPath, err)
	}
	ctx := context.New()
	if err := m.VariablesToContext(ctx); err != nil {
		t.Fatal(err)
	}
	ctx = ctx.Reuse()
	// gomlx v0.26.0's parallel op executor (simplego exec.go) has a data race the
	// race detector reports, and stalls under it and on a loaded 2-core machine;
	// run ops sequentially, as package embed does.
	backend, err := backends.NewWithConfig("go:ops_sequential")
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Finalize()
	exec, err := context.NewExec(backend, ctx, func(ctx *context.Context, ids, mask *graph.Node) *graph.Node {
		return m.CallGraph(ctx, ids.Graph(), map[string]*graph.Node{InputIDs: ids, InputMask: mask}, OutputEmbedding)[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Finalize()
	ids, mask, seq := padBatch(tok, texts)
	idsT := tensors.FromFlatDataAndDimensions(ids, len(texts), seq)
	maskT := tensors.FromFlatDataAndDimensions(mask, len(texts), seq)
	out, err := exec.Exec(idsT, maskT)
	if err != nil {
		t.Fatalf("running %s on the Go backend: %v", modelPath, err)
	}
	flat := tensors.MustCopyFlatData[float32](out[0])
	vecs := make([][]float32, len(texts))
	for i := range vecs {
		vecs[i] = flat[i*UseLiteDim : (i+1)*UseLiteDim]
	}
	return vecs
}

func TestReferenceVectorsGoBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("the pure-Go backend is slow under -short")
	}
	dir := installedUseLite(t)
	tok, err := usetok.Load(filepath.Join(dir, TokenizerFile))
	if err != nil {
		t.Fatal(err)
	}
	refs := loadReference(t)
	if raceEnabled {
		// A few short, Unicode, empty and over-long texts (see raceEnabled).
		var sub []referenceSentence
		for _, r := range refs {
			switch r.Text {
			case "NYC", "revenue", "", "日本語のテキスト", "tab\tseparated\tvalues":
				sub = append(sub, r)
			}
		}
		refs = sub
	}
	texts := make([]string, len(refs))
	for i, r := range refs {
		texts[i] = r.Text
	}
	checkCosines(t, "go batch", refs, runGoBackend(t, filepath.Join(dir, ModelFile), tok, texts))
}
