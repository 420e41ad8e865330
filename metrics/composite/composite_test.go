package composite

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/aem-dev/aem/metrics/features"
)

// synthetic draws n rows whose label follows a known logistic model on the
// cosine (feature 0) and the number mismatch (feature 5); the other
// features are noise.
func synthetic(n int, seed uint64) ([]features.Vector, []bool) {
	r := rand.New(rand.NewPCG(seed, 7))
	x := make([]features.Vector, n)
	y := make([]bool, n)
	for i := range x {
		for j := range x[i] {
			x[i][j] = r.Float64()
		}
		x[i][5] = float64(r.IntN(2))
		logit := -2 + 6*x[i][0] - 3*x[i][5]
		y[i] = r.Float64() < sigmoid(logit)
	}
	return x, y
}

func TestFitRecoversAKnownModel(t *testing.T) {
	x, y := synthetic(20000, 1)
	m, err := Fit(x, y, FitOptions{L2: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	// Raw-scale coefficients are Coefficients / Scale; the raw intercept
	// subtracts every coefficient times its mean.
	raw := make([]float64, len(m.Coefficients))
	b0 := m.Intercept
	for j := range raw {
		raw[j] = m.Coefficients[j] / m.Scale[j]
		b0 -= raw[j] * m.Mean[j]
	}
	want := map[int]float64{0: 6, 5: -3}
	for j, c := range raw {
		w := want[j]
		if math.Abs(c-w) > 0.35 {
			t.Errorf("%s: raw coefficient %.3f, want %.1f", m.Features[j], c, w)
		}
	}
	if math.Abs(b0-(-2)) > 0.35 {
		t.Errorf("raw intercept %.3f, want -2", b0)
	}
}

// TestFitIsTheOptimum checks the first-order condition of the penalised
// likelihood at the returned coefficients: Zᵀ(p - y) + λβ = 0 (no penalty on
// the intercept).
func TestFitIsTheOptimum(t *testing.T) {
	x, y := synthetic(300, 2)
	for _, lambda := range []float64{0.01, 1, 50} {
		m, err := Fit(x, y, FitOptions{L2: lambda})
		if err != nil {
			t.Fatal(err)
		}
		grad := make([]float64, len(m.Coefficients)+1)
		for r, v := range x {
			p := m.Probability(v)
			if y[r] {
				p--
			}
			grad[0] += p
			for j := range m.Coefficients {
				grad[j+1] += p * (v[j] - m.Mean[j]) / m.Scale[j]
			}
		}
		for j, c := range m.Coefficients {
			grad[j+1] += lambda * c
		}
		for j, g := range grad {
			if math.Abs(g) > 1e-6 {
				t.Errorf("λ=%v: gradient %d = %g, want 0", lambda, j, g)
			}
		}
	}
}

func TestFitSeparableStaysFinite(t *testing.T) {
	x := make([]features.Vector, 40)
	y := make([]bool, 40)
	for i := range x {
		x[i][0] = float64(i) / 40
		y[i] = i >= 20 // the cosine separates perfectly
	}
	m, err := Fit(x, y, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Probability(x[39]) < 0.9 || m.Probability(x[0]) > 0.1 {
		t.Errorf("separable data: p(top) %.3f, p(bottom) %.3f", m.Probability(x[39]), m.Probability(x[0]))
	}
	if m.L2 != DefaultL2 {
		t.Errorf("L2 = %v, want the default %v", m.L2, DefaultL2)
	}
	for j, f := range m.Features {
		if j > 0 && m.Coefficients[j] != 0 {
			t.Errorf("constant feature %s has coefficient %v", f, m.Coefficients[j])
		}
	}
}

func TestFitDeterministic(t *testing.T) {
	x, y := synthetic(500, 3)
	a, _ := Fit(x, y, FitOptions{})
	b, _ := Fit(x, y, FitOptions{})
	if !reflect.DeepEqual(a, b) {
		t.Error("two fits of the same data differ")
	}
}

func TestFitRefuses(t *testing.T) {
	x, y := synthetic(10, 4)
	nan := append([]features.Vector(nil), x...)
	nan[3][2] = math.NaN()
	cases := []struct {
		name string
		x    []features.Vector
		y    []bool
		opts FitOptions
		want string
	}{
		{"lengths", x, y[:9], FitOptions{}, "10 rows but 9 labels"},
		{"one class", x, make([]bool, 10), FitOptions{}, "need both classes"},
		{"no rows", nil, nil, FitOptions{}, "need both classes"},
		{"NaN feature", nan, y, FitOptions{}, "row 3: feature char_overlap is NaN"},
		{"negative penalty", x, y, FitOptions{L2: -1}, "L2 penalty -1"},
	}
	for _, tc := range cases {
		_, err := Fit(tc.x, tc.y, tc.opts)
		if !errors.Is(err, ErrFit) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrFit saying %q", tc.name, err, tc.want)
		}
	}
}

func TestProbabilityHandComputed(t *testing.T) {
	m := &Model{Features: []string{features.NumberMismatch, features.Cosine}, Mean: []float64{0, 0.5}, Scale: []float64{1, 0.25},
		Coefficients: []float64{-2, 1}, Intercept: 0.5, Threshold: 0.5}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	var v features.Vector
	v[0], v[5] = 0.75, 1 // cosine z = 1, number mismatch 1: logit 0.5 - 2 + 1 = -0.5
	if got, want := m.Probability(v), 1/(1+math.Exp(0.5)); math.Abs(got-want) > 1e-15 {
		t.Errorf("Probability = %v, want %v", got, want)
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Model {
		return &Model{Features: []string{"cosine", "order"}, Mean: []float64{0, 0}, Scale: []float64{1, 1}, Coefficients: []float64{1, 1}, Threshold: 0.4}
	}
	cases := []struct {
		name string
		edit func(*Model)
		want string
	}{
		{"valid", func(*Model) {}, ""},
		{"no features", func(m *Model) { *m = Model{} }, "no features"},
		{"lengths", func(m *Model) { m.Scale = m.Scale[:1] }, "2 features but 2 means, 1 scales"},
		{"unknown feature", func(m *Model) { m.Features[1] = "sentiment" }, `unknown feature "sentiment"`},
		{"duplicate", func(m *Model) { m.Features[1] = "cosine" }, `"cosine" listed twice`},
		{"zero scale", func(m *Model) { m.Scale[0] = 0 }, "positive scale"},
		{"NaN coefficient", func(m *Model) { m.Coefficients[1] = math.NaN() }, "finite numbers"},
		{"infinite intercept", func(m *Model) { m.Intercept = math.Inf(1) }, "intercept"},
		{"threshold above 1", func(m *Model) { m.Threshold = 1.5 }, "threshold 1.5"},
		{"threshold 0 is valid", func(m *Model) { m.Threshold = 0 }, ""},
	}
	for _, tc := range cases {
		m := ok()
		tc.edit(m)
		err := m.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, ErrModel) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err = %v, want ErrModel saying %q", tc.name, err, tc.want)
		}
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	x, y := synthetic(200, 5)
	m, err := Fit(x, y, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Threshold = 0.42
	m.EmbeddingModel = EmbeddingModel{ID: "embed:use-lite@sha256:ab", SHA256: "ab"}
	m.HeldOut = &HeldOut{Samples: 200, Positive: 90, Negative: 110, Folds: 5, Figures: Figures{Accuracy: 0.8, F1: 0.7, MCC: 0.5, ROCAUC: 0.9},
		CosineOnly: Figures{Accuracy: 0.7}}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, &back) {
		t.Errorf("round trip changed the model:\n%s\n%+v", b, back)
	}
	for _, key := range []string{`"features":`, `"coefficients":`, `"intercept":`, `"mean":`, `"scale":`, `"threshold":0.42`, `"embedding_model":{"id":`, `"held_out":{"samples":200`, `"cosine_only":{"accuracy":0.7`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}
