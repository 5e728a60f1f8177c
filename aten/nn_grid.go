package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// grid_sampler_2d (bilinear and nearest; zeros, border and reflection
// padding; both align_corners conventions), following PyTorch's
// unnormalize / compute_coordinates / corner-weight formulas. The sample
// positions are data, so the corners are gathered at run time.

func init() {
	lower("aten::grid_sampler_2d", lowerGridSampler2d)
	lower("aten::grid_sampler", lowerGridSampler2d) // 4-D input: the 2-D sampler
}

// gridCoord maps normalised coordinates g in [-1, 1] to pixel space of a
// dim of the given size and applies the padding mode.
func gridCoord(c *LowerCtx, g *stablehlo.Value, size int64, align bool, padding int64) *stablehlo.Value {
	shape := c.Shape(g)
	dt := c.DType(g)
	k := func(v float64) *stablehlo.Value { return c.Splat(dt, shape, v) }
	var x *stablehlo.Value
	if align {
		x = c.Binary("multiply", c.Binary("divide", c.Binary("add", g, k(1)), k(2)), k(float64(size-1)))
	} else {
		x = c.Binary("divide", c.Binary("subtract", c.Binary("multiply", c.Binary("add", g, k(1)), k(float64(size))), k(1)), k(2))
	}
	clip := func(v *stablehlo.Value) *stablehlo.Value {
		return c.Binary("minimum", k(float64(size-1)), c.Binary("maximum", v, k(0)))
	}
	switch padding {
	case 1:
		x = clip(x)
	case 2:
		lo, hi := -1.0, float64(2*size-1)
		if align {
			lo, hi = 0, float64(2*(size-1))
		}
		if lo == hi {
			x = k(0)
		} else {
			mn, span := lo/2, (hi-lo)/2
			in := c.Unary("abs", c.Binary("subtract", x, k(mn)))
			extra := c.Binary("remainder", in, k(span))
			flips := c.Unary("floor", c.Binary("divide", in, k(span)))
			even := c.Compare("EQ", c.Binary("remainder", flips, k(2)), k(0))
			x = c.Select(even, c.Binary("add", extra, k(mn)), c.Binary("add", c.Binary("subtract", k(span), extra), k(mn)))
		}
		x = clip(x)
	}
	return x
}

func lowerGridSampler2d(c *LowerCtx, a *Args) ([]Value, error) {
	x, grid := a.Tensor("input"), a.Tensor("grid")
	mode, padding := a.Int("interpolation_mode"), a.Int("padding_mode")
	align := a.Bool("align_corners")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, gs := c.Shape(x), c.Shape(grid)
	if len(xs) != 4 || len(gs) != 4 || gs[0] != xs[0] || gs[3] != 2 {
		return nil, c.Errorf("grid_sampler_2d: expected input [N, C, H, W] and grid [N, H_out, W_out, 2], got %v and %v", xs, gs)
	}
	if mode != 0 && mode != 1 {
		return nil, c.Errorf("grid_sampler_2d: interpolation mode %d (bicubic): %w", mode, ErrUnsupported)
	}
	if padding < 0 || padding > 2 {
		return nil, c.Errorf("grid_sampler_2d: invalid padding mode %d", padding)
	}
	dt := c.DType(x)
	if !dt.IsFloat() || c.DType(grid) != dt {
		return nil, c.Errorf("grid_sampler_2d: expected input and grid of one float dtype, got %v and %v", dt.Torch(), c.DType(grid).Torch())
	}
	cdt := OpMath(dt)
	N, C, H, W := xs[0], xs[1], xs[2], xs[3]
	Ho, Wo := gs[1], gs[2]
	P := Ho * Wo
	g := c.Convert(grid, cdt)
	gx := c.Reshape(sliceDim(c, g, 3, 0, 1, 1), []int64{N, P})
	gy := c.Reshape(sliceDim(c, g, 3, 1, 1, 1), []int64{N, P})
	ix := gridCoord(c, gx, W, align, padding)
	iy := gridCoord(c, gy, H, align, padding)
	flat := c.Reshape(c.Convert(x, cdt), []int64{N, C, H * W})
	np := []int64{N, P}
	// sample gathers input at integer (xi, yi) (float-valued), zero where
	// out of bounds.
	sample := func(xi, yi *stablehlo.Value) *stablehlo.Value {
		ok := c.Binary("and",
			c.Binary("and", c.Compare("GE", xi, c.Splat(cdt, np, 0)), c.Compare("LE", xi, c.Splat(cdt, np, float64(W-1)))),
			c.Binary("and", c.Compare("GE", yi, c.Splat(cdt, np, 0)), c.Compare("LE", yi, c.Splat(cdt, np, float64(H-1)))))
		xc := c.Op1("stablehlo.clamp", []*stablehlo.Value{c.Splat(cdt, nil, 0), xi, c.Splat(cdt, nil, float64(W-1))}, nil)
		yc := c.Op1("stablehlo.clamp", []*stablehlo.Value{c.Splat(cdt, nil, 0), yi, c.Splat(cdt, nil, float64(H-1))}, nil)
		lin := c.Binary("add", c.Binary("multiply", c.Convert(yc, dtype.I64), c.SplatInt(dtype.I64, np, W)), c.Convert(xc, dtype.I64))
		idx := c.BroadcastInDim(lin, []int64{N, C, P}, []int64{0, 2})
		v := gatherAlong(c, flat, 2, idx)
		okb := c.BroadcastInDim(ok, []int64{N, C, P}, []int64{0, 2})
		return c.Select(okb, v, c.Splat(cdt, []int64{N, C, P}, 0))
	}
	full := []int64{N, C, P}
	wb := func(w *stablehlo.Value) *stablehlo.Value { return c.BroadcastInDim(w, full, []int64{0, 2}) }
	var out *stablehlo.Value
	if mode == 1 {
		out = sample(c.Unary("round_nearest_even", ix), c.Unary("round_nearest_even", iy))
	} else {
		x0, y0 := c.Unary("floor", ix), c.Unary("floor", iy)
		one := c.Splat(cdt, np, 1)
		x1, y1 := c.Binary("add", x0, one), c.Binary("add", y0, one)
		wx1, wy1 := c.Binary("subtract", ix, x0), c.Binary("subtract", iy, y0)
		wx0, wy0 := c.Binary("subtract", x1, ix), c.Binary("subtract", y1, iy)
		nw := c.Binary("multiply", wx0, wy0)
		ne := c.Binary("multiply", wx1, wy0)
		sw := c.Binary("multiply", wx0, wy1)
		se := c.Binary("multiply", wx1, wy1)
		out = c.Binary("multiply", sample(x0, y0), wb(nw))
		out = c.Binary("add", out, c.Binary("multiply", sample(x1, y0), wb(ne)))
		out = c.Binary("add", out, c.Binary("multiply", sample(x0, y1), wb(sw)))
		out = c.Binary("add", out, c.Binary("multiply", sample(x1, y1), wb(se)))
	}
	return one(c.Convert(c.Reshape(out, []int64{N, C, Ho, Wo}), dt)), nil
}
