package compare

import (
	"context"
	"hash/fnv"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarExact returns the exact two-sided McNemar p-value for b and c
// discordant pairs: min(1, 2·P[X ≤ min(b,c)]) with X ~ Binomial(b+c, 1/2).
// It returns 1 when b+c = 0 (no discordant pair: no evidence of a change).
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	// Sum P[X = i] for i <= k in log space, relative to the largest term,
	// so large n neither underflows nor loses precision.
	logs := make([]float64, k+1)
	lnHalfN := float64(n) * math.Log(0.5)
	for i := 0; i <= k; i++ {
		logs[i] = lchoose(n, i) + lnHalfN
	}
	mx := logs[k] // terms increase up to n/2 >= k
	var s float64
	for _, l := range logs {
		s += math.Exp(l - mx)
	}
	p := 2 * math.Exp(mx+math.Log(s))
	return math.Min(1, p)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Holm returns Holm–Bonferroni adjusted p-values, in the order given.
func Holm(ps []float64) []float64 {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	out := make([]float64, len(ps))
	running := 0.0
	m := len(ps)
	for rank, i := range idx {
		adj := math.Min(1, float64(m-rank)*ps[i])
		running = math.Max(running, adj)
		out[i] = running
	}
	return out
}

// cluster is one dialog's contribution to a Stat: how many units it has
// and how many satisfy the indicator in each run.
type cluster struct {
	n, base, cand int
}

// streamSeed derives the second PCG seed word from a Stat's name, so each
// Stat has its own reproducible random stream.
func streamSeed(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// Interval is a confidence interval.
type Interval struct {
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
	Level float64 `json:"level"`
}

// bootstrapDiff returns the percentile bootstrap interval at level 1-alpha
// of (Σcand - Σbase) / Σn, resampling clusters (dialogs) with replacement
// B times from the PCG stream (seed, streamSeed(name)). Quantiles linearly
// interpolate the empirical CDF (gonum stat.LinInterp, Hyndman–Fan type 4).
func bootstrapDiff(ctx context.Context, cs []cluster, alpha float64, b int, seed uint64, name string) (Interval, error) {
	level := 1 - alpha
	if !slices.ContainsFunc(cs, func(c cluster) bool { return c.base != c.cand }) {
		// Every resample has a difference of exactly 0.
		return Interval{Lo: 0, Hi: 0, Level: level}, nil
	}
	rng := rand.New(rand.NewPCG(seed, streamSeed(name)))
	diffs := make([]float64, b)
	d := len(cs)
	for r := range b {
		if r%64 == 0 {
			if err := ctx.Err(); err != nil {
				return Interval{}, err
			}
		}
		var n, sb, sc int
		for range d {
			c := cs[rng.IntN(d)]
			n += c.n
			sb += c.base
			sc += c.cand
		}
		if n > 0 {
			diffs[r] = float64(sc-sb) / float64(n)
		}
	}
	slices.Sort(diffs)
	return Interval{
		Lo:    stat.Quantile(alpha/2, stat.LinInterp, diffs, nil),
		Hi:    stat.Quantile(1-alpha/2, stat.LinInterp, diffs, nil),
		Level: level,
	}, nil
}

// ShiftTest is the failure-reason distribution shift test (see the
// package documentation).
type ShiftTest struct {
	Method string `json:"method"`
	// Categories are the failure reasons present, sorted; Base and
	// Candidate count failed paired turns by primary reason.
	Categories []string `json:"categories"`
	Base       []int    `json:"base"`
	Candidate  []int    `json:"candidate"`
	ChiSquare  float64  `json:"chi_square"`
	// Testable is false when fewer than two reasons occur or a run has no
	// failure; the p-values are then 1.
	Testable bool `json:"testable"`
	// PPermutation is the paired sign-flip permutation p-value,
	// (1 + #{permuted statistic >= observed}) / (1 + Permutations).
	PPermutation float64 `json:"p_permutation"`
	Permutations int     `json:"permutations"`
	// PAsymptotic is the chi-square-distribution p-value after merging
	// sparse categories (MergedCategories) into "other", with DF degrees
	// of freedom; nil when fewer than two categories remain after merging
	// (the table is too sparse for the approximation).
	PAsymptotic      *float64 `json:"p_asymptotic,omitempty"`
	DF               int      `json:"df"`
	MergedCategories []string `json:"merged_categories,omitempty"`
	Significant      bool     `json:"significant"`
}

// chiSquare returns Pearson's chi-square statistic of homogeneity of a
// 2×K table, ignoring empty columns.
func chiSquare(a, b []int) float64 {
	var ta, tb int
	for i := range a {
		ta += a[i]
		tb += b[i]
	}
	if ta == 0 || tb == 0 {
		return 0
	}
	n := float64(ta + tb)
	var x float64
	for i := range a {
		col := float64(a[i] + b[i])
		if col == 0 {
			continue
		}
		ea := col * float64(ta) / n
		eb := col * float64(tb) / n
		x += (float64(a[i])-ea)*(float64(a[i])-ea)/ea + (float64(b[i])-eb)*(float64(b[i])-eb)/eb
	}
	return x
}

const passCategory = ""

// reasonShift runs the shift test on the paired turns' primary reasons
// (passCategory for a pass); dialogs[i] is the dialog of turn i, and the
// turns of one dialog are contiguous. The permutation swaps the base and
// candidate verdicts of whole dialogs, so turns that fail together (a root
// cause and its cascades) move together.
func reasonShift(ctx context.Context, dialogs, base, cand []string, alpha float64, perms int, seed uint64) (ShiftTest, error) {
	st := ShiftTest{
		Method:       "Pearson chi-square of homogeneity on failure counts by primary reason; p-value from a sign-flip permutation test swapping the two runs' verdicts of whole dialogs",
		Permutations: perms,
		PPermutation: 1,
	}
	set := map[string]bool{}
	for i := range base {
		for _, r := range []string{base[i], cand[i]} {
			if r != passCategory {
				set[r] = true
			}
		}
	}
	st.Categories = slices.Sorted(maps.Keys(set))
	col := map[string]int{}
	for i, c := range st.Categories {
		col[c] = i
	}
	k := len(st.Categories)
	st.Base = make([]int, k)
	st.Candidate = make([]int, k)
	// For each dialog whose counts differ between the runs, the sparse
	// change (candidate - base) a swap applies to the base row.
	type delta struct{ cat, d int }
	var flips [][]delta
	db, dc := make([]int, k), make([]int, k)
	flush := func() {
		var ds []delta
		for j := range k {
			if db[j] != dc[j] {
				ds = append(ds, delta{j, dc[j] - db[j]})
			}
			db[j], dc[j] = 0, 0
		}
		if ds != nil {
			flips = append(flips, ds)
		}
	}
	for i := range base {
		if i > 0 && dialogs[i] != dialogs[i-1] {
			flush()
		}
		if x := base[i]; x != passCategory {
			st.Base[col[x]]++
			db[col[x]]++
		}
		if y := cand[i]; y != passCategory {
			st.Candidate[col[y]]++
			dc[col[y]]++
		}
	}
	flush()
	st.ChiSquare = chiSquare(st.Base, st.Candidate)
	var tb, tc int
	for i := range k {
		tb += st.Base[i]
		tc += st.Candidate[i]
	}
	st.Testable = k >= 2 && tb > 0 && tc > 0
	if !st.Testable {
		return st, nil
	}
	if p, df, merged := asymptoticP(st.Categories, st.Base, st.Candidate); df > 0 {
		st.PAsymptotic, st.DF = &p, df
		st.MergedCategories = merged
	} else {
		st.MergedCategories = merged
	}
	rng := rand.New(rand.NewPCG(seed, streamSeed("failure_reason_shift")))
	pa := make([]int, k)
	pb := make([]int, k)
	exceed := 0
	tol := 1e-9 * math.Max(1, st.ChiSquare)
	for p := range perms {
		if p%256 == 0 {
			if err := ctx.Err(); err != nil {
				return ShiftTest{}, err
			}
		}
		copy(pa, st.Base)
		copy(pb, st.Candidate)
		var bitsLeft int
		var word uint64
		for _, ds := range flips {
			if bitsLeft == 0 {
				word, bitsLeft = rng.Uint64(), 64
			}
			flip := word&1 == 1
			word >>= 1
			bitsLeft--
			if !flip {
				continue
			}
			for _, d := range ds {
				pa[d.cat] += d.d
				pb[d.cat] -= d.d
			}
		}
		if chiSquare(pa, pb) >= st.ChiSquare-tol {
			exceed++
		}
	}
	st.PPermutation = float64(1+exceed) / float64(1+perms)
	st.Significant = st.PPermutation < alpha
	return st, nil
}

// asymptoticP merges categories whose expected count is below 5 in either
// row into "other" (and, while "other" is itself sparse, the smallest
// remaining category into it), then returns the chi-square survival
// probability with K-1 degrees of freedom. With fewer than two categories
// left it returns p = 1, df = 0.
func asymptoticP(cats []string, a, b []int) (p float64, df int, merged []string) {
	var ta, tb int
	for i := range a {
		ta += a[i]
		tb += b[i]
	}
	n := float64(ta + tb)
	minRow := float64(min(ta, tb))
	sparse := func(col int) bool { return float64(col)*minRow/n < 5 }
	type column struct {
		name string
		a, b int
	}
	var keep []column
	var other column
	other.name = "other"
	for i, c := range cats {
		if sparse(a[i] + b[i]) {
			other.a += a[i]
			other.b += b[i]
			merged = append(merged, c)
			continue
		}
		keep = append(keep, column{c, a[i], b[i]})
	}
	if len(merged) > 0 {
		for sparse(other.a+other.b) && len(keep) > 0 {
			// Merge the smallest kept column (last of equal ones by name).
			si := 0
			for i, c := range keep {
				if c.a+c.b < keep[si].a+keep[si].b {
					si = i
				}
			}
			other.a += keep[si].a
			other.b += keep[si].b
			merged = append(merged, keep[si].name)
			keep = slices.Delete(keep, si, si+1)
		}
		keep = append(keep, other)
	}
	slices.Sort(merged)
	if len(keep) < 2 {
		return 1, 0, merged
	}
	ra := make([]int, len(keep))
	rb := make([]int, len(keep))
	for i, c := range keep {
		ra[i], rb[i] = c.a, c.b
	}
	df = len(keep) - 1
	x := chiSquare(ra, rb)
	return distuv.ChiSquared{K: float64(df)}.Survival(x), df, merged
}
