package embed

import (
	"fmt"
	"math"
)

// vectors turns a model output into one L2-normalised vector per row of the
// batch: pooled over real tokens (attention mask 1) for token-level outputs,
// taken as is for pre-pooled ones. It checks the output's shape against the
// batch and refuses non-finite values.
func vectors(out []float32, dims []int64, in *batchInput, tokenLevel bool, pooling Pooling) ([][]float32, error) {
	b, s := in.batch, in.seq
	var dim int
	switch {
	case !tokenLevel && len(dims) == 2 && int(dims[0]) == b && dims[1] > 0:
		dim = int(dims[1])
	case tokenLevel && len(dims) == 3 && int(dims[0]) == b && int(dims[1]) == s && dims[2] > 0:
		dim = int(dims[2])
	default:
		want := fmt.Sprintf("[%d, dim]", b)
		if tokenLevel {
			want = fmt.Sprintf("[%d, %d, dim]", b, s)
		}
		return nil, fmt.Errorf("%w: model output has shape %v, want %s", ErrModelUnsupported, dims, want)
	}
	if int64(len(out)) != product(dims) {
		return nil, fmt.Errorf("%w: model output has %d values for shape %v", ErrModelUnsupported, len(out), dims)
	}
	res := make([][]float32, b)
	backing := make([]float32, b*dim)
	for r := 0; r < b; r++ {
		v := backing[r*dim : (r+1)*dim : (r+1)*dim]
		if !tokenLevel {
			copy(v, out[r*dim:(r+1)*dim])
		} else {
			pool(v, out[r*s*dim:(r+1)*s*dim], in.mask[r*s:(r+1)*s], dim, pooling)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				if !hasToken(in.mask[r*s : (r+1)*s]) {
					// A string with no tokens that the graph cannot pool (0/0): the zero vector.
					clear(v)
					break
				}
				return nil, fmt.Errorf("%w: model output for batch row %d is not finite", ErrModelInvalid, r)
			}
		}
		normalize(v)
		res[r] = v
	}
	return res, nil
}

func hasToken(mask []int64) bool {
	for _, m := range mask {
		if m != 0 {
			return true
		}
	}
	return false
}

func product(d []int64) int64 {
	n := int64(1)
	for _, x := range d {
		n *= x
	}
	return n
}

// pool reduces one row's token vectors tok ([seq, dim]) to dst over the
// positions whose mask is 1. Sums run in float64 so the result does not
// depend on the padding length. A row with no real token pools to zeros.
func pool(dst, tok []float32, mask []int64, dim int, mode Pooling) {
	switch mode {
	case PoolingCLS:
		if len(mask) > 0 && mask[0] != 0 {
			copy(dst, tok[:dim])
		}
	case PoolingLast:
		last := -1
		for i, m := range mask {
			if m != 0 {
				last = i
			}
		}
		if last >= 0 {
			copy(dst, tok[last*dim:(last+1)*dim])
		}
	case PoolingMax:
		first := true
		for i, m := range mask {
			if m == 0 {
				continue
			}
			row := tok[i*dim : (i+1)*dim]
			if first {
				copy(dst, row)
				first = false
				continue
			}
			for j, x := range row {
				if x > dst[j] {
					dst[j] = x
				}
			}
		}
	default: // mean
		acc := make([]float64, dim)
		n := 0
		for i, m := range mask {
			if m == 0 {
				continue
			}
			n++
			for j, x := range tok[i*dim : (i+1)*dim] {
				acc[j] += float64(x)
			}
		}
		if n == 0 {
			return
		}
		for j := range dst {
			dst[j] = float32(acc[j] / float64(n))
		}
	}
}

// normalize scales v to unit L2 norm in place; a zero vector stays zero.
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// cosine of two vectors, computed in float64 and clamped to [-1, 1]. Two zero
// vectors (strings with no tokens at all) have similarity 1; a zero vector
// and a non-zero one have 0.
func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	switch {
	case na == 0 && nb == 0:
		return 1
	case na == 0 || nb == 0:
		return 0
	}
	c := dot / math.Sqrt(na*nb)
	return max(-1, min(1, c))
}
