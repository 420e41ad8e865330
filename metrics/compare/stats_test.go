package compare

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func TestMcNemarExactHandValues(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{
		{10, 2, 0.038574219}, // 2·(1+12+66)/4096
		{2, 10, 0.038574219},
		{5, 5, 1},
		{0, 0, 1},
		{0, 5, 0.0625},       // 2/32
		{1, 7, 0.0703125},    // 2·9/256
		{0, 10, 0.001953125}, // 2/1024
		{3, 4, 1},
		{6, 1, 0.125}, // 2·8/128
		{1000, 1000, 1},
	}
	for _, tt := range tests {
		if got := McNemarExact(tt.b, tt.c); math.Abs(got-tt.want) > 1e-8 {
			t.Errorf("McNemarExact(%d, %d) = %.10f, want %.10f", tt.b, tt.c, got, tt.want)
		}
	}
}

// TestMcNemarMatchesBinomialCDF checks the log-space sum against gonum's
// binomial CDF (regularized incomplete beta), an independent computation.
func TestMcNemarMatchesBinomialCDF(t *testing.T) {
	for _, bc := range [][2]int{{17, 31}, {120, 95}, {400, 460}, {3, 40}, {2500, 2400}} {
		n := bc[0] + bc[1]
		want := math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(min(bc[0], bc[1]))))
		got := McNemarExact(bc[0], bc[1])
		if math.Abs(got-want) > 1e-9*math.Max(1, want) && math.Abs(got-want)/want > 1e-7 {
			t.Errorf("McNemarExact(%d, %d) = %g, gonum binomial gives %g", bc[0], bc[1], got, want)
		}
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03})
	want := []float64{0.03, 0.06, 0.06}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("Holm caps at 1: got %v", got)
	}
}

func TestChiSquareHandValue(t *testing.T) {
	a, b := []int{10, 20, 30}, []int{30, 20, 10}
	if got := chiSquare(a, b); math.Abs(got-20) > 1e-12 {
		t.Fatalf("chi-square = %v, want 20", got)
	}
	p, df, merged := asymptoticP([]string{"x", "y", "z"}, a, b)
	if df != 2 || len(merged) != 0 || math.Abs(p-math.Exp(-10)) > 1e-12 {
		t.Errorf("asymptoticP = %g df %d merged %v, want exp(-10) df 2 none", p, df, merged)
	}
	// Sparse columns merge into "other".
	p, df, merged = asymptoticP([]string{"a", "b", "c", "d"}, []int{20, 30, 3, 3}, []int{30, 20, 2, 4})
	if df != 2 || !slices.Equal(merged, []string{"c", "d"}) {
		t.Errorf("sparse merge: df %d merged %v, want 2 [c d]", df, merged)
	}
	if p <= 0 || p > 1 {
		t.Errorf("p = %v", p)
	}
}

// referenceBootstrap is a deliberately plain implementation: expand each
// resampled dialog into its turns and average.
func referenceBootstrap(dialogs [][][2]bool, alpha float64, b int, seed uint64, name string) (lo, hi float64) {
	rng := rand.New(rand.NewPCG(seed, streamSeed(name)))
	var diffs []float64
	for range b {
		var bs, cs []float64
		for range dialogs {
			for _, u := range dialogs[rng.IntN(len(dialogs))] {
				bs = append(bs, b2f(u[0]))
				cs = append(cs, b2f(u[1]))
			}
		}
		diffs = append(diffs, mean(cs)-mean(bs))
	}
	slices.Sort(diffs)
	q := func(p float64) float64 { // Hyndman–Fan type 4: linear interpolation of the empirical CDF
		h := p * float64(len(diffs))
		k := int(math.Floor(h))
		switch {
		case k < 1:
			return diffs[0]
		case k >= len(diffs):
			return diffs[len(diffs)-1]
		}
		return diffs[k-1] + (h-float64(k))*(diffs[k]-diffs[k-1])
	}
	return q(alpha / 2), q(1 - alpha/2)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func TestBootstrapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var cs []cluster
	var dialogs [][][2]bool
	for range 60 {
		n := 1 + rng.IntN(6)
		var c cluster
		var us [][2]bool
		for range n {
			u := [2]bool{rng.Float64() < 0.8, rng.Float64() < 0.7}
			us = append(us, u)
			c.n++
			c.base += int(b2f(u[0]))
			c.cand += int(b2f(u[1]))
		}
		cs = append(cs, c)
		dialogs = append(dialogs, us)
	}
	got, err := bootstrapDiff(context.Background(), cs, 0.05, 2000, 42, "overall:correctness")
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := referenceBootstrap(dialogs, 0.05, 2000, 42, "overall:correctness")
	if math.Abs(got.Lo-lo) > 1e-9 || math.Abs(got.Hi-hi) > 1e-9 {
		t.Errorf("bootstrap CI [%v, %v], reference [%v, %v]", got.Lo, got.Hi, lo, hi)
	}
	if got.Level != 0.95 {
		t.Errorf("level %v", got.Level)
	}
}

// TestBootstrapCoversTrueDifference: with many dialogs drawn with a known
// difference in pass probability, the CI brackets it and is narrow.
func TestBootstrapCoversTrueDifference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var cs []cluster
	for range 4000 {
		c := cluster{n: 3}
		for range 3 {
			if rng.Float64() < 0.80 {
				c.base++
			}
			if rng.Float64() < 0.75 {
				c.cand++
			}
		}
		cs = append(cs, c)
	}
	ci, err := bootstrapDiff(context.Background(), cs, 0.05, 1000, 1, "x")
	if err != nil {
		t.Fatal(err)
	}
	if !(ci.Lo < -0.05 && -0.05 < ci.Hi) || ci.Hi-ci.Lo > 0.04 {
		t.Errorf("CI [%v, %v] should bracket -0.05 and be narrower than 0.04", ci.Lo, ci.Hi)
	}
}

func TestBootstrapCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := bootstrapDiff(ctx, []cluster{{1, 1, 0}}, 0.05, 200, 1, "x"); err == nil {
		t.Fatal("want context error")
	}
}

func TestReasonShift(t *testing.T) {
	ctx := context.Background()
	// Base fails mostly on values; candidate mostly on tool_mismatch.
	var d, b, c []string
	for i := range 400 {
		d = append(d, fmt.Sprintf("d%03d", i/2)) // two turns per dialog
		switch {
		case i < 60:
			b = append(b, "inconsistent_parameter_values")
		case i < 70:
			b = append(b, "tool_mismatch")
		default:
			b = append(b, "")
		}
		switch {
		case i < 15:
			c = append(c, "inconsistent_parameter_values")
		case i >= 100 && i < 160:
			c = append(c, "tool_mismatch")
		default:
			c = append(c, "")
		}
	}
	st, err := reasonShift(ctx, d, b, c, 0.05, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Testable || !st.Significant || st.PPermutation > 0.001 || st.PAsymptotic == nil || *st.PAsymptotic > 1e-6 {
		t.Errorf("shift not detected: %+v", st)
	}
	if !slices.Equal(st.Categories, []string{"inconsistent_parameter_values", "tool_mismatch"}) ||
		!slices.Equal(st.Base, []int{60, 10}) || !slices.Equal(st.Candidate, []int{15, 60}) {
		t.Errorf("table: %v %v %v", st.Categories, st.Base, st.Candidate)
	}
	// Same distribution: not significant; identical runs give p = 1.
	st, err = reasonShift(ctx, d, b, b, 0.05, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Significant || st.PPermutation != 1 || st.ChiSquare != 0 {
		t.Errorf("identical runs: %+v", st)
	}
	// One category only: not testable.
	st, err = reasonShift(ctx, []string{"x", "y"}, []string{"a", ""}, []string{"", "a"}, 0.05, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Testable || st.Significant || st.PPermutation != 1 {
		t.Errorf("single category: %+v", st)
	}
}
