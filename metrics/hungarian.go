package metrics

import "math"

// minCostAssignment solves the square assignment problem exactly with the
// Hungarian algorithm (Kuhn–Munkres with potentials, O(n³)) and returns, for
// each row, its column. It is deterministic: equal inputs give equal
// assignments. cost must be n×n with non-negative entries well below
// MaxInt64/4.
func minCostAssignment(cost [][]int64) []int {
	n := len(cost)
	const inf = math.MaxInt64 / 4
	u, v := make([]int64, n+1), make([]int64, n+1)
	p, way := make([]int, n+1), make([]int, n+1) // p[j]: row matched to column j (1-based)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]int64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = inf
		}
		for p[j0] != 0 {
			used[j0] = true
			i0, delta, j1 := p[j0], int64(inf), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if cur := cost[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	rowToCol := make([]int, n)
	for j := 1; j <= n; j++ {
		if p[j] != 0 {
			rowToCol[p[j]-1] = j - 1
		}
	}
	return rowToCol
}

// maxWeightAssignment returns the row-to-column assignment maximising the
// total weight.
func maxWeightAssignment(w [][]int64) []int {
	var top int64
	for _, row := range w {
		for _, x := range row {
			top = max(top, x)
		}
	}
	cost := make([][]int64, len(w))
	for i, row := range w {
		cost[i] = make([]int64, len(row))
		for j, x := range row {
			cost[i][j] = top - x
		}
	}
	return minCostAssignment(cost)
}

// MaxWeightAssignment solves the square assignment problem exactly: for an
// n×n matrix of non-negative weights (well below MaxInt64/4 in total) it
// returns, for each row, the column that maximises the total weight.
// Deterministic. metrics/align uses it for unordered matching.
func MaxWeightAssignment(w [][]int64) []int { return maxWeightAssignment(w) }
