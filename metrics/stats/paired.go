package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Paired holds two paired series prepared for repeated weighted
// correlations (bootstrap replicates): the sorting is done once, so each
// Pearson and Spearman costs O(n) and each Kendall tau-b O(n log n) with
// no sort. A weight w[i] counts sample i w[i] times (0 drops it); the
// results equal those of the plain functions on the expanded data. It is
// read-only after NewPaired and safe for concurrent use.
type Paired struct {
	x, y []float64
	ox   []int // indices by x ascending
	oy   []int // indices by y ascending
	oxy  []int // indices by (x, y) ascending
	yr   []int // dense rank of y[i] (0-based, ties share a rank)
	ny   int   // distinct y values
}

// NewPaired validates and prepares x and y.
func NewPaired(x, y []float64) (*Paired, error) {
	if len(x) != len(y) {
		return nil, fmt.Errorf("paired series: %w", ErrLength)
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("paired series: point %d: %w", i, ErrNaN)
		}
	}
	p := &Paired{x: x, y: y}
	idx := func() []int {
		o := make([]int, len(x))
		for i := range o {
			o[i] = i
		}
		return o
	}
	p.ox, p.oy, p.oxy = idx(), idx(), idx()
	slices.SortStableFunc(p.ox, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	slices.SortStableFunc(p.oy, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
	slices.SortStableFunc(p.oxy, func(a, b int) int {
		if c := cmp.Compare(x[a], x[b]); c != 0 {
			return c
		}
		return cmp.Compare(y[a], y[b])
	})
	p.yr = make([]int, len(y))
	for k, i := range p.oy {
		if k > 0 && y[i] != y[p.oy[k-1]] {
			p.ny++
		}
		p.yr[i] = p.ny
	}
	if len(y) > 0 {
		p.ny++
	}
	return p, nil
}

func weight(w []float64, i int) float64 {
	if w == nil {
		return 1
	}
	return w[i]
}

func (p *Paired) total(w []float64) float64 {
	if w == nil {
		return float64(len(p.x))
	}
	s := 0.0
	for _, v := range w {
		s += v
	}
	return s
}

// weightedPearson is the Pearson correlation of x and y, each point
// counted w[i] times (w nil: once). Each series is divided by its largest
// magnitude first, which leaves the correlation as it is and keeps the
// sums of squares finite for any finite input (latencies or human scores
// near the largest double).
func weightedPearson(x, y, w []float64) (float64, error) {
	ax, ay := maxAbs(x), maxAbs(y)
	if ax == 0 || ay == 0 {
		return 0, fmt.Errorf("correlation with a constant series: %w", ErrUndefined)
	}
	var sw, mx, my float64
	for i := range x {
		wi := weight(w, i)
		sw += wi
		mx += wi * (x[i] / ax)
		my += wi * (y[i] / ay)
	}
	if sw < 3 {
		return 0, fmt.Errorf("correlation of %v points: need at least 3: %w", sw, ErrUndefined)
	}
	mx /= sw
	my /= sw
	var sxy, sxx, syy float64
	for i := range x {
		wi := weight(w, i)
		dx, dy := x[i]/ax-mx, y[i]/ay-my
		sxy += wi * dx * dy
		sxx += wi * dx * dx
		syy += wi * dy * dy
	}
	if sxx <= 0 || syy <= 0 {
		return 0, fmt.Errorf("correlation with a constant series: %w", ErrUndefined)
	}
	return math.Max(-1, math.Min(1, sxy/math.Sqrt(sxx*syy))), nil
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// Pearson is the weighted Pearson correlation (w may be nil).
func (p *Paired) Pearson(w []float64) (float64, error) {
	return weightedPearson(p.x, p.y, w)
}

// ranks gives the average ranks of v in the expanded data, using order o.
func ranks(v []float64, o []int, w []float64) []float64 {
	r := make([]float64, len(v))
	cum := 0.0
	for k := 0; k < len(o); {
		j := k + 1
		for j < len(o) && v[o[j]] == v[o[k]] {
			j++
		}
		g := 0.0
		for _, i := range o[k:j] {
			g += weight(w, i)
		}
		avg := cum + (g+1)/2
		for _, i := range o[k:j] {
			r[i] = avg
		}
		cum += g
		k = j
	}
	return r
}

// Spearman is the weighted Spearman correlation with average ranks.
func (p *Paired) Spearman(w []float64) (float64, error) {
	return weightedPearson(ranks(p.x, p.ox, w), ranks(p.y, p.oy, w), w)
}

// Kendall is the weighted Kendall tau-b.
func (p *Paired) Kendall(w []float64) (float64, error) {
	W := p.total(w)
	if W < 3 {
		return 0, fmt.Errorf("Kendall tau-b of %v points: need at least 3: %w", W, ErrUndefined)
	}
	pairs := func(g float64) float64 { return g * (g - 1) / 2 }
	n0 := pairs(W)
	// Ties in x and the concordance sum S, walking (x, y) order: pairs
	// tied in x are skipped by querying a whole x group before adding it,
	// pairs tied in y count as neither concordant nor discordant.
	var n1, s float64
	tree := make([]float64, p.ny+1) // Fenwick tree of weight by y rank
	add := func(r int, v float64) {
		for r++; r <= p.ny; r += r & -r {
			tree[r] += v
		}
	}
	below := func(r int) float64 { // total weight with rank < r
		t := 0.0
		for ; r > 0; r -= r & -r {
			t += tree[r]
		}
		return t
	}
	seen := 0.0
	o := p.oxy
	for k := 0; k < len(o); {
		j := k + 1
		for j < len(o) && p.x[o[j]] == p.x[o[k]] {
			j++
		}
		gx := 0.0
		for _, i := range o[k:j] {
			gx += weight(w, i)
		}
		n1 += pairs(gx)
		for _, i := range o[k:j] {
			wi := weight(w, i)
			if wi == 0 {
				continue
			}
			r := p.yr[i]
			less := below(r)
			greater := seen - below(r+1)
			s += wi * (less - greater)
		}
		for _, i := range o[k:j] {
			if wi := weight(w, i); wi != 0 {
				add(p.yr[i], wi)
				seen += wi
			}
		}
		k = j
	}
	var n2 float64
	for k := 0; k < len(p.oy); {
		j := k + 1
		for j < len(p.oy) && p.y[p.oy[j]] == p.y[p.oy[k]] {
			j++
		}
		g := 0.0
		for _, i := range p.oy[k:j] {
			g += weight(w, i)
		}
		n2 += pairs(g)
		k = j
	}
	den := math.Sqrt(n0-n1) * math.Sqrt(n0-n2)
	if !(den > 0) {
		return 0, fmt.Errorf("Kendall tau-b with a constant series: %w", ErrUndefined)
	}
	return math.Max(-1, math.Min(1, s/den)), nil
}
