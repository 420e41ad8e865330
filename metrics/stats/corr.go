package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

func checkPaired(what string, x, y []float64) error {
	if len(x) != len(y) {
		return fmt.Errorf("%s: %w", what, ErrLength)
	}
	if len(x) < 3 {
		return fmt.Errorf("%s of %d points: need at least 3: %w", what, len(x), ErrUndefined)
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("%s: point %d: %w", what, i, ErrNaN)
		}
	}
	return nil
}

// Pearson is the Pearson product-moment correlation of x and y. It needs at
// least 3 points and neither series constant.
func Pearson(x, y []float64) (float64, error) {
	if err := checkPaired("Pearson correlation", x, y); err != nil {
		return 0, err
	}
	return pearson(x, y)
}

func pearson(x, y []float64) (float64, error) { return weightedPearson(x, y, nil) }

// PointBiserial is the point-biserial correlation of scores with binary
// labels (Pearson with labels coded 1/0).
func PointBiserial(scores []float64, labels []bool) (float64, error) {
	y := make([]float64, len(labels))
	for i, l := range labels {
		if l {
			y[i] = 1
		}
	}
	if len(scores) != len(labels) {
		return 0, fmt.Errorf("point-biserial correlation: %w", ErrLength)
	}
	if err := checkPaired("point-biserial correlation", scores, y); err != nil {
		return 0, err
	}
	return pearson(scores, y)
}

// Ranks returns the 1-based ranks of x, ties getting the average of the
// ranks they span ("fractional ranking").
func Ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		avg := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			r[idx[k]] = avg
		}
		i = j
	}
	return r
}

// Spearman is Spearman's rank correlation: Pearson on average ranks, so
// ties are handled correctly.
func Spearman(x, y []float64) (float64, error) {
	if err := checkPaired("Spearman correlation", x, y); err != nil {
		return 0, err
	}
	return pearson(Ranks(x), Ranks(y))
}

// KendallTauB is Kendall's tau-b, adjusted for ties in either series,
// computed in O(n log n) (Knight's algorithm).
func KendallTauB(x, y []float64) (float64, error) {
	if err := checkPaired("Kendall tau-b", x, y); err != nil {
		return 0, err
	}
	n := len(x)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(x[a], x[b]); c != 0 {
			return c
		}
		return cmp.Compare(y[a], y[b])
	})
	pairs := func(t int64) int64 { return t * (t - 1) / 2 }
	var tiesX, tiesXY int64
	for i := 0; i < n; {
		j := i + 1
		for j < n && x[idx[j]] == x[idx[i]] {
			j++
		}
		tiesX += pairs(int64(j - i))
		for k := i; k < j; {
			l := k + 1
			for l < j && y[idx[l]] == y[idx[k]] {
				l++
			}
			tiesXY += pairs(int64(l - k))
			k = l
		}
		i = j
	}
	ys := make([]float64, n)
	for i, j := range idx {
		ys[i] = y[j]
	}
	swaps := mergeCount(ys, make([]float64, n))
	var tiesY int64
	for i := 0; i < n; {
		j := i + 1
		for j < n && ys[j] == ys[i] {
			j++
		}
		tiesY += pairs(int64(j - i))
		i = j
	}
	n0 := pairs(int64(n))
	den := math.Sqrt(float64(n0-tiesX)) * math.Sqrt(float64(n0-tiesY))
	if den == 0 {
		return 0, fmt.Errorf("Kendall tau-b with a constant series: %w", ErrUndefined)
	}
	num := float64(n0-tiesX-tiesY+tiesXY) - 2*float64(swaps)
	return math.Max(-1, math.Min(1, num/den)), nil
}

// mergeCount sorts a ascending and returns the number of strict
// inversions (i<j, a[i]>a[j]).
func mergeCount(a, buf []float64) int64 {
	n := len(a)
	if n < 2 {
		return 0
	}
	m := n / 2
	c := mergeCount(a[:m], buf[:m]) + mergeCount(a[m:], buf[m:])
	i, j, k := 0, m, 0
	for i < m && j < n {
		if a[j] < a[i] {
			buf[k] = a[j]
			c += int64(m - i)
			j++
		} else {
			buf[k] = a[i]
			i++
		}
		k++
	}
	k += copy(buf[k:], a[i:m])
	copy(buf[k:], a[j:n])
	copy(a, buf[:n])
	return c
}

// NormalQuantile is the standard normal quantile function.
func NormalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }

// FisherZCI is the Fisher-z confidence interval at the given level (0.95)
// for a Pearson correlation r over n points: tanh(atanh(r) ± z/sqrt(n-3)).
func FisherZCI(r float64, n int, level float64) (lo, hi float64, err error) {
	if n <= 3 {
		return 0, 0, fmt.Errorf("Fisher-z interval over %d points: need more than 3: %w", n, ErrUndefined)
	}
	if level <= 0 || level >= 1 || math.IsNaN(r) || r < -1 || r > 1 {
		return 0, 0, fmt.Errorf("Fisher-z interval (r=%v, level=%v): %w", r, level, ErrUndefined)
	}
	z := math.Atanh(r)
	h := NormalQuantile(1-(1-level)/2) / math.Sqrt(float64(n-3))
	return math.Tanh(z - h), math.Tanh(z + h), nil
}
