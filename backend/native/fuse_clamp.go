package native

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// aten's clamp with a constant bound (hardtanh, ReLU6, the relu6 inside
// hardswish and hardsigmoid) lowers each side to nanSelect's
// select(isnan(x), x, maximum(x, c)): NaN stays x itself, bit for bit,
// where maximum would quiet it. As two nodes it is two passes over every
// chunk, and a select reading x twice, which no convolution epilogue
// chain allows. foldClamps makes each side one node, "nanmax" or
// "nanmin" (x, c), with a uniform c: the same values (maximum's result,
// or x where x is NaN), one node reading the one before.

// Names of the folded clamp nodes (fkBinary).
const (
	nodeNaNMax = "torchtpu.nanmax"
	nodeNaNMin = "torchtpu.nanmin"
)

// foldClamps rewrites cmpSelect(NE, x, x, x, m) with m = maximum(x, c) or
// minimum(x, c), m read there alone and c a constant, into one node.
func foldClamps(nodes []fuseNode) {
	refs := make([]int, len(nodes))
	for _, nd := range nodes {
		for _, a := range nd.args[:nodeArity(nd.kind)] {
			refs[a]++
		}
	}
	for i := range nodes {
		nd := &nodes[i]
		if nd.kind != fkCmpSelect || nd.cmp != "NE" || nd.dt != dtype.F32 {
			continue
		}
		x, m := nd.args[0], nd.args[3]
		if nd.args[1] != x || nd.args[2] != x || refs[m] != 1 {
			continue
		}
		mn := &nodes[m]
		if mn.kind != fkBinary || mn.dt != dtype.F32 || mn.args[0] != x || nodes[mn.args[1]].kind != fkScalar {
			continue
		}
		var name string
		switch mn.name {
		case "stablehlo.maximum":
			name = nodeNaNMax
		case "stablehlo.minimum":
			name = nodeNaNMin
		default:
			continue
		}
		if math.IsNaN(nodes[mn.args[1]].scalar) {
			continue // maximum(x, NaN) is NaN: nanMax lowers that side otherwise anyway
		}
		c := mn.args[1]
		*nd = fuseNode{kind: fkBinary, dt: dtype.F32, args: [4]int{x, c}, name: name, bin: mn.bin}
		mn.kind = fkNop
	}
}

// isNaNMinMax reports whether name is a folded clamp node.
func isNaNMinMax(name string) bool { return name == nodeNaNMax || name == nodeNaNMin }

// nanMinMaxRow computes the folded clamp node (name) of rows x and y
// (y uniform, one element, where uy is set) into d: x where x is NaN,
// else maximum or minimum of x and y as the unfused kernels give it.
func nanMinMaxRow[T fnum](name string, d, x, y []T, uy bool) {
	n := len(d)
	x = x[:n]
	if d32, ok := any(d).([]float32); ok && uy && simdRows && n > 0 {
		x32, c := any(x).([]float32), any(y).([]float32)[0]
		op := opMax
		if name == nodeNaNMin {
			op = opMin
		}
		binRS(op, &d32[0], &x32[0], c, n)
		nanSel(d32, x32, d32) // each element of d is read before it is written
		return
	}
	f := fmaximum
	if name == nodeNaNMin {
		f = fminimum
	}
	for k, v := range x {
		c := y[0]
		if !uy {
			c = y[k]
		}
		if v != v {
			d[k] = v
			continue
		}
		d[k] = T(f(float64(v), float64(c)))
	}
}
