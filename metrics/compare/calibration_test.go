package compare

import (
	"context"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/aem-dev/aem/metrics"
)

var calibrate = flag.Bool("calibrate", false, "run the pure-noise calibration simulation (about 20 s)")

// turnFlipP is the shift test with single turns swapped instead of whole
// dialogs: the design reasonShift does not use, kept to show why.
func turnFlipP(rb, rc []string, cats []string, perms int, seed uint64) float64 {
	col := map[string]int{}
	for i, c := range cats {
		col[c] = i
	}
	a, b := make([]int, len(cats)), make([]int, len(cats))
	for i := range rb {
		if rb[i] != "" {
			a[col[rb[i]]]++
		}
		if rc[i] != "" {
			b[col[rc[i]]]++
		}
	}
	obs := chiSquare(a, b)
	rng := rand.New(rand.NewPCG(seed, 5))
	ex := 0
	for range perms {
		pa, pb := make([]int, len(cats)), make([]int, len(cats))
		for i := range rb {
			x, y := rb[i], rc[i]
			if rng.IntN(2) == 1 {
				x, y = y, x
			}
			if x != "" {
				pa[col[x]]++
			}
			if y != "" {
				pb[col[y]]++
			}
		}
		if chiSquare(pa, pb) >= obs-1e-9 {
			ex++
		}
	}
	return float64(1+ex) / float64(1+perms)
}

// TestNoiseCalibration simulates 1000 pairs of pure-noise runs (150
// dialogs of 5 turns; each dialog fails at turn 2 with three cascades with
// probability 0.2, otherwise each turn fails on its own with probability
// 0.05) and checks the false-alarm rates at alpha 0.05 that the package
// documentation quotes. Run with:
//
//	go test ./metrics/compare -run NoiseCalibration -v -args -calibrate
func TestNoiseCalibration(t *testing.T) {
	if !*calibrate {
		t.Skip("pass -calibrate to run the noise calibration simulation")
	}
	o := DefaultOptions()
	o.Bootstrap = 400
	o.Permutations = 400
	sims := 1000
	gates, mcn, shift, tshift := 0, 0, 0, 0
	for s := range sims {
		rng := rand.New(rand.NewPCG(uint64(s)*7919+13, 4242))
		mk := func(name string) Run {
			failD := map[int]bool{}
			valD := map[[2]int]bool{}
			for d := range 150 {
				if rng.Float64() < 0.2 {
					failD[d] = true
				}
				for tn := 1; tn <= 5; tn++ {
					if rng.Float64() < 0.05 {
						valD[[2]int{d, tn}] = true
					}
				}
			}
			return build(name, 150, func(d int, t TurnVerdict) TurnVerdict {
				if failD[d] {
					return cascadeFrom2(t, metrics.ReasonToolMismatch)
				}
				if valD[[2]int{d, t.TurnNo}] {
					if t.Kind == metrics.KindAction {
						return fail(t, metrics.ReasonInconsistentValues, 0)
					}
					return fail(t, metrics.ReasonInconsistentResponse, 0)
				}
				return t
			})
		}
		a, b := mk("a"), mk("b")
		c, err := Compare(context.Background(), a, b, o)
		if err != nil {
			t.Fatal(err)
		}
		if c.Gate.Failed {
			gates++
		}
		if c.Overall.P < 0.05 {
			mcn++
		}
		if c.ReasonShift.Significant {
			shift++
		}
		rb := make([]string, len(c.Pairs))
		rc := make([]string, len(c.Pairs))
		for i, p := range c.Pairs {
			rb[i], rc[i] = reasonOf(p.Base), reasonOf(p.Candidate)
		}
		if turnFlipP(rb, rc, c.ReasonShift.Categories, 400, uint64(s)) < 0.05 {
			tshift++
		}
	}
	f := func(n int) float64 { return float64(n) / float64(sims) }
	t.Logf("sims %d: gate %.3f, raw overall McNemar %.3f, shift (dialog flips) %.3f, shift (turn flips) %.3f", sims, f(gates), f(mcn), f(shift), f(tshift))
	// 3 standard errors of a rate of 0.05 over 1000 simulations: 0.021.
	if f(gates) > 0.071 {
		t.Errorf("gate false-alarm rate %.3f exceeds alpha", f(gates))
	}
	if f(shift) > 0.071 || f(shift) < 0.029 {
		t.Errorf("shift test false-alarm rate %.3f is not at the nominal 0.05", f(shift))
	}
}
