package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManifestFormat identifies the aem-model.json format version.
const ManifestFormat = "aem-model/1"

// Manifest is aem-model.json: what a model directory holds and how to run it.
// Models are identified by the sha256 of their weights file (ID).
type Manifest struct {
	Format      string            `json:"format"`
	Name        string            `json:"name"`
	Precision   string            `json:"precision,omitempty"` // the default model's form: "fp32" or "int8"; empty for other models
	ID          string            `json:"id"`                  // NAME@sha256:<sha256 of model.onnx>
	Description string            `json:"description,omitempty"`
	License     string            `json:"license,omitempty"`
	Source      Source            `json:"source"`
	Files       map[string]string `json:"files"` // file name -> sha256 (hex)
	Inputs      []string          `json:"inputs"`
	Output      string            `json:"output"`
	OutputKind  string            `json:"output_kind"` // "sentence_embedding" (pre-pooled) or "token_embeddings"
	Dim         int               `json:"dim"`
	MaxTokens   int               `json:"max_tokens"`
	Pooling     string            `json:"pooling"`
	Padding     string            `json:"padding,omitempty"`
	Tokenizer   TokenizerInfo     `json:"tokenizer"`
	Converter   string            `json:"converter,omitempty"`
}

// Source says where a model's files came from.
type Source struct {
	Kind    string `json:"kind"` // "npm", "huggingface" or "local"
	Package string `json:"package,omitempty"`
	Version string `json:"version,omitempty"`
	Repo    string `json:"repo,omitempty"`
}

// TokenizerInfo says how to tokenize for the model.
type TokenizerInfo struct {
	File string `json:"file"`
	// Kind is "use-lite" when the exact reference tokenizer (package models/usetok)
	// must be used, or "huggingface" for any tokenizer.json reader.
	Kind  string `json:"kind"`
	Notes string `json:"notes,omitempty"`
}

// Marshal encodes the manifest as indented JSON with a trailing newline; the
// bytes are deterministic (map keys sorted).
func (m Manifest) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", ManifestFile, err)
	}
	return buf.Bytes(), nil
}

// ReadManifest reads dir/aem-model.json.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("reading model manifest %s: %w", path, err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("parsing model manifest %s: %w (the file is corrupt; reinstall the model)", path, err)
	}
	if m.Format != ManifestFormat {
		return Manifest{}, fmt.Errorf("model manifest %s: format %q, want %q", path, m.Format, ManifestFormat)
	}
	return m, nil
}

func useLiteManifest(v UseLiteVariant, modelSHA, tokSHA string) Manifest {
	desc := "Universal Sentence Encoder lite (Google): 2-layer transformer, 8k SentencePiece vocabulary, 512-d sentence embeddings."
	if v.Precision == PrecisionInt8 {
		desc += " " + useLiteInt8Doc
	}
	return Manifest{
		Format:      ManifestFormat,
		Name:        v.Name,
		Precision:   v.Precision,
		ID:          v.Name + "@sha256:" + modelSHA,
		Description: desc,
		License:     "Apache-2.0",
		Source:      Source{Kind: "npm", Package: UseLitePackage, Version: UseLiteVersion},
		Files:       map[string]string{ModelFile: modelSHA, TokenizerFile: tokSHA},
		Inputs:      []string{InputIDs, InputMask},
		Output:      OutputEmbedding,
		OutputKind:  "sentence_embedding",
		Dim:         UseLiteDim,
		MaxTokens:   UseLiteMaxTokens,
		Pooling:     "none: pre-pooled, L2-normalised",
		Padding:     "right; attention_mask 0 marks padding (pad id 0; id 0 is also the real unknown-piece token); tokens past max_tokens are dropped; an empty text has zero tokens (feed one pad)",
		Tokenizer: TokenizerInfo{
			File: TokenizerFile,
			Kind: "use-lite",
			Notes: "exact ids: github.com/aem-dev/aem/models/usetok (port of the reference JS tokenizer); " +
				"tokenizer.json is a Hugging Face Unigram approximation that differs on unknown characters, tabs/newlines and ties",
		},
		Converter: fmt.Sprintf("aem models convert (USE-lite converter v%d, ONNX opset %d)", converterVersion, onnxOpset),
	}
}
