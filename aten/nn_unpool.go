package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
)

// max_unpool2d / max_unpool3d: each value goes to the flat position its
// index names within its output plane; everything else is zero. Indices
// past the plane are dropped (PyTorch raises).

func init() {
	lower("aten::max_unpool2d", lowerMaxUnpool(2))
	lower("aten::max_unpool3d", lowerMaxUnpool(3))
}

func lowerMaxUnpool(n int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, idx := a.Tensor("self"), a.Tensor("indices")
		osize := a.Ints("output_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xs := c.Shape(x)
		r := len(xs)
		if (r != n+1 && r != n+2) || len(osize) != n || !sameShape(c.Shape(idx), xs) {
			return nil, c.Errorf("max_unpool%dd: expected %dD or %dD input with indices of the same shape and %d output sizes, got %v, %v and %v", n, n+1, n+2, n, xs, c.Shape(idx), osize)
		}
		if !c.DType(idx).IsInteger() {
			return nil, c.Errorf("max_unpool%dd: expected integer indices, got %v", n, c.DType(idx).Torch())
		}
		lead := xs[:r-n]
		plane := numelOf(xs[r-n:])
		oplane, err := checkedNumel(osize)
		if err != nil {
			return nil, c.Errorf("max_unpool%dd: %w", n, err)
		}
		flatShape := append(append([]int64(nil), lead...), plane)
		outFlat := append(append([]int64(nil), lead...), oplane)
		vals := c.Reshape(x, flatShape)
		ind := c.Reshape(c.Convert(idx, dtype.I64), flatShape)
		zeros := c.SplatInt(c.DType(x), outFlat, 0)
		out := scatterAlong(c, zeros, len(lead), ind, vals, nil)
		return one(c.Reshape(out, append(append([]int64(nil), lead...), osize...))), nil
	}
}
