package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aem-dev/aem/internal/safefile"

	"github.com/aem-dev/aem/models/onnxpb"
)

// Optional sentence-transformers files.
const (
	PoolingConfigFile = "1_Pooling/config.json"
	ModulesFile       = "modules.json"
)

// Verify checks that dir holds a usable model and returns its manifest.
//
// With an aem-model.json, every file it lists must exist with the recorded
// sha256 (and the use-lite model must match the pinned sha256s). Without one, the
// manifest is derived from the files by Describe. Either way model.onnx must
// parse and take input_ids and attention_mask, and tokenizer.json must parse.
// Errors wrap ErrMissingFile, ErrChecksum or ErrBadModel and name the path.
func Verify(ctx context.Context, dir string) (Manifest, error) {
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		if !os.IsNotExist(err) {
			return Manifest{}, fmt.Errorf("verifying model %s: %w", dir, err)
		}
		return Describe(ctx, dir, Source{Kind: "local"})
	}
	m, err := ReadManifest(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("verifying model %s: %w: %w", dir, ErrBadModel, err)
	}
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range []string{ModelFile, TokenizerFile} {
		if _, ok := m.Files[name]; !ok {
			return Manifest{}, fmt.Errorf("verifying model %s: %s does not list %s: %w (reinstall the model)", dir, ManifestFile, name, ErrBadModel)
		}
	}
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		got, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return Manifest{}, fmt.Errorf("verifying model %s: %w", dir, err)
		}
		if got != m.Files[name] {
			return Manifest{}, fmt.Errorf("verifying model %s: %s has sha256 %s, %s records %s: %w (the file changed or is corrupt; %s)",
				dir, name, got, ManifestFile, m.Files[name], ErrChecksum, reinstallHint(m))
		}
	}
	for _, v := range UseLiteVariants() {
		if m.Name == v.Name && m.Source.Kind == "npm" &&
			(m.Files[ModelFile] != v.ModelSHA256 || m.Files[TokenizerFile] != UseLiteTokenizerSHA256) {
			return Manifest{}, fmt.Errorf("verifying model %s: %s files are not the pinned ones (model.onnx %s, want %s): %w (%s)",
				dir, v.Name, m.Files[ModelFile], v.ModelSHA256, ErrChecksum, reinstallHint(m))
		}
	}
	if _, err := readSignature(filepath.Join(dir, ModelFile)); err != nil {
		return Manifest{}, fmt.Errorf("verifying model %s: %w", dir, err)
	}
	if err := checkTokenizer(filepath.Join(dir, TokenizerFile)); err != nil {
		return Manifest{}, fmt.Errorf("verifying model %s: %w", dir, err)
	}
	return m, nil
}

func reinstallHint(m Manifest) string {
	switch m.Source.Kind {
	case "npm":
		return "rerun scripts/setup"
	case "huggingface":
		return "rerun aem models pull " + m.Source.Repo
	}
	return "reinstall the model"
}

// Describe derives a manifest from the files of a model directory: model.onnx
// (inputs, outputs, embedding size), tokenizer.json (token cap from its
// truncation), 1_Pooling/config.json and modules.json when present. The model's
// identity is the sha256 of model.onnx (and of any external-data files beside it).
func Describe(ctx context.Context, dir string, src Source) (Manifest, error) {
	modelPath := filepath.Join(dir, ModelFile)
	sig, err := readSignature(modelPath)
	if err != nil {
		return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
	}
	tokPath := filepath.Join(dir, TokenizerFile)
	if err := checkTokenizer(tokPath); err != nil {
		return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
	}
	name := filepath.Base(filepath.Clean(dir))
	if src.Repo != "" {
		name = src.Repo
	}
	m := Manifest{
		Format:    ManifestFormat,
		Name:      name,
		Source:    src,
		Files:     map[string]string{},
		Tokenizer: TokenizerInfo{File: TokenizerFile, Kind: "huggingface"},
	}
	// Files that identify the model: weights, external data, tokenizer, configs.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && (n == ModelFile || n == TokenizerFile || n == ModulesFile || n == "config.json" ||
			strings.HasPrefix(n, ModelFile+"_data") || strings.HasPrefix(n, ModelFile+".data") || n == "model.onnx_data") {
			files = append(files, n)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(PoolingConfigFile))); err == nil {
		files = append(files, PoolingConfigFile)
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return Manifest{}, err
		}
		s, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
		}
		m.Files[f] = s
	}
	m.ID = name + "@sha256:" + m.Files[ModelFile]

	for _, in := range sig.Inputs {
		m.Inputs = append(m.Inputs, in.Name)
	}
	hasInput := func(n string) bool {
		for _, in := range m.Inputs {
			if in == n {
				return true
			}
		}
		return false
	}
	if !hasInput(InputIDs) || !hasInput(InputMask) {
		return Manifest{}, fmt.Errorf("describing model %s: model.onnx inputs are %s, want input_ids and attention_mask (and optionally token_type_ids): %w",
			dir, describeValues(sig.Inputs), ErrBadModel)
	}
	out, kind, err := pickOutput(sig.Outputs)
	if err != nil {
		return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
	}
	m.Output, m.OutputKind = out.Name, kind
	if d := out.Shape[len(out.Shape)-1]; d.Param == "" && d.Value > 0 {
		m.Dim = int(d.Value)
	}
	m.Pooling = "mean"
	if kind == "sentence_embedding" {
		m.Pooling = "none: pre-pooled"
	} else if p, err := readPooling(dir); err != nil {
		return Manifest{}, fmt.Errorf("describing model %s: %w", dir, err)
	} else if p != "" {
		m.Pooling = p
	}
	m.MaxTokens = tokenizerMaxLength(tokPath)
	m.Padding = "right; attention_mask 0 marks padding"
	return m, nil
}

// pickOutput chooses the embedding output: a pre-pooled [batch, dim] one
// (sentence_embedding, pooler-free exports) or token-level [batch, seq, dim]
// (last_hidden_state, token_embeddings).
func pickOutput(outs []onnxpb.ValueInfo) (onnxpb.ValueInfo, string, error) {
	for _, pref := range []string{"sentence_embedding", "last_hidden_state", "token_embeddings"} {
		for _, o := range outs {
			if o.Name == pref && !o.UnknownShape {
				switch {
				case len(o.Shape) == 2:
					return o, "sentence_embedding", nil
				case len(o.Shape) == 3:
					return o, "token_embeddings", nil
				}
			}
		}
	}
	for _, o := range outs {
		if o.ElemType == onnxpb.Float && !o.UnknownShape && (len(o.Shape) == 2 || len(o.Shape) == 3) {
			if len(o.Shape) == 2 {
				return o, "sentence_embedding", nil
			}
			return o, "token_embeddings", nil
		}
	}
	return onnxpb.ValueInfo{}, "", fmt.Errorf("model.onnx outputs are %s; want a float [batch, dim] sentence embedding or [batch, sequence, dim] token embeddings: %w",
		describeValues(outs), ErrBadModel)
}

func describeValues(vs []onnxpb.ValueInfo) string {
	if len(vs) == 0 {
		return "(none)"
	}
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = v.String()
	}
	return strings.Join(s, ", ")
}

// readPooling reads 1_Pooling/config.json: "mean", "cls", "max" or "" when absent.
func readPooling(dir string) (string, error) {
	path := filepath.Join(dir, filepath.FromSlash(PoolingConfigFile))
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var c struct {
		CLS     bool `json:"pooling_mode_cls_token"`
		Mean    bool `json:"pooling_mode_mean_tokens"`
		Max     bool `json:"pooling_mode_max_tokens"`
		SqrtLen bool `json:"pooling_mode_mean_sqrt_len_tokens"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return "", fmt.Errorf("parsing %s: %w: %w", path, ErrBadModel, err)
	}
	switch {
	case c.CLS:
		return "cls", nil
	case c.Max:
		return "max", nil
	case c.Mean:
		return "mean", nil
	case c.SqrtLen:
		return "", fmt.Errorf("%s: pooling_mode_mean_sqrt_len_tokens is not supported (mean, cls and max are): %w", path, ErrBadModel)
	}
	return "", fmt.Errorf("%s selects no pooling mode (want one of pooling_mode_mean_tokens, pooling_mode_cls_token, pooling_mode_max_tokens): %w", path, ErrBadModel)
}

// tokenizerMaxLength returns tokenizer.json's truncation.max_length, or 0.
func tokenizerMaxLength(path string) int {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	var t struct {
		Truncation *struct {
			MaxLength int `json:"max_length"`
		} `json:"truncation"`
	}
	if json.Unmarshal(raw, &t) != nil || t.Truncation == nil {
		return 0
	}
	return t.Truncation.MaxLength
}

func readSignature(path string) (*onnxpb.Signature, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s: %w", path, ErrMissingFile)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	sig, err := onnxpb.ReadSignature(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %w (the file is corrupt or not ONNX; reinstall the model)", path, ErrBadModel, err)
	}
	return sig, nil
}

func checkTokenizer(path string) error {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return fmt.Errorf("%s: %w", path, ErrMissingFile)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var t struct {
		Model *struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.Model == nil {
		if err == nil {
			err = fmt.Errorf("no \"model\" section")
		}
		return fmt.Errorf("%s: %w: not a Hugging Face tokenizer.json: %w (reinstall the model)", path, ErrBadModel, err)
	}
	return nil
}

// fileSHA256 is safefile.SHA256 with a missing file reported as
// ErrMissingFile.
func fileSHA256(path string) (string, error) {
	sum, err := safefile.SHA256(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: %w", path, ErrMissingFile)
	}
	return sum, err
}
