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
