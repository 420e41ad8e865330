package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// GroupIndex maps group names (dialog ids) to dense indices 0..n-1 in
// order of first appearance, returning the index of each sample and the
// number of groups.
func GroupIndex(names []string) (idx []int, n int) {
	seen := make(map[string]int, len(names))
	idx = make([]int, len(names))
	for i, s := range names {
		g, ok := seen[s]
		if !ok {
			g = len(seen)
			seen[s] = g
		}
		idx[i] = g
	}
	return idx, len(seen)
}

// KFoldByGroup assigns every sample to one of k folds so that all samples
// of a group share a fold (no group on both sides of a split). groups holds
// dense group indices (see GroupIndex). When labels is non-nil the split is
// also stratified: groups are placed, largest first, in the fold that
// keeps the share of positives and negatives per fold most even. The seed
// decides the order among equal-sized groups, so the split is reproducible.
// It returns the fold of each sample.
func KFoldByGroup(groups []int, labels []bool, k int, seed uint64) ([]int, error) {
	if labels != nil && len(labels) != len(groups) {
		return nil, fmt.Errorf("splitting folds: %w", ErrLength)
	}
	ng := 0
	for _, g := range groups {
		if g < 0 {
			return nil, fmt.Errorf("splitting folds: negative group index %d: %w", g, ErrFolds)
		}
		ng = max(ng, g+1)
	}
	if k < 2 || k > ng {
		return nil, fmt.Errorf("%d folds over %d groups: need 2 <= folds <= groups: %w", k, ng, ErrFolds)
	}
	pos := make([]float64, ng)
	neg := make([]float64, ng)
	var P, N float64
	for i, g := range groups {
		if labels == nil || labels[i] {
			pos[g]++
			P++
		} else {
			neg[g]++
			N++
		}
	}
	order := make([]int, ng)
	for i := range order {
		order[i] = i
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed_f01d))
	r.Shuffle(ng, func(i, j int) { order[i], order[j] = order[j], order[i] })
	sort.SliceStable(order, func(a, b int) bool {
		return pos[order[a]]+neg[order[a]] > pos[order[b]]+neg[order[b]]
	})
	fp := make([]float64, k)
	fn := make([]float64, k)
	foldOf := make([]int, ng)
	share := func(a, tot float64) float64 {
		if tot == 0 {
			return 0
		}
		return a / tot
	}
	for _, g := range order {
		best, bestCost := -1, math.Inf(1)
		for f := 0; f < k; f++ {
			// Cost: the larger class share the fold would hold, then its size.
			c := math.Max(share(fp[f]+pos[g], P), share(fn[f]+neg[g], N))*1e6 + fp[f] + fn[f]
			if c < bestCost {
				best, bestCost = f, c
			}
		}
		foldOf[g] = best
		fp[best] += pos[g]
		fn[best] += neg[g]
	}
	out := make([]int, len(groups))
	for i, g := range groups {
		out[i] = foldOf[g]
	}
	return out, nil
}

// Bootstrap draws resamples of whole groups with replacement (a cluster
// bootstrap): turns of one dialog are correlated, so dialogs, not turns,
// are the unit of resampling. It is seeded and reproducible; not safe for
// concurrent use.
type Bootstrap struct {
	groups []int
	ng     int
	r      *rand.Rand
	mult   []float64
}

// NewBootstrap prepares a group bootstrap over samples with dense group
// indices groups (see GroupIndex).
func NewBootstrap(groups []int, seed uint64) (*Bootstrap, error) {
	if len(groups) == 0 {
		return nil, fmt.Errorf("bootstrap: %w", ErrEmpty)
	}
	ng := 0
	for _, g := range groups {
		if g < 0 {
			return nil, fmt.Errorf("bootstrap: negative group index %d: %w", g, ErrEmpty)
		}
		ng = max(ng, g+1)
	}
	return &Bootstrap{groups: groups, ng: ng, r: rand.New(rand.NewPCG(seed, 0xb007_57a9)), mult: make([]float64, ng)}, nil
}

// Next draws the next replicate and returns, in dst (grown as needed), the
// weight of every sample: how many times its group was drawn.
func (b *Bootstrap) Next(dst []float64) []float64 {
	clear(b.mult)
	for range b.ng {
		b.mult[b.r.IntN(b.ng)]++
	}
	dst = dst[:0]
	for _, g := range b.groups {
		dst = append(dst, b.mult[g])
	}
	return dst
}

// Expand turns replicate weights into an index list in which sample i
// appears weights[i] times (for statistics that need explicit samples).
func Expand(weights []float64, dst []int) []int {
	dst = dst[:0]
	for i, w := range weights {
		for range int(w) {
			dst = append(dst, i)
		}
	}
	return dst
}

// PercentileCI returns the (1-level)/2 and 1-(1-level)/2 quantiles of the
// finite values in v (linear interpolation between order statistics).
// It reorders v. ok is false when fewer than 10 finite values remain.
func PercentileCI(v []float64, level float64) (lo, hi float64, ok bool) {
	fin := v[:0]
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			fin = append(fin, x)
		}
	}
	if len(fin) < 10 || level <= 0 || level >= 1 {
		return 0, 0, false
	}
	sort.Float64s(fin)
	a := (1 - level) / 2
	return Quantile(fin, a), Quantile(fin, 1-a), true
}

// Quantile is the p-quantile of sorted values by linear interpolation
// (type 7, the default of R and NumPy).
func Quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// MeanSD returns the mean and sample standard deviation of v (sd 0 for
// fewer than two values).
func MeanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}
