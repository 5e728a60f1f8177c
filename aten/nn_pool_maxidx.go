package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// maxPoolFoldLimit is the largest window (in elements) whose indices are
// computed by a fold over strided slices; larger windows use a variadic
// reduce_window with an order-independent comparator.
var maxPoolFoldLimit int64 = 64

// maxPoolIndices returns the flat (per-plane) index of each window's max,
// following PyTorch's CPU kernel: positions are scanned in row-major order
// from the first valid (unpadded) one with maxval = lowest, and a position
// replaces the running max when (val > maxval) || isnan(val). So ties keep
// the first position and several NaNs keep the last one.
//
// Each window offset is one strided slice of the padded input; the fold is
// elementwise compare/select, which the native executor fuses.
func maxPoolIndices(c *LowerCtx, x *stablehlo.Value, g *poolGeom) *stablehlo.Value {
	dt := c.DType(x)
	shape := c.Shape(x)
	rank := len(shape)
	n := g.n
	lead := rank - n
	planeStride := make([]int64, n)
	acc := int64(1)
	for i := n - 1; i >= 0; i-- {
		planeStride[i] = acc
		acc *= g.in[i]
	}
	outFull := append(append([]int64(nil), shape[:lead]...), g.out...)
	dims := seqI64(rank)[lead:]

	// Per output position: the index of the window start (may be negative,
	// inside the padding) and of its first valid position.
	total := numelOf(g.out)
	base, first := make([]int64, total), make([]int64, total)
	for f := int64(0); f < total; f++ {
		rem := f
		for i := n - 1; i >= 0; i-- {
			o := rem % g.out[i]
			rem /= g.out[i]
			st := o*g.s[i] - g.p[i]
			fv := st
			for fv < 0 {
				fv += g.d[i]
			}
			base[f] += st * planeStride[i]
			first[f] += fv * planeStride[i]
		}
	}
	// The index chain runs in float32 while every index is exact there
	// (planes under 2^24 elements, padding included): then it is the same
	// elementwise float chain as the values' (compare, select), which a
	// backend fuses into one loop, converted to int64 once at the end.
	idt := dtype.I64
	bound := int64(1) // every index and partial sum lies in (-bound, bound)
	for i := 0; i < n; i++ {
		bound *= g.in[i] + g.p[i] + g.hi[i] + 1
	}
	if bound < 1<<24 {
		idt = dtype.F32
	}
	index := func(shape []int64, v []int64) *stablehlo.Value {
		if idt == dtype.I64 {
			return constI64(c, shape, v)
		}
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = float64(x)
		}
		return constF(c, idt, shape, f)
	}
	baseFull := c.BroadcastInDim(index(g.out, base), outFull, dims)
	bestI := c.BroadcastInDim(index(g.out, first), outFull, dims)
	bestV := c.BroadcastInDim(lowestConst(c, dt), outFull, []int64{})

	lo, hi := make([]int64, rank), make([]int64, rank)
	for i := 0; i < n; i++ {
		lo[lead+i], hi[lead+i] = g.p[i], g.hi[i]
	}
	xp := x
	if anyNonZero(lo) || anyNonZero(hi) {
		xp = emitPad(c, x, lowestConst(c, dt), lo, hi)
	}
	isFloat := dt.IsFloat()
	k := make([]int64, n) // window offset, row-major
	for {
		st, lim, str := make([]int64, rank), append([]int64(nil), c.Shape(xp)...), onesI64(rank)
		off := int64(0)
		for i := 0; i < n; i++ {
			st[lead+i] = k[i] * g.d[i]
			lim[lead+i] = st[lead+i] + (g.out[i]-1)*g.s[i] + 1
			str[lead+i] = g.s[i]
			off += k[i] * g.d[i] * planeStride[i]
		}
		v := emitSlice(c, xp, st, lim, str)
		take := c.Compare("GT", v, bestV)
		if isFloat {
			take = c.Binary("or", take, c.IsNaN(v))
		}
		idx := c.Binary("add", baseFull, c.BroadcastInDim(index(nil, []int64{off}), outFull, nil))
		bestV = c.Select(take, v, bestV)
		bestI = c.Select(take, idx, bestI)
		i := n - 1
		for ; i >= 0; i-- {
			if k[i]++; k[i] < g.k[i] {
				break
			}
			k[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return c.Convert(bestI, dtype.I64)
}

func anyNonZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// maxPoolIndexBody is the comparator of the large-window variadic
// reduce_window over (value, index), with index -1 for padding. It is
// order-independent and matches PyTorch's CPU scan: NaN wins, among NaNs
// the largest index, among equal values the smallest valid index.
func maxPoolIndexBody(isFloat bool) func(s *LowerCtx, acc, v []*stablehlo.Value) []*stablehlo.Value {
	return func(s *LowerCtx, acc, v []*stablehlo.Value) []*stablehlo.Value {
		av, ai, bv, bi := acc[0], acc[1], v[0], v[1]
		zero := s.SplatInt(dtype.I64, nil, 0)
		gt := s.Compare("GT", bv, av)
		eq := s.Compare("EQ", bv, av)
		firstB := s.Binary("or", s.Compare("LT", ai, zero),
			s.Binary("and", s.Compare("LT", bi, ai), s.Compare("GE", bi, zero)))
		take := s.Binary("or", gt, s.Binary("and", eq, firstB))
		if isFloat {
			bn, an := s.IsNaN(bv), s.IsNaN(av)
			bothNaN := s.Binary("and", bn, an)
			nanTake := s.Binary("or", s.Binary("and", bn, s.Unary("not", an)),
				s.Binary("and", bothNaN, s.Compare("GT", bi, ai)))
			take = s.Select(s.Binary("or", bn, an), nanTake, take)
		}
		return []*stablehlo.Value{s.Select(take, bv, av), s.Select(take, bi, ai)}
	}
}
