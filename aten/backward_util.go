package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Small helpers shared by the backward lowerings (backward_*.go).

// maskArg reads a bool[N] argument (output_mask).
func maskArg(a *Args, name string, n int) []bool {
	v := a.Value(name)
	out := make([]bool, n)
	if v.Kind != KList || len(v.List) != n {
		a.Errorf("argument %s: want %d bools, have %v", name, n, v)
		return out
	}
	for i, e := range v.List {
		switch e.Kind {
		case KBool:
			out[i] = e.B
		case KInt:
			out[i] = e.I != 0
		default:
			a.Errorf("argument %s[%d]: want a bool, have %v", name, i, e)
		}
	}
	return out
}

// gradOrNone returns v as a result when want is set, None otherwise (an
// undefined gradient, as PyTorch returns for a false output_mask entry).
func gradOrNone(want bool, v *stablehlo.Value) Value {
	if !want || v == nil {
		return None()
	}
	return TensorValue(v)
}

// sumDims reduces v with add over dims (no kept dims).
func sumDims(c *LowerCtx, v *stablehlo.Value, dims ...int64) *stablehlo.Value {
	return c.Reduce(v, dims, "add", 0)
}

// prod returns the product of xs.
func prod(xs []int64) int64 {
	p := int64(1)
	for _, x := range xs {
		p *= x
	}
	return p
}

// iotaI64 returns 0, 1, ..., n-1.
func iotaI64(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// rowScatter combines upd [K, rest...] into base [R, rest...] at the rows
// idx [K] (int64); out-of-range rows are dropped.
func rowScatter(c *LowerCtx, base, idx, upd *stablehlo.Value, combine func(s *LowerCtx, old, u *stablehlo.Value) *stablehlo.Value) *stablehlo.Value {
	r := c.Rank(base)
	win := make([]int64, r-1)
	for i := range win {
		win[i] = int64(i + 1)
	}
	k := c.Shape(idx)[0]
	s := &stablehlo.ScatterDims{UpdateWindowDims: win, InsertedWindowDims: []int64{0},
		ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	return emitScatter(c, base, c.Reshape(idx, []int64{k, 1}), upd, s, combine)
}

// rowGather returns src [R, rest...] at the rows idx [K] (int64, in range).
func rowGather(c *LowerCtx, src, idx *stablehlo.Value) *stablehlo.Value {
	shape := c.Shape(src)
	off := make([]int64, len(shape)-1)
	for i := range off {
		off[i] = int64(i + 1)
	}
	sizes := append([]int64{1}, shape[1:]...)
	k := c.Shape(idx)[0]
	g := &stablehlo.GatherDims{OffsetDims: off, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1}
	return emitGather(c, src, c.Reshape(idx, []int64{k, 1}), g, sizes)
}

func addCombine(s *LowerCtx, old, u *stablehlo.Value) *stablehlo.Value {
	return s.Binary("add", old, u)
}
