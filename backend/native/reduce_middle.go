package native

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// reduceMiddle computes a float64 sum whose kept dimensions are one
// contiguous block between reduced ones: the input seen as [A, C, B]
// reduces to [C] (batch-norm statistics over N, H and W, which PyTorch's
// CPU kernel accumulates in double). Each output element adds its A·B
// inputs (a outer, b inner: the reduced dimensions in increasing order) in
// four interleaved chains when A and B exceed 1 (reduce_slots.go, as the
// fused path adds them), else in one, reading B contiguous elements at a
// time instead of going through an index table built per run. It reports
// false when the reduction is not of that form.
func reduceMiddle(kind string, input, init, out *literal.Literal, shape, dims []int64) bool {
	if kind != "stablehlo.add" || input.DType != dtype.F64 || init.DType != dtype.F64 || out.DType != dtype.F64 {
		return false
	}
	reduced := make([]bool, len(shape))
	for _, d := range dims {
		if d < 0 || int(d) >= len(shape) {
			return false
		}
		reduced[d] = true
	}
	p, q := -1, -1
	for i, r := range reduced {
		if !r {
			if p < 0 {
				p = i
			} else if q != i {
				return false // kept dimensions are not one block
			}
			q = i + 1
		}
	}
	if p < 0 {
		return false
	}
	a, c, b := 1, 1, 1
	for i, n := range shape {
		switch {
		case i < p:
			a *= int(n)
		case i < q:
			c *= int(n)
		default:
			b *= int(n)
		}
	}
	src, dst := f64Bytes(input.Data), f64Bytes(out.Data)
	if len(src) != a*c*b || len(dst) != c || a*c*b == 0 {
		return false
	}
	start := init.Float64(0)
	groupsParallel(c, a*b, func(lo, hi int) {
		for g := lo; g < hi; g++ {
			if b > 1 && a > 1 {
				// four chains (reduce_slots.go), as the fused path sums
				var s slots4
				for i := 0; i < a; i++ {
					base := (i*c + g) * b
					s.add(src[base:base+b], i*b)
				}
				if t, ok := s.total(start); ok {
					dst[g] = t
					continue
				}
			}
			acc := start
			for i := 0; i < a; i++ {
				base := (i*c + g) * b
				acc = sumChain(acc, src[base:base+b])
			}
			dst[g] = acc
		}
	})
	return true
}
