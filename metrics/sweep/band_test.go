package sweep

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/stats"
)

// drawn is n scores in [lo, hi) with labels drawn from the model, decided
// at t.
func drawn(seed uint64, n int, lo, hi float64, model func(float64) float64, t float64) (*evaluation, []bool) {
	rng := rand.New(rand.NewPCG(seed, 5))
	e := &evaluation{held: make([]float64, n), predicted: make([]bool, n)}
	labels := make([]bool, n)
	for i := range n {
		s := lo + (hi-lo)*rng.Float64()
		e.held[i], e.predicted[i], labels[i] = s, s >= t, rng.Float64() < model(s)
	}
	return e, labels
}

// countIn recounts a band's samples and errors.
func countIn(e *evaluation, labels []bool, lo, hi float64) (in, errs, errsIn int) {
	for i, s := range e.held {
		ok := s >= lo && s <= hi
		if ok {
			in++
		}
		if e.predicted[i] != labels[i] {
			errs++
			if ok {
				errsIn++
			}
		}
	}
	return
}

// Labels drawn from P(pass | s) = 1 / (1 + exp(5.5 - 10 s)): P reaches 0.2
// at s = 0.4114 and 0.8 at s = 0.6886, so that is the band of a threshold
// between them; a threshold outside widens it to reach the threshold.
func TestUncertainBandOfAKnownModel(t *testing.T) {
	model := stats.Logistic{Intercept: -5.5, Slope: 10}
	for _, tc := range []struct {
		t, low, high float64
	}{{0.55, 0.4114, 0.6886}, {0.3, 0.3, 0.6886}, {0.8, 0.4114, 0.8}} {
		e, labels := drawn(1, 20000, 0, 1, model.P, tc.t)
		b, err := uncertainBand(e, labels, tc.t, false)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(b.Low-tc.low) > 0.015 || math.Abs(b.High-tc.high) > 0.015 || b.Threshold != tc.t || b.Samples != 20000 {
			t.Errorf("threshold %v: band %+v, want [%v, %v]", tc.t, b, tc.low, tc.high)
		}
		if in, errs, errsIn := countIn(e, labels, b.Low, b.High); b.InBand != in || b.Errors != errs || b.ErrorsInBand != errsIn {
			t.Errorf("threshold %v: counts %+v, want in band %d, errors %d, in band %d", tc.t, b, in, errs, errsIn)
		}
	}
	// On the probability scale: a calibrated probability (P(pass | p) = p)
	// has the band [0.2, 0.8].
	e, labels := drawn(2, 20000, 0.001, 0.999, func(p float64) float64 { return p }, 0.5)
	b, err := uncertainBand(e, labels, 0.5, true)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b.Low-0.2) > 0.02 || math.Abs(b.High-0.8) > 0.02 {
		t.Errorf("calibrated probabilities: band %+v, want about [0.2, 0.8]", b)
	}
}

func TestJudgeBandEdges(t *testing.T) {
	P, F := true, false
	for _, tc := range []struct {
		name     string
		scores   []float64
		labels   []bool
		t        float64
		low, hig float64 // want; NaN: only check it holds t and is narrow
		warning  string
	}{
		{"falling labels: the whole scale", []float64{0.1, 0.2, 0.8, 0.9}, []bool{P, P, F, F}, 0.5, -1, 1, "does not rise with the human labels"},
		{"one score: the whole scale", []float64{0.4, 0.4, 0.4}, []bool{P, F, P}, 0.4, -1, 1, "does not rise"},
		{"separable: narrow, empty", []float64{0.1, 0.2, 0.3, 0.7, 0.8, 0.9}, []bool{F, F, F, P, P, P}, 0.5, math.NaN(), math.NaN(), "no labelled comparison lies in the judge band of the similarity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := &evaluation{held: tc.scores, predicted: make([]bool, len(tc.scores)), points: []stats.Point{{Threshold: tc.t}}}
			for i, s := range tc.scores {
				e.predicted[i] = s >= tc.t
			}
			jb, warnings, err := judgeBand(e, nil, tc.labels)
			if err != nil {
				t.Fatal(err)
			}
			b := jb.Similarity
			if math.IsNaN(tc.low) {
				if b.Low > tc.t || b.High < tc.t || b.High-b.Low > 0.2 || b.InBand != 0 {
					t.Errorf("band %+v, want a narrow one around %v holding no sample", b, tc.t)
				}
			} else if b.Low != tc.low || b.High != tc.hig || b.InBand != len(tc.scores) {
				t.Errorf("band %+v, want [%v, %v] holding every sample", b, tc.low, tc.hig)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.warning) {
				t.Errorf("warnings %q, want one with %q", warnings, tc.warning)
			}
		})
	}
}

// On the synthetic data (pass ~ N(0.7, 0.1), fail ~ N(0.4, 0.1), even
// odds: a logistic model) P(pass) is 0.2 at 0.504 and 0.8 at 0.596. The
// fitted band is near that, holds the threshold and most of its held-out
// errors, and sits in summary.json's judge_band.
func TestCalibrateReportsTheJudgeBand(t *testing.T) {
	res, err := Calibrate(context.Background(), Input{Samples: synth(1, 300)}, quick())
	if err != nil {
		t.Fatal(err)
	}
	jb := res.JudgeBand
	if jb == nil || jb.Composite != nil || jb.ErrorRate != BandErrorRate {
		t.Fatalf("judge band %+v", jb)
	}
	b := jb.Similarity
	if math.Abs(b.Low-0.504) > 0.03 || math.Abs(b.High-0.596) > 0.03 || b.Threshold != res.Threshold.Value || b.Low > b.Threshold || b.High < b.Threshold {
		t.Errorf("band %+v, want about [0.504, 0.596] around the threshold %v", b, res.Threshold.Value)
	}
	if b.Samples != res.Labels.Binary || b.Errors != res.Confusion.FP+res.Confusion.FN || b.ErrorsInBand*2 < b.Errors || b.InBand*4 > b.Samples {
		t.Errorf("band counts %+v: want most errors in the band, at most a quarter of the samples (confusion %+v)", b, res.Confusion)
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "judge band") {
			t.Errorf("warning: %s", w)
		}
	}
	t.Logf("band [%.3f, %.3f]: %d of %d samples, %d of %d errors", b.Low, b.High, b.InBand, b.Samples, b.ErrorsInBand, b.Errors)
}

// With a fitted composite the band of its probability is measured too, on
// its held-out probabilities, around its threshold.
func TestCompositeJudgeBand(t *testing.T) {
	o := quick()
	o.Fit, o.Bootstrap = true, 0
	res, err := Calibrate(context.Background(), Input{Samples: numbered(1, 120)}, o)
	if err != nil {
		t.Fatal(err)
	}
	c := res.JudgeBand.Composite
	if c == nil || c.Threshold != res.Composite.Threshold || c.Low < 0 || c.High > 1 || c.Low > c.Threshold || c.High < c.Threshold || c.Samples != res.Labels.Binary {
		t.Fatalf("composite band %+v (composite threshold %v)", c, res.Composite.Threshold)
	}
	if c.Errors != res.Confusion.FP+res.Confusion.FN {
		t.Errorf("composite band errors %d, held-out confusion %+v", c.Errors, res.Confusion)
	}
	if s := res.JudgeBand.Similarity; s.Threshold != res.CosineOnly.Threshold.Value {
		t.Errorf("similarity band %+v, want it around the cosine's threshold %v", s, res.CosineOnly.Threshold.Value)
	}
	t.Logf("composite band %+v; similarity band %+v", c, res.JudgeBand.Similarity)
}
