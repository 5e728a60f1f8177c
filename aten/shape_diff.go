package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// diff: n-th forward difference along a dim, after concatenating the
// optional prepend/append tensors (bool inputs use !=, as PyTorch does).

func init() {
	lower("aten::diff", lowerDiff)
}

func lowerDiff(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	n, dim := a.Int("n"), a.Int("dim")
	pre, app := a.OptTensor("prepend"), a.OptTensor("append")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(x) == 0 {
		return nil, c.Errorf("diff expects input to be at least one-dimensional")
	}
	if n < 0 {
		return nil, c.Errorf("order must be non-negative but got %d", n)
	}
	d, err := canonDim(dim, c.Rank(x))
	if err != nil {
		return nil, err
	}
	if pre != nil || app != nil {
		parts := []*stablehlo.Value{}
		for _, p := range []*stablehlo.Value{pre, x, app} {
			if p == nil {
				continue
			}
			if c.Rank(p) == 0 {
				// A 0-dim prepend/append is expanded along dim to size 1.
				s := append([]int64(nil), c.Shape(x)...)
				s[d] = 1
				p = c.BroadcastInDim(p, s, nil)
			}
			parts = append(parts, p)
		}
		if x, err = catValues(c, parts, int64(d)); err != nil {
			return nil, err
		}
	}
	for i := int64(0); i < n; i++ {
		size := c.Shape(x)[d]
		if size == 0 {
			break
		}
		hi := sliceDim(c, x, d, 1, size-1, 1)
		lo := sliceDim(c, x, d, 0, size-1, 1)
		if c.DType(x) == dtype.Bool {
			x = c.Compare("NE", hi, lo)
		} else {
			x = c.Binary("subtract", hi, lo)
		}
	}
	return one(x), nil
}
