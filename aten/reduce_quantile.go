package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// quantile and nanquantile, as PyTorch's sort-based kernel computes them:
// ranks q·(n-1) in the input's dtype (n counting the non-NaN values for
// nanquantile; a row with NaN gives NaN for quantile), adjusted by the
// interpolation mode, and the neighbours gathered from the sorted row and
// interpolated with lerp.

func init() {
	for _, name := range []string{"aten::quantile", "aten::quantile.scalar"} {
		lower(name, lowerQuantile(false))
	}
	for _, name := range []string{"aten::nanquantile", "aten::nanquantile.scalar"} {
		lower(name, lowerQuantile(true))
	}
}

func lowerQuantile(ignoreNaN bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim, hasDim := a.OptInt("dim")
		keep := a.Bool("keepdim")
		mode := a.Str("interpolation")
		if a.Err() != nil {
			return nil, a.Err()
		}
		name := "quantile"
		if ignoreNaN {
			name = "nanquantile"
		}
		dt := c.DType(x)
		if dt != dtype.F32 && dt != dtype.F64 {
			return nil, c.Errorf("%s() input tensor must be either float or double dtype", name)
		}
		switch mode {
		case "linear", "lower", "higher", "midpoint", "nearest":
		default:
			return nil, c.Errorf("%s() interpolation must be one of linear, lower, higher, midpoint or nearest. Got %s", name, mode)
		}
		var q *stablehlo.Value
		scalarQ := a.Value("q").Kind != KTensor
		if scalarQ {
			qv := a.Float("q")
			if qv < 0 || qv > 1 {
				return nil, c.Errorf("%s() q must be in the range [0, 1] but got %v", name, qv)
			}
			q = c.Splat(dt, []int64{1}, qv)
		} else {
			q = a.Tensor("q")
			if c.Rank(q) > 1 {
				return nil, c.Errorf("%s() q must be a scalar or 1D tensor", name)
			}
			if c.DType(q) != dt {
				return nil, c.Errorf("%s() q tensor must be same dtype as the input tensor", name)
			}
		}
		qShape := c.Shape(q)
		q = c.Reshape(q, []int64{numelOf(qShape)})
		nq := c.Shape(q)[0]
		shape := c.Shape(x)
		// The reduced shape (keepdim or not) and x with the dim last.
		var out []int64
		if !hasDim {
			if keep {
				out = make([]int64, len(shape))
				for i := range out {
					out[i] = 1
				}
			}
			x = c.Reshape(x, []int64{numelOf(shape)})
		} else {
			r := len(shape)
			if r == 0 {
				x, shape, r = c.Reshape(x, []int64{1}), []int64{1}, 1
			}
			d, err := canonDim(dim, r)
			if err != nil {
				return nil, c.Errorf("%s(): %w", name, err)
			}
			out = keptShape(shape, []int64{int64(d)}, keep)
			if c.Rank(a.Tensor("self")) == 0 {
				out = nil
			}
			perm := make([]int64, 0, r)
			for i := 0; i < r; i++ {
				if i != d {
					perm = append(perm, int64(i))
				}
			}
			perm = append(perm, int64(d))
			x = emitTranspose(c, x, perm)
		}
		xs := c.Shape(x)
		n := xs[len(xs)-1]
		rows := xs[:len(xs)-1]
		rowsQ := append(append([]int64(nil), rows...), nq)
		var res *stablehlo.Value
		if n == 0 {
			res = c.Splat(dt, rowsQ, math.NaN())
		} else {
			sorted, _ := sortAlong(c, x, len(xs)-1, false)
			last := []int64{int64(len(xs) - 1)}
			nanAny := c.ReduceWith(c.IsNaN(x), last, "or", c.SplatInt(dtype.Bool, nil, 0)) // rows
			qb := c.BroadcastInDim(q, rowsQ, []int64{int64(len(rows))})
			var ranks *stablehlo.Value
			if ignoreNaN {
				cnt := c.Reduce(c.Convert(c.Unary("not", c.IsNaN(x)), dt), last, "add", 0)
				ranks = c.Binary("multiply", qb, c.BroadcastInDim(c.Binary("subtract", cnt, c.Splat(dt, rows, 1)), rowsQ, seqI64(len(rows))))
				// All NaN: rank 0, whose value is NaN.
				ranks = c.Select(c.Compare("LT", ranks, c.Splat(dt, rowsQ, 0)), c.Splat(dt, rowsQ, 0), ranks)
			} else {
				ranks = c.Binary("multiply", qb, c.Splat(dt, rowsQ, float64(n-1)))
				ranks = c.Select(c.BroadcastInDim(nanAny, rowsQ, seqI64(len(rows))), c.Splat(dt, rowsQ, float64(n-1)), ranks)
			}
			switch mode {
			case "lower":
				ranks = c.Unary("floor", ranks)
			case "higher":
				ranks = c.Unary("ceil", ranks)
			case "nearest":
				ranks = c.Unary("round_nearest_even", ranks)
			}
			below := c.Convert(ranks, dtype.I64)
			vb := gatherAlong(c, sorted, len(xs)-1, below)
			res = vb
			if mode == "linear" || mode == "midpoint" {
				var w *stablehlo.Value
				if mode == "midpoint" {
					w = c.Splat(dt, rowsQ, 0.5)
				} else {
					w = c.Binary("subtract", ranks, c.Convert(below, dt))
				}
				above := c.Convert(c.Unary("ceil", ranks), dtype.I64)
				va := gatherAlong(c, sorted, len(xs)-1, above)
				d := c.Binary("subtract", va, vb)
				small := c.Binary("add", vb, c.Binary("multiply", w, d))
				big := c.Binary("subtract", va, c.Binary("multiply", d, c.Binary("subtract", c.Splat(dt, rowsQ, 1), w)))
				res = c.Select(c.Compare("LT", c.Unary("abs", w), c.Splat(dt, rowsQ, 0.5)), small, big)
			}
		}
		// [rows..., Q] → [Q, out...] (or out without the q dim).
		r := len(rowsQ)
		perm := append([]int64{int64(r - 1)}, seqI64(r-1)...)
		res = emitTranspose(c, res, perm)
		final := append([]int64(nil), out...)
		if !scalarQ && len(qShape) == 1 {
			final = append([]int64{nq}, final...)
		}
		return one(c.Reshape(res, final)), nil
	}
}
