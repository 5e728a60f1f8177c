package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// affine_grid_generator (F.affine_grid): the base grid of normalised
// coordinates (x, y[, z], 1) over the output size, times thetaᵀ, as ATen's
// AffineGridGenerator.cpp computes it (linspace(-1, 1), scaled by
// (n-1)/n without align_corners, then one batched matmul).

func init() {
	decomp("aten::affine_grid_generator", lowerAffineGrid)
}

func lowerAffineGrid(c *LowerCtx, a *Args) ([]Value, error) {
	theta, size, align := a.Tensor("theta"), a.Ints("size"), a.Bool("align_corners")
	if a.Err() != nil {
		return nil, a.Err()
	}
	spatial := len(size) - 2
	ts := c.Shape(theta)
	if (spatial != 2 && spatial != 3) || len(ts) != 3 || ts[0] != size[0] || ts[1] != int64(spatial) || ts[2] != int64(spatial+1) {
		return nil, fmt.Errorf("affine_grid_generator: theta of shape %v does not fit size %v", ts, size)
	}
	for _, d := range size {
		if d < 0 {
			return nil, fmt.Errorf("affine_grid_generator: negative size %v", size)
		}
	}
	n := size[0]
	dims := size[2:] // (H, W) or (D, H, W)
	gridShape := append(append([]int64{}, dims...), 1)
	// Coordinate k of the last axis varies along spatial dim spatial-1-k.
	var cols []*stablehlo.Value
	for k := 0; k < spatial; k++ {
		axis := spatial - 1 - k
		r := affineRange(c, theta, dims[axis], align)
		cols = append(cols, c.BroadcastInDim(r, gridShape, []int64{int64(axis)}))
	}
	cols = append(cols, c.Splat(c.DType(theta), gridShape, 1))
	base := c.Call1("aten::cat", TensorsValue(cols), IntValue(int64(spatial)))
	pts := int64(1)
	for _, d := range dims {
		pts *= d
	}
	k := int64(spatial + 1)
	base = c.BroadcastInDim(c.Reshape(base, []int64{pts, k}), []int64{n, pts, k}, []int64{1, 2})
	tt := c.Call1("aten::transpose.int", TensorValue(theta), IntValue(1), IntValue(2))
	grid := c.Call1("aten::bmm", TensorValue(base), TensorValue(tt))
	return one(c.Reshape(grid, append(append([]int64{n}, dims...), int64(spatial)))), nil
}

// affineRange is ATen's linspace_from_neg_one.
func affineRange(c *LowerCtx, theta *stablehlo.Value, steps int64, align bool) *stablehlo.Value {
	dt := c.DType(theta)
	if steps <= 1 {
		return c.Splat(dt, []int64{steps}, 0)
	}
	out, err := c.Call("aten::linspace", []Value{IntValue(-1), IntValue(1), IntValue(steps)},
		map[string]Value{"dtype": DTypeValue(dt)})
	if err != nil || len(out) == 0 || out[0].T == nil {
		c.Errorf("affine_grid_generator: linspace: %v", err)
		return c.Splat(dt, []int64{steps}, 0)
	}
	r := out[0].T
	if !align {
		r = c.Call1("aten::mul.Tensor", TensorValue(r), IntValue(steps-1))
		r = c.Call1("aten::div.Tensor", TensorValue(r), IntValue(steps))
	}
	return r
}
