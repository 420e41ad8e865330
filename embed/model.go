package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aem-dev/aem/internal/safefile"
)

// Pooling is how token-level model outputs become one vector per string.
type Pooling string

// Pooling modes. PoolingNone means the model's output is already one vector
// per string ([batch, dim]), as for the default USE-lite model.
const (
	PoolingNone Pooling = "none"
	PoolingMean Pooling = "mean"
	PoolingCLS  Pooling = "cls"
	PoolingMax  Pooling = "max"
	PoolingLast Pooling = "last"
)

// ManifestFile is the file that describes an aem-installed model (written by
// scripts/setup and `aem models convert`).
const ManifestFile = "aem-model.json"

// fallbackMaxTokens is the token cap when neither the manifest nor the
// sentence-transformers or tokenizer configs give one.
const fallbackMaxTokens = 512

// manifest is aem-model.json. Unknown fields are ignored.
type manifest struct {
	Name             string            `json:"name"`
	Model            string            `json:"model"`
	Tokenizer        json.RawMessage   `json:"tokenizer"` // "file" or {"file": ..., "kind": ...}
	MaxTokens        int               `json:"max_tokens"`
	Dim              int               `json:"dim"`
	Output           string            `json:"output"`
	Pooling          string            `json:"pooling"` // "none", "mean", ...; text after the first word is a comment
	AddSpecialTokens *bool             `json:"add_special_tokens"`
	SHA256           string            `json:"sha256"` // of the weights file
	Files            map[string]string `json:"files"`  // file name -> pinned sha256
}

// tokenizerRef decodes the manifest's "tokenizer" field.
func (m manifest) tokenizerRef() (file, kind string, err error) {
	if len(m.Tokenizer) == 0 || string(m.Tokenizer) == "null" {
		return "", "", nil
	}
	if err := json.Unmarshal(m.Tokenizer, &file); err == nil {
		return file, "", nil
	}
	var o struct {
		File string `json:"file"`
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(m.Tokenizer, &o); err != nil {
		return "", "", fmt.Errorf("field tokenizer: want a file name or {\"file\", \"kind\"}: %w", err)
	}
	return o.File, o.Kind, nil
}

// poolingWord reads the first word of the manifest's pooling field.
func poolingWord(s string) Pooling {
	s = strings.TrimSpace(strings.ToLower(s))
	if i := strings.IndexAny(s, ": ,;("); i >= 0 {
		s = s[:i]
	}
	return Pooling(s)
}

// ModelInfo describes the model an Embedder runs.
type ModelInfo struct {
	Name            string  // "use-lite", or the directory name of a sentence-transformers export
	Dir             string  // the model directory
	WeightsPath     string  // the .onnx file
	TokenizerPath   string  // tokenizer.json
	WeightsSHA256   string  // hex sha256 of the weights file: the model's identity
	TokenizerSHA256 string  // hex sha256 of tokenizer.json (part of cache keys)
	MaxTokens       int     // tokens per string after truncation
	Dim             int     // vector width
	Output          string  // graph output used
	Pooling         Pooling // pooling applied to token-level outputs ("none" for pre-pooled)
	Inputs          []string
	// TokenizerKind is "" for a Hugging Face tokenizer.json (sugarme/tokenizer)
	// or "use-lite" for the USE-lite reference tokenizer (models/usetok).
	TokenizerKind string
	// AddSpecialTokens is passed to the tokenizer's post-processor ([CLS]/[SEP] for BERT).
	AddSpecialTokens bool
}

// ID is "<name>@sha256:<weights sha256>".
func (m ModelInfo) ID() string { return m.Name + "@sha256:" + m.WeightsSHA256 }

// loadModelInfo reads a model directory (not the graph: the backend does that).
func loadModelInfo(dir, source string) (*ModelInfo, error) {
	fix := "run scripts/setup to install the default model, or pass --model DIR (or set " + EnvModel + ") to a sentence-transformers ONNX export"
	st, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: model directory %s (from %s) does not exist; %s", ErrModelMissing, dir, source, fix)
		}
		return nil, fmt.Errorf("%w: reading model directory %s: %w", ErrModelMissing, dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%w: %s (from %s) is not a directory; %s", ErrModelMissing, dir, source, fix)
	}
	info := &ModelInfo{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), AddSpecialTokens: true}
	if abs, err := filepath.Abs(dir); err == nil {
		info.Name = filepath.Base(abs)
	}

	var man manifest
	hasManifest := false
	if b, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
		if err := json.Unmarshal(b, &man); err != nil {
			return nil, fmt.Errorf("%w: parsing %s: %w; re-run scripts/setup to rewrite it", ErrModelInvalid, filepath.Join(dir, ManifestFile), err)
		}
		hasManifest = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrModelInvalid, filepath.Join(dir, ManifestFile), err)
	}

	// Weights.
	if hasManifest && man.Model != "" {
		info.WeightsPath = filepath.Join(dir, man.Model)
	} else {
		for _, c := range []string{"model.onnx", filepath.Join("onnx", "model.onnx")} {
			if _, err := os.Stat(filepath.Join(dir, c)); err == nil {
				info.WeightsPath = filepath.Join(dir, c)
				break
			}
		}
	}
	if info.WeightsPath == "" {
		return nil, fmt.Errorf("%w: no model.onnx (or onnx/model.onnx) in %s; %s", ErrModelMissing, dir, fix)
	}
	sum, err := safefile.SHA256(info.WeightsPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: weights file %s does not exist; %s", ErrModelMissing, info.WeightsPath, fix)
		}
		return nil, fmt.Errorf("%w: reading %s: %w", ErrModelInvalid, info.WeightsPath, err)
	}
	info.WeightsSHA256 = sum

	// Tokenizer.
	tokName := "tokenizer.json"
	if hasManifest {
		file, kind, err := man.tokenizerRef()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrModelInvalid, filepath.Join(dir, ManifestFile), err)
		}
		if file != "" {
			tokName = file
		}
		switch kind {
		case tokenizerHF, "hf", "huggingface", tokenizerUSE:
			info.TokenizerKind = kind
		default:
			return nil, fmt.Errorf("%w: %s: tokenizer kind %q is not supported (use %q or leave it out for a Hugging Face tokenizer.json)", ErrModelInvalid, filepath.Join(dir, ManifestFile), kind, tokenizerUSE)
		}
	}
	info.TokenizerPath = filepath.Join(dir, tokName)
	if _, err := os.Stat(info.TokenizerPath); err != nil && filepath.Dir(info.WeightsPath) != dir {
		// Some exports keep tokenizer.json beside onnx/model.onnx.
		alt := filepath.Join(filepath.Dir(info.WeightsPath), tokName)
		if _, err2 := os.Stat(alt); err2 == nil {
			info.TokenizerPath = alt
		}
	}
	tsum, err := safefile.SHA256(info.TokenizerPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist; a model directory needs its tokenizer.json; %s", ErrModelMissing, info.TokenizerPath, fix)
		}
		return nil, fmt.Errorf("%w: reading %s: %w", ErrTokenizer, info.TokenizerPath, err)
	}
	info.TokenizerSHA256 = tsum
	if hasManifest {
		pins := map[string]string{filepath.Base(info.WeightsPath): man.SHA256}
		for name, sum := range man.Files {
			if pins[name] == "" {
				pins[name] = sum
			}
		}
		for name, want := range pins {
			var got string
			switch name {
			case filepath.Base(info.WeightsPath):
				got = info.WeightsSHA256
			case filepath.Base(info.TokenizerPath):
				got = info.TokenizerSHA256
			default:
				continue
			}
			if want != "" && !strings.EqualFold(want, got) {
				return nil, fmt.Errorf("%w: %s has sha256 %s but %s pins %s (a partial download or a modified file); re-run scripts/setup",
					ErrModelInvalid, filepath.Join(dir, name), got, ManifestFile, want)
			}
		}
	}

	if hasManifest {
		if man.Name != "" {
			info.Name = man.Name
		}
		info.MaxTokens = man.MaxTokens
		info.Dim = man.Dim
		info.Output = man.Output
		info.Pooling = poolingWord(man.Pooling)
		if man.AddSpecialTokens != nil {
			info.AddSpecialTokens = *man.AddSpecialTokens
		}
		switch info.Pooling {
		case "", PoolingNone, PoolingMean, PoolingCLS, PoolingMax, PoolingLast:
		default:
			return nil, fmt.Errorf("%w: %s: pooling %q; use none, mean, cls, max or last", ErrModelInvalid, filepath.Join(dir, ManifestFile), info.Pooling)
		}
		return info, nil
	}

	// A sentence-transformers export.
	if err := readSentenceTransformers(dir, info); err != nil {
		return nil, err
	}
	return info, nil
}

// readSentenceTransformers reads modules.json, 1_Pooling/config.json and
// sentence_bert_config.json when present.
func readSentenceTransformers(dir string, info *ModelInfo) error {
	poolDir := "1_Pooling"
	if b, err := os.ReadFile(filepath.Join(dir, "modules.json")); err == nil {
		var mods []struct {
			Path string `json:"path"`
			Type string `json:"type"`
		}
		if err := json.Unmarshal(b, &mods); err != nil {
			return fmt.Errorf("%w: parsing %s: %w", ErrModelInvalid, filepath.Join(dir, "modules.json"), err)
		}
		for _, m := range mods {
			if strings.HasSuffix(m.Type, ".Pooling") && m.Path != "" {
				poolDir = m.Path
			}
		}
	}
	poolPath := filepath.Join(dir, poolDir, "config.json")
	if b, err := os.ReadFile(poolPath); err == nil {
		p, err := parsePoolingConfig(b)
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrModelUnsupported, poolPath, err)
		}
		info.Pooling = p
		var dim struct {
			D int `json:"word_embedding_dimension"`
		}
		_ = json.Unmarshal(b, &dim)
		info.Dim = dim.D
	}
	if b, err := os.ReadFile(filepath.Join(dir, "sentence_bert_config.json")); err == nil {
		var c struct {
			Max int `json:"max_seq_length"`
		}
		if json.Unmarshal(b, &c) == nil && c.Max > 0 {
			info.MaxTokens = c.Max
		}
	}
	if info.MaxTokens == 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "config.json")); err == nil {
			var c struct {
				Max int `json:"max_position_embeddings"`
			}
			if json.Unmarshal(b, &c) == nil && c.Max > 0 {
				info.MaxTokens = min(c.Max, fallbackMaxTokens)
			}
		}
	}
	return nil
}

// parsePoolingConfig reads a sentence-transformers 1_Pooling/config.json.
// mean_sqrt_len is accepted as mean: it differs from mean by a per-string
// scale, which L2 normalisation removes.
func parsePoolingConfig(b []byte) (Pooling, error) {
	var c map[string]any
	if err := json.Unmarshal(b, &c); err != nil {
		return "", err
	}
	on := func(k string) bool { v, _ := c[k].(bool); return v }
	var modes []Pooling
	if on("pooling_mode_cls_token") {
		modes = append(modes, PoolingCLS)
	}
	if on("pooling_mode_mean_tokens") || on("pooling_mode_mean_sqrt_len_tokens") {
		modes = append(modes, PoolingMean)
	}
	if on("pooling_mode_max_tokens") {
		modes = append(modes, PoolingMax)
	}
	if on("pooling_mode_lasttoken") {
		modes = append(modes, PoolingLast)
	}
	if on("pooling_mode_weightedmean_tokens") {
		return "", errors.New("weighted-mean pooling is not supported; use a model with mean, cls, max or lasttoken pooling")
	}
	if s, ok := c["pooling_mode"].(string); ok && len(modes) == 0 {
		switch s {
		case "mean", "mean_sqrt_len_tokens":
			modes = append(modes, PoolingMean)
		case "cls":
			modes = append(modes, PoolingCLS)
		case "max":
			modes = append(modes, PoolingMax)
		case "lasttoken":
			modes = append(modes, PoolingLast)
		default:
			return "", fmt.Errorf("pooling_mode %q is not supported; use mean, cls, max or lasttoken", s)
		}
	}
	switch len(modes) {
	case 0:
		return "", errors.New("no pooling mode is enabled")
	case 1:
		return modes[0], nil
	}
	return "", fmt.Errorf("%d pooling modes are enabled together (%v); concatenated pooling is not supported", len(modes), modes)
}
