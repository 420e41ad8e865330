package compare

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestZZShiftNull(t *testing.T) {
	ctx := context.Background()
	sims := 400
	var ps []float64
	for s := range sims {
		rng := rand.New(rand.NewPCG(uint64(s), 99))
		var ds, b, c []string
		gen := func() []string {
			out := make([]string, 5)
			if rng.Float64() < 0.2 {
				out[1] = "tool"
				out[2], out[3], out[4] = "prior", "prior", "prior"
				return out
			}
			for i := range out {
				if rng.Float64() < 0.05 {
					out[i] = "val"
					if i == 2 || i == 4 {
						out[i] = "resp"
					}
				}
			}
			return out
		}
		for d := range 150 {
			x, y := gen(), gen()
			for i := range 5 {
				ds = append(ds, fmt.Sprint(d))
				b = append(b, x[i])
				c = append(c, y[i])
			}
		}
		st, err := reasonShift(ctx, ds, b, c, 0.05, 400, seedArg(s))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, st.PPermutation)
	}
	for _, q := range []float64{0.01, 0.05, 0.1, 0.25, 0.5} {
		n := 0
		for _, p := range ps {
			if p < q {
				n++
			}
		}
		t.Logf("P(p < %.2f) = %.3f", q, float64(n)/float64(len(ps)))
	}
}

var fixedSeed = true

func seedArg(s int) uint64 {
	if fixedSeed {
		return 1
	}
	return uint64(s)
}
