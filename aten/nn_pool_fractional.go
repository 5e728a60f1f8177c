package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// fractional_max_pool2d / 3d (PyTorch's CPU kernels): per plane, the
// window starts along each spatial dim come from that plane's random
// sample u: start_i = int((i + u)·α) - int(u·α) with α = (in - k)/(out - 1),
// the last window ending at the input's end. The output is each window's
// maximum (the first one; NaN wins) and its index within the plane.

func init() {
	lower("aten::fractional_max_pool2d", lowerFractionalMaxPool(2))
	lower("aten::fractional_max_pool3d", lowerFractionalMaxPool(3))
}

func lowerFractionalMaxPool(nd int) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, samples := a.Tensor("self"), a.Tensor("random_samples")
		ks, os := a.Ints("kernel_size"), a.Ints("output_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		name := "fractional_max_pool2d"
		if nd == 3 {
			name = "fractional_max_pool3d"
		}
		xs := c.Shape(x)
		if len(ks) != nd || len(os) != nd {
			return nil, c.Errorf("%s: kernel_size and output_size must have %d elements", name, nd)
		}
		if len(xs) != nd+1 && len(xs) != nd+2 || numelOf(xs[len(xs)-nd-1:]) == 0 {
			return nil, c.Errorf("%s: non-empty %dD or %dD (batch mode) tensor expected for input, but got: %v", name, nd+1, nd+2, xs)
		}
		dt := c.DType(x)
		if numelOf(xs) == 0 {
			// An empty batch.
			out := append([]int64{0, xs[1]}, os...)
			return []Value{TensorValue(c.Splat(dt, out, 0)), TensorValue(c.SplatInt(dtype.I64, out, 0))}, nil
		}
		if !dt.IsFloat() {
			return nil, c.Errorf("%s: %s is not supported", name, dt.Torch())
		}
		unbatched := len(xs) == nd+1
		if unbatched {
			x = c.Reshape(x, append([]int64{1}, xs...))
			xs = c.Shape(x)
		}
		B, C := xs[0], xs[1]
		sp := xs[2:]
		for i := range sp {
			if os[i]+ks[i]-1 > sp[i] || ks[i] <= 0 || os[i] <= 0 {
				return nil, c.Errorf("%s(): pool size %d too large relative to input size %d (output %d)", name, ks[i], sp[i], os[i])
			}
		}
		ss := c.Shape(samples)
		if len(ss) != 3 || ss[0] != B || ss[1] != C || ss[2] != int64(nd) {
			return nil, c.Errorf("%s: expected random_samples of shape [%d, %d, %d], got %v", name, B, C, nd, ss)
		}
		// Which sample each spatial dim uses: 2d takes W from 0 and H
		// from 1; 3d takes T, H, W from 0, 1, 2.
		sampleOf := []int{1, 0}
		if nd == 3 {
			sampleOf = []int{0, 1, 2}
		}
		w := OpMath(dt)
		su := c.Convert(samples, w)
		// Gather the windows one spatial dim at a time:
		// [B, C, ..., in_d, ...] → [B, C, ..., out_d·k_d, ...].
		g := x
		for d := 0; d < nd; d++ {
			u := c.Reshape(sliceDim(c, su, 2, int64(sampleOf[d]), 1, 1), []int64{B, C}) // [B, C]
			starts := fracStarts(c, u, sp[d], os[d], ks[d], w)                          // [B, C, out]
			bco := []int64{B, C, os[d], ks[d]}
			idx := c.Binary("add", c.BroadcastInDim(starts, bco, []int64{0, 1, 2}), c.Iota(dtype.I64, bco, 3))
			idx = c.Reshape(idx, []int64{B, C, os[d] * ks[d]})
			gs := append([]int64(nil), c.Shape(g)...)
			gs[2+d] = os[d] * ks[d]
			full := c.BroadcastInDim(idx, gs, []int64{0, 1, int64(2 + d)})
			g = gatherAlong(c, g, 2+d, full)
		}
		// [B, C, o0, k0, o1, k1, ...] → [B, C, o0, o1, ..., k0·k1·...].
		split := []int64{B, C}
		for d := 0; d < nd; d++ {
			split = append(split, os[d], ks[d])
		}
		g = c.Reshape(g, split)
		perm := []int64{0, 1}
		for d := 0; d < nd; d++ {
			perm = append(perm, int64(2+2*d))
		}
		for d := 0; d < nd; d++ {
			perm = append(perm, int64(3+2*d))
		}
		g = emitTranspose(c, g, perm)
		kk := int64(1)
		for _, k := range ks {
			kk *= k
		}
		outShape := append([]int64{B, C}, os...)
		g = c.Reshape(g, append(append([]int64(nil), outShape...), kk))
		// The plane index of every candidate: Σ (start_d + k_d)·stride_d.
		var planeIdx *stablehlo.Value
		stride := int64(1)
		full := append(append([]int64(nil), outShape...), kk)
		kstride := int64(1)
		for d := nd - 1; d >= 0; d-- {
			u := c.Reshape(sliceDim(c, su, 2, int64(sampleOf[d]), 1, 1), []int64{B, C})
			starts := fracStarts(c, u, sp[d], os[d], ks[d], w)
			st := c.BroadcastInDim(starts, full, []int64{0, 1, int64(2 + d)})
			// k_d = (flat kernel index / kstride) mod k_d
			kd := c.Binary("remainder", c.Binary("divide", c.Iota(dtype.I64, full, len(full)-1), c.SplatInt(dtype.I64, full, kstride)), c.SplatInt(dtype.I64, full, ks[d]))
			term := c.Binary("multiply", c.Binary("add", st, kd), c.SplatInt(dtype.I64, full, stride))
			if planeIdx == nil {
				planeIdx = term
			} else {
				planeIdx = c.Binary("add", planeIdx, term)
			}
			stride *= sp[d]
			kstride *= ks[d]
		}
		vals, idx := reduceMaxIndex(c, g, planeIdx, len(full)-1)
		vals, idx = c.Reshape(vals, outShape), c.Reshape(idx, outShape)
		if unbatched {
			vals, idx = c.Reshape(vals, outShape[1:]), c.Reshape(idx, outShape[1:])
		}
		return []Value{TensorValue(vals), TensorValue(idx)}, nil
	}
}

// fracStarts returns the window starts [B, C, out] for samples u [B, C].
func fracStarts(c *LowerCtx, u *stablehlo.Value, in, out, k int64, w dtype.DType) *stablehlo.Value {
	s := c.Shape(u)
	bco := []int64{s[0], s[1], out}
	if out == 1 {
		return c.SplatInt(dtype.I64, bco, in-k)
	}
	alpha := c.Binary("divide", c.Splat(w, nil, float64(in-k)), c.Splat(w, nil, float64(out-1)))
	ab := c.BroadcastTo(alpha, bco)
	ub := c.BroadcastInDim(u, bco, []int64{0, 1})
	i := c.Iota(w, bco, 2)
	first := c.Convert(c.Binary("multiply", c.Binary("add", i, ub), ab), dtype.I64)
	base := c.Convert(c.Binary("multiply", ub, ab), dtype.I64)
	st := c.Binary("subtract", first, base)
	last := c.Compare("EQ", c.Iota(dtype.I64, bco, 2), c.SplatInt(dtype.I64, bco, out-1))
	return c.Select(last, c.SplatInt(dtype.I64, bco, in-k), st)
}
