package embed

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
)

// TestInt8Model: the int8 model through the Embedder, on both backends:
// within cosine 0.99 of the float32 model on every reference sentence
// (ORT), and the go backend (which runs its int8 layers in float32)
// within 0.999 of ORT's integer kernels (under -race on goReferenceSubset;
// scripts/test --long's second pass checks them all).
func TestInt8Model(t *testing.T) {
	refs := referenceVectors(t)
	var texts, goTexts []string
	for _, r := range refs {
		texts = append(texts, r.Text)
	}
	for _, r := range goReferenceSubset(refs) {
		if !raceEnabled || len(r.IDs) <= 16 { // under -race each long shape compiles for seconds
			goTexts = append(goTexts, r.Text)
		}
	}
	ctx := context.Background()
	int8Dir := useLiteDirFor(t, PrecisionInt8)
	fp32 := openTest(t, useLiteDirFor(t, PrecisionFP32), BackendORT, func(o *Options) { o.BatchSize = 16 })
	want, err := fp32.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	var ortVecs [][]float32
	backends := testBackends(t)
	slices.Reverse(backends) // ort (when installed) first: go is compared with it
	for _, be := range backends {
		e := openTest(t, int8Dir, be, func(o *Options) { o.BatchSize = 16 })
		if !strings.HasPrefix(e.ModelID(), ModelInt8+"@sha256:") || e.Dim() != 512 {
			t.Errorf("%s: ModelID %q, dim %d", be, e.ModelID(), e.Dim())
		}
		in := texts
		if be == BackendGo {
			in = goTexts
		}
		got, err := e.Embed(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if be == BackendORT {
			worst := 2.0
			for i := range texts {
				c := cosine(got[i], refs[i].Vector)
				if cf := cosine(got[i], want[i]); cf < c {
					c = cf
				}
				if c < 0.99 || math.IsNaN(c) {
					t.Errorf("ort: %q: cosine %.5f with fp32 or TF.js, want >= 0.99", texts[i], c)
				}
				worst = min(worst, c)
			}
			t.Logf("int8 on ort vs fp32 and TF.js: lowest cosine %.5f over %d sentences", worst, len(texts))
			ortVecs = got
			continue
		}
		if ortVecs == nil {
			continue
		}
		worst := 2.0
		for i, s := range in {
			j := slices.Index(texts, s)
			c := cosine(got[i], ortVecs[j])
			if c < 0.999 || math.IsNaN(c) {
				t.Errorf("go: %q: cosine %.6f with ort's int8 vector, want >= 0.999", s, c)
			}
			worst = min(worst, c)
		}
		t.Logf("int8 on go vs ort: lowest cosine %.6f over %d sentences", worst, len(in))
	}
}
