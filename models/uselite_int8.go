package models

import (
	"math"

	"github.com/aem-dev/aem/models/onnxpb"
)

// int8WeightMax is the largest magnitude of a quantized weight: 7 bits
// (-63..63). With uint8 activations a pair of products stays within int16
// (2*255*63 < 32767), so the u8*s8 kernels of x86 CPUs without VNNI
// (VPMADDUBSW, which saturates at int16) compute exact integer sums, as VNNI
// and ARM kernels do: the quantized layers lose nothing to the CPU they run
// on (with 8-bit weights, AVX2-only machines would clip sums this machine
// does not).
const int8WeightMax = 63

// actRange is the fixed range of a quantized activation, calibrated on the
// float32 model (useLiteInt8Ranges). Values outside it are clipped to it.
type actRange struct {
	Min, Max float32
}

// scaleZero returns the uint8 quantization of the range, x ≈ (q - zero) *
// scale, with 0 exactly representable.
func (r actRange) scaleZero() (scale float32, zero uint8) {
	lo, hi := min(r.Min, 0), max(r.Max, 0)
	scale = (hi - lo) / 255
	if scale == 0 {
		return 1, 0
	}
	z := math.RoundToEven(float64(-lo / scale))
	return scale, uint8(min(max(z, 0), 255))
}

// useLiteInt8Ranges are the calibrated ranges of the inputs of the int8
// model's quantized layers, by tensor name: the minimum and maximum of each
// over every real token when the float32 model embeds the 1,990 strings of
// testdata/int8-calibration.json (the distinct values and replies of `aem gen
// --dialogs 300 --seed 1`: agent replies, names, dates, amounts, codes),
// rounded outward to four significant digits. Fixed ranges keep a string's
// vector independent of its batch; ranges computed from each batch
// (DynamicQuantizeLinear) would not. The STS-B and reference sentences the
// parity tests use are not among them. TestInt8Calibration recomputes them.
func useLiteInt8Ranges() map[string]actRange {
	return map[string]actRange{
		"embed/out":             {-2.668, 2.215},
		"layer0/ln_attn/out":    {-2.540, 2.079},
		"layer0/context_merged": {-4.239, 4.230},
		"layer0/ln_ffn/out":     {-3.571, 3.547},
		"layer0/ffn/relu":       {0, 9.834},
		"layer1/ln_attn/out":    {-2.716, 2.420},
		"layer1/context_merged": {-5.127, 5.043},
		"layer1/ln_ffn/out":     {-9.692, 8.885},
		"layer1/ffn/relu":       {0, 30.67},
	}
}

// int8Plan says how the int8 graph quantizes. A dense layer whose input
// has a range in ranges is quantized; the others (the sentence-level tanh
// head) stay float32.
type int8Plan struct {
	ranges map[string]actRange
	// probe, in calibration builds, is where the names of the inputs of the
	// layers that would be quantized are collected, in graph order; the
	// graph stays float32 and outputs them too.
	probe *[]string
	// done maps an activation already quantized to its dequantized value
	// (one QuantizeLinear/DequantizeLinear pair per tensor, shared by the
	// layers reading it); in calibration builds it marks probed tensors.
	done map[string]string
}

func newInt8Plan() *int8Plan {
	return &int8Plan{ranges: useLiteInt8Ranges(), done: map[string]string{}}
}

// newProbePlan returns a plan for a calibration build, collecting into names.
func newProbePlan(names *[]string) *int8Plan {
	return &int8Plan{ranges: useLiteInt8Ranges(), probe: names, done: map[string]string{}}
}

// quantizeColumns quantizes a row-major [rows, cols] matrix symmetrically per
// column to ±int8WeightMax: w ≈ q * scale[col]. A column of zeros gets scale 1.
func quantizeColumns(w []float32, rows, cols int) (q []int8, scale []float32) {
	q = make([]int8, len(w))
	scale = make([]float32, cols)
	for c := 0; c < cols; c++ {
		var amax float32
		for r := 0; r < rows; r++ {
			amax = max(amax, float32(math.Abs(float64(w[r*cols+c]))))
		}
		s := amax / int8WeightMax
		if s == 0 {
			s = 1
		}
		scale[c] = s
		for r := 0; r < rows; r++ {
			v := math.RoundToEven(float64(w[r*cols+c] / s))
			q[r*cols+c] = int8(min(max(v, -int8WeightMax), int8WeightMax))
		}
	}
	return q, scale
}

// tokenDense is dense for the per-token layers: in the int8 graph, and when
// x has a calibrated range, a quantized layer (qdqDense).
func (b *graphBuilder) tokenDense(p, x string, w []float32, in, out int64, bias []float32) string {
	if q := b.quant; q != nil {
		r, ok := q.ranges[x]
		if !ok {
			b.fail("int8 graph: no calibrated range for %s, the input of %s (recalibrate: see TestInt8Calibration)", x, p)
		}
		if q.probe == nil {
			return b.qdqDense(p, x, r, w, in, out, bias)
		}
		if _, seen := q.done[x]; !seen {
			q.done[x] = x
			*q.probe = append(*q.probe, x)
		}
	}
	return b.dense(p, x, w, in, out, bias)
}

// qdqDense is dense in the int8 graph, in the QDQ form: x quantized to uint8
// with its fixed range and dequantized (QuantizeLinear, DequantizeLinear),
// the kernel stored as int8 with per-column scales and dequantized
// (DequantizeLinear), then MatMul and the float32 bias. ONNX Runtime fuses
// each such group into one integer product (MatMulIntegerToFloat: uint8
// activations times int8 weights, int32 sums, scaled to float32); a runtime
// without int8 kernels (onnx-gomlx, the go backend) computes the same
// values in float32.
func (b *graphBuilder) qdqDense(p, x string, r actRange, w []float32, in, out int64, bias []float32) string {
	xd, ok := b.quant.done[x]
	if !ok {
		s, z := r.scaleZero()
		sc := b.constF(x+"/act_scale", nil, s)
		zp := b.constU8(x+"/act_zero", z)
		xq := b.op("QuantizeLinear", x+"/quantized", []string{x, sc, zp})
		xd = b.op("DequantizeLinear", x+"/dequantized", []string{xq, sc, zp})
		b.quant.done[x] = xd
	}
	q, ws := quantizeColumns(w, int(in), int(out))
	b.g.Initializers = append(b.g.Initializers, onnxpb.Int8Tensor(p+"/kernel_int8", []int64{in, out}, q))
	wd := b.op("DequantizeLinear", p+"/kernel", []string{p + "/kernel_int8", b.init(p+"/kernel_scale", []int64{out}, ws)}, onnxpb.AttrI("axis", 1))
	bn := b.init(p+"/bias", []int64{out}, bias)
	mm := b.op("MatMul", p+"/matmul", []string{xd, wd})
	return b.op("Add", p+"/out", []string{mm, bn})
}

// constU8 returns a uint8 scalar Constant node.
func (b *graphBuilder) constU8(name string, v uint8) string {
	b.g.Nodes = append(b.g.Nodes, onnxpb.Constant(name, onnxpb.Uint8Tensor("", nil, []uint8{v})))
	return name
}
