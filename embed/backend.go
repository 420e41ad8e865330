package embed

import (
	"fmt"
	"slices"
	"strings"
)

// Graph input names the embedder knows how to feed.
const (
	inputIDs       = "input_ids"
	inputMask      = "attention_mask"
	inputTypeIDs   = "token_type_ids"
	elemInt64      = "int64"
	elemInt32      = "int32"
	elemFloat32    = "float32"
	dynamicDimSize = -1
)

// tensorInfo is one graph input or output as a backend reports it.
type tensorInfo struct {
	Name string
	Elem string  // "int64", "int32", "float32", or another type's name
	Dims []int64 // -1 for a dynamic (symbolic or unknown) dimension
}

func (t tensorInfo) String() string {
	d := make([]string, len(t.Dims))
	for i, v := range t.Dims {
		if v < 0 {
			d[i] = "?"
		} else {
			d[i] = fmt.Sprint(v)
		}
	}
	return fmt.Sprintf("%s %s[%s]", t.Name, t.Elem, strings.Join(d, ","))
}

func describe(ts []tensorInfo) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return "[" + strings.Join(s, "; ") + "]"
}

// batchInput is one padded batch: row-major [batch, seq] token ids, attention
// mask (1 for real tokens, 0 for padding) and token type ids.
type batchInput struct {
	batch, seq int
	ids        []int64
	mask       []int64
	types      []int64
}

// backend runs one loaded graph. Calls come from the embedder's single
// batching goroutine, so implementations need not be safe for concurrent use.
type backend interface {
	// ioPlan is what the backend feeds and reads, fixed at load time.
	ioPlan() ioPlan
	// run feeds the batch and returns the chosen output, flat, with its shape.
	run(in *batchInput) (out []float32, dims []int64, err error)
	close() error
}

// ioPlan is what the embedder feeds and reads, decided from the graph's
// declared inputs and outputs.
type ioPlan struct {
	inputs     []tensorInfo // in graph order
	output     tensorInfo
	tokenLevel bool // output is [batch, seq, dim] and needs pooling
}

// planIO checks a graph's inputs and outputs against what a text-embedding
// model must look like and picks the output to read. It refuses anything else
// with the graph's actual input and output names and shapes.
func planIO(ins, outs []tensorInfo, info *ModelInfo) (ioPlan, error) {
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s: %s; the model's inputs are %s and its outputs %s; aem needs int64 or int32 inputs named %s (plus optionally %s and %s) shaped [batch, seq], and a float32 output shaped [batch, dim] (pre-pooled) or [batch, seq, dim] (token-level)",
			ErrModelUnsupported, info.WeightsPath, why, describe(ins), describe(outs), inputIDs, inputMask, inputTypeIDs)
	}
	var p ioPlan
	hasIDs := false
	for _, in := range ins {
		switch in.Name {
		case inputIDs:
			hasIDs = true
		case inputMask, inputTypeIDs:
		default:
			return p, refuse(fmt.Sprintf("unknown input %q", in.Name))
		}
		if in.Elem != elemInt64 && in.Elem != elemInt32 {
			return p, refuse(fmt.Sprintf("input %q is %s, not int64 or int32", in.Name, in.Elem))
		}
		if len(in.Dims) != 2 {
			return p, refuse(fmt.Sprintf("input %q has rank %d, not 2", in.Name, len(in.Dims)))
		}
	}
	if !hasIDs {
		return p, refuse("no " + inputIDs + " input")
	}
	p.inputs = ins

	pick := -1
	switch {
	case info.Output != "":
		pick = slices.IndexFunc(outs, func(t tensorInfo) bool { return t.Name == info.Output })
		if pick < 0 {
			return p, refuse(fmt.Sprintf("no output named %q (from %s)", info.Output, ManifestFile))
		}
	case len(outs) == 1:
		pick = 0
	default:
		// A pooling config means "pool the token embeddings"; otherwise a
		// sentence-level output is taken as is.
		order := []string{"sentence_embedding", "embeddings", "last_hidden_state", "token_embeddings"}
		if info.Pooling != "" && info.Pooling != PoolingNone {
			order = []string{"last_hidden_state", "token_embeddings", "sentence_embedding", "embeddings"}
		}
		for _, name := range order {
			if i := slices.IndexFunc(outs, func(t tensorInfo) bool { return t.Name == name }); i >= 0 {
				pick = i
				break
			}
		}
		if pick < 0 {
			return p, refuse("several outputs and none is named sentence_embedding, last_hidden_state or token_embeddings (name one in " + ManifestFile + ")")
		}
	}
	out := outs[pick]
	if out.Elem != elemFloat32 {
		return p, refuse(fmt.Sprintf("output %q is %s, not float32", out.Name, out.Elem))
	}
	switch len(out.Dims) {
	case 2:
		if info.Pooling != "" && info.Pooling != PoolingNone && info.Output != "" {
			return p, refuse(fmt.Sprintf("output %q is already pooled ([batch, dim]) but pooling %q is configured", out.Name, info.Pooling))
		}
	case 3:
		p.tokenLevel = true
		if info.Pooling == PoolingNone {
			return p, refuse(fmt.Sprintf("output %q is token-level ([batch, seq, dim]) but %s says pooling none", out.Name, ManifestFile))
		}
	default:
		return p, refuse(fmt.Sprintf("output %q has rank %d; want 2 ([batch, dim]) or 3 ([batch, seq, dim])", out.Name, len(out.Dims)))
	}
	if d := out.Dims[len(out.Dims)-1]; d > 0 && info.Dim > 0 && int(d) != info.Dim {
		return p, refuse(fmt.Sprintf("output %q has width %d but the model's config says %d", out.Name, d, info.Dim))
	}
	p.output = out
	return p, nil
}

// feeds returns, for each planned input in graph order, the flat data to feed.
func (p ioPlan) feeds(in *batchInput) [][]int64 {
	f := make([][]int64, len(p.inputs))
	for i, t := range p.inputs {
		switch t.Name {
		case inputIDs:
			f[i] = in.ids
		case inputMask:
			f[i] = in.mask
		case inputTypeIDs:
			f[i] = in.types
		}
	}
	return f
}

func toInt32(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}
