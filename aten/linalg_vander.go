package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// torch.vander and torch.linalg.vander as PyTorch builds them: a column
// of ones, then the running product (cumprod, so float32 accumulates in
// float64 and integers give int64) of x repeated. vander's columns run
// from the highest power down unless increasing.

func init() {
	decomp("aten::vander", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("x")
		n, hasN := a.OptInt("N")
		inc := a.Bool("increasing")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) != 1 {
			return nil, c.Errorf("vander: x must be a one-dimensional tensor, got shape %v", c.Shape(x))
		}
		dt := c.DType(x)
		if dt == dtype.Bool || dt.IsInteger() {
			dt = dtype.I64
		}
		m := c.Shape(x)[0]
		if !hasN {
			n = m
		}
		if n < 0 {
			return nil, c.Errorf("vander: N must be non-negative, got %d", n)
		}
		if n <= 1 {
			return one(c.Splat(dt, []int64{m, n}, 1)), nil
		}
		res, err := vanderPowers(c, c.Convert(x, dt), n)
		if err != nil {
			return nil, fmt.Errorf("vander: %w", err)
		}
		if !inc {
			res = c.Call1("aten::flip", TensorValue(res), IntsValue([]int64{1}))
		}
		return one(res), c.Err()
	})
	decomp("aten::linalg_vander", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("x")
		n, hasN := a.OptInt("N")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.DType(x)
		if !(dt == dtype.F32 || dt == dtype.F64 || dt == dtype.C64 || dt == dtype.C128 || dt.IsInteger()) {
			return nil, c.Errorf("linalg.vander supports floating point, complex, and integer tensors, but got %v", dt.Torch())
		}
		if c.Rank(x) == 0 {
			x = c.Reshape(x, []int64{1})
		}
		s := c.Shape(x)
		if !hasN {
			n = s[len(s)-1]
		}
		if n <= 1 {
			return nil, c.Errorf("linalg.vander: N must be greater than 1, got %d", n)
		}
		if dt.IsInteger() {
			dt = dtype.I64
		}
		res, err := vanderPowers(c, c.Convert(x, dt), n)
		if err != nil {
			return nil, fmt.Errorf("linalg.vander: %w", err)
		}
		return one(res), nil
	})
}

// vanderPowers returns x's powers 0..n-1 along a new last dim (n >= 2):
// ones, then cumprod of x repeated n-1 times.
func vanderPowers(c *LowerCtx, x *stablehlo.Value, n int64) (*stablehlo.Value, error) {
	s := c.Shape(x)
	r := len(s)
	dims := make([]int64, r)
	for i := range dims {
		dims[i] = int64(i)
	}
	rep := c.BroadcastInDim(x, withBatch(s, n-1), dims)
	pw, err := c.Call("aten::cumprod", []Value{TensorValue(rep), IntValue(int64(r))}, nil)
	if err != nil {
		return nil, err
	}
	ones := c.Splat(c.DType(x), withBatch(s, 1), 1)
	return c.Call1("aten::cat", TensorsValue([]*stablehlo.Value{ones, c.Convert(pw[0].T, c.DType(x))}), IntValue(int64(r))), c.Err()
}
