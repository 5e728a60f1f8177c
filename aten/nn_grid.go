package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// grid_sampler_2d and grid_sampler_3d (bilinear/trilinear and nearest,
// bicubic in 2-D; zeros, border and reflection padding; both
// align_corners conventions), following PyTorch's unnormalize /
// compute_coordinates / corner-weight formulas. The sample positions are
// data, so the taps are gathered at run time from the flattened planes.

func init() {
	lower("aten::grid_sampler_2d", lowerGridSampler)
	lower("aten::grid_sampler_3d", lowerGridSampler)
	lower("aten::grid_sampler", lowerGridSampler) // by the input's rank
}

// gridUnnormalize maps normalised coordinates g in [-1, 1] to pixel space
// of a dim of the given size.
func gridUnnormalize(c *LowerCtx, g *stablehlo.Value, size int64, align bool) *stablehlo.Value {
	s := spOf(c, g)
	if align {
		return s.mulk(s.div(s.addk(g, 1), s.k(2)), float64(size-1))
	}
	return s.div(s.addk(s.mulk(s.addk(g, 1), float64(size)), -1), s.k(2))
}

// gridPad applies the padding mode to pixel coordinates (border clips,
// reflection reflects then clips).
func gridPad(c *LowerCtx, x *stablehlo.Value, size int64, align bool, padding int64) *stablehlo.Value {
	s := spOf(c, x)
	clip := func(v *stablehlo.Value) *stablehlo.Value {
		return c.Binary("minimum", s.k(float64(size-1)), c.Binary("maximum", v, s.k(0)))
	}
	switch padding {
	case 1:
		return clip(x)
	case 2:
		lo, hi := -1.0, float64(2*size-1)
		if align {
			lo, hi = 0, float64(2*(size-1))
		}
		if lo == hi {
			return s.k(0)
		}
		mn, span := lo/2, (hi-lo)/2
		in := s.abs(s.addk(x, -mn))
		extra := c.Binary("remainder", in, s.k(span))
		flips := s.fn("floor", s.div(in, s.k(span)))
		even := s.eq(c.Binary("remainder", flips, s.k(2)), s.k(0))
		return clip(s.sel(even, s.addk(extra, mn), s.addk(s.sub(s.k(span), extra), mn)))
	}
	return x
}

func lowerGridSampler(c *LowerCtx, a *Args) ([]Value, error) {
	x, grid := a.Tensor("input"), a.Tensor("grid")
	mode, padding := a.Int("interpolation_mode"), a.Int("padding_mode")
	align := a.Bool("align_corners")
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, gs := c.Shape(x), c.Shape(grid)
	nd := len(xs) - 2
	if nd != 2 && nd != 3 || len(gs) != nd+2 || gs[0] != xs[0] || gs[nd+1] != int64(nd) {
		return nil, c.Errorf("grid_sampler: expected input [N, C, spatial...] and grid [N, out..., %d] of rank 4 or 5, got %v and %v", max(nd, 2), xs, gs)
	}
	if mode < 0 || mode > 2 || mode == 2 && nd == 3 {
		return nil, c.Errorf("grid_sampler_%dd: invalid interpolation mode %d", nd, mode)
	}
	if padding < 0 || padding > 2 {
		return nil, c.Errorf("grid_sampler: invalid padding mode %d", padding)
	}
	dt := c.DType(x)
	if !dt.IsFloat() || c.DType(grid) != dt {
		return nil, c.Errorf("grid_sampler: expected input and grid of one float dtype, got %v and %v", dt.Torch(), c.DType(grid).Torch())
	}
	cdt := OpMath(dt)
	N, C := xs[0], xs[1]
	sp := xs[2:] // [H, W] or [D, H, W]
	out := gs[1 : nd+1]
	P := numelOf(out)
	np := []int64{N, P}
	g := c.Convert(grid, cdt)
	// coord[d] is the pixel coordinate along spatial dim d; the grid's
	// last axis lists them innermost first (x = W, y = H, z = D).
	raw := make([]*stablehlo.Value, nd)
	for d := 0; d < nd; d++ {
		comp := int64(nd - 1 - d)
		raw[d] = gridUnnormalize(c, c.Reshape(sliceDim(c, g, nd+1, comp, 1, 1), np), sp[d], align)
	}
	plane := numelOf(sp)
	flat := c.Reshape(c.Convert(x, cdt), []int64{N, C, plane})
	full := []int64{N, C, P}
	// tap gathers the input at integer (float-valued) coordinates, zero
	// out of bounds.
	tap := func(co []*stablehlo.Value) *stablehlo.Value {
		var ok, lin *stablehlo.Value
		for d := 0; d < nd; d++ {
			in := c.Binary("and", c.Compare("GE", co[d], c.Splat(cdt, np, 0)), c.Compare("LE", co[d], c.Splat(cdt, np, float64(sp[d]-1))))
			cl := c.Convert(c.Op1("stablehlo.clamp", []*stablehlo.Value{c.Splat(cdt, nil, 0), co[d], c.Splat(cdt, nil, float64(sp[d]-1))}, nil), dtype.I64)
			if lin == nil {
				ok, lin = in, cl
			} else {
				ok = c.Binary("and", ok, in)
				lin = c.Binary("add", c.Binary("multiply", lin, c.SplatInt(dtype.I64, np, sp[d])), cl)
			}
		}
		v := gatherAlong(c, flat, 2, c.BroadcastInDim(lin, full, []int64{0, 2}))
		return c.Select(c.BroadcastInDim(ok, full, []int64{0, 2}), v, c.Splat(cdt, full, 0))
	}
	wb := func(w *stablehlo.Value) *stablehlo.Value { return c.BroadcastInDim(w, full, []int64{0, 2}) }
	var res *stablehlo.Value
	switch mode {
	case 1: // nearest
		co := make([]*stablehlo.Value, nd)
		for d := range co {
			co[d] = c.Unary("round_nearest_even", gridPad(c, raw[d], sp[d], align, padding))
		}
		res = tap(co)
	case 0: // (bi/tri)linear over the 2^nd corners
		lo, hi := make([]*stablehlo.Value, nd), make([]*stablehlo.Value, nd)
		wlo, whi := make([]*stablehlo.Value, nd), make([]*stablehlo.Value, nd)
		for d := 0; d < nd; d++ {
			p := gridPad(c, raw[d], sp[d], align, padding)
			lo[d] = c.Unary("floor", p)
			hi[d] = c.Binary("add", lo[d], c.Splat(cdt, np, 1))
			whi[d] = c.Binary("subtract", p, lo[d])
			wlo[d] = c.Binary("subtract", hi[d], p)
		}
		for corner := 0; corner < 1<<nd; corner++ {
			co := make([]*stablehlo.Value, nd)
			var w *stablehlo.Value
			// PyTorch's corner weights multiply x's first (nw = (x1-x)(y1-y)).
			for d := nd - 1; d >= 0; d-- {
				bit := corner >> (nd - 1 - d) & 1
				wd := wlo[d]
				co[d] = lo[d]
				if bit == 1 {
					co[d], wd = hi[d], whi[d]
				}
				if w == nil {
					w = wd
				} else {
					w = c.Binary("multiply", w, wd)
				}
			}
			t := c.Binary("multiply", tap(co), wb(w))
			if res == nil {
				res = t
			} else {
				res = c.Binary("add", res, t)
			}
		}
	case 2: // bicubic (2-D): padding per tap, Keys' kernel with A = -0.75
		ix, iy := raw[1], raw[0]
		x0, y0 := c.Unary("floor", ix), c.Unary("floor", iy)
		tx, ty := c.Binary("subtract", ix, x0), c.Binary("subtract", iy, y0)
		wx, wy := cubicWeights(c, tx), cubicWeights(c, ty)
		var rows [4]*stablehlo.Value
		for i := 0; i < 4; i++ {
			yi := gridPad(c, c.Binary("add", y0, c.Splat(cdt, np, float64(i-1))), sp[0], align, padding)
			var acc *stablehlo.Value
			for j := 0; j < 4; j++ {
				xj := gridPad(c, c.Binary("add", x0, c.Splat(cdt, np, float64(j-1))), sp[1], align, padding)
				t := c.Binary("multiply", tap([]*stablehlo.Value{yi, xj}), wb(wx[j]))
				if acc == nil {
					acc = t
				} else {
					acc = c.Binary("add", acc, t)
				}
			}
			rows[i] = acc
		}
		for i := 0; i < 4; i++ {
			t := c.Binary("multiply", rows[i], wb(wy[i]))
			if res == nil {
				res = t
			} else {
				res = c.Binary("add", res, t)
			}
		}
	}
	return one(c.Convert(c.Reshape(res, append([]int64{N, C}, out...)), dt)), nil
}

// cubicWeights are the four taps' weights at fraction t (PyTorch's
// get_cubic_upsample_coefficients with A = -0.75).
func cubicWeights(c *LowerCtx, t *stablehlo.Value) [4]*stablehlo.Value {
	s := spOf(c, t)
	const A = -0.75
	conv1 := func(x hv) hv { return s.addk(s.mul(s.mul(s.addk(s.mulk(x, A+2), -(A+3)), x), x), 1) }
	conv2 := func(x hv) hv {
		return s.addk(s.mul(s.addk(s.mul(s.addk(s.mulk(x, A), -5*A), x), 8*A), x), -4*A)
	}
	u := s.sub(s.k(1), t)
	return [4]*stablehlo.Value{conv2(s.addk(t, 1)), conv1(t), conv1(u), conv2(s.addk(u, 1))}
}
