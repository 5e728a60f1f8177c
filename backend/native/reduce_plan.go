package native

// The float32 reductions of a small model (softmax maxima, layer-norm
// sums over rows of 64) cost less than their setup: reading the dims and
// the body, building the result shape, the permuted index. That setup
// depends only on the op and the operand shape, so the last plan of each
// op is kept (plan_cache.go) and a repeated
// reduction goes straight to the float32 fold, into an uncleared arena
// buffer (the fold writes every result element).

import (
	"slices"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

type reducePlan struct {
	shape  []int64 // operand shape
	kind   foldKind
	out    []int64 // result shape
	groups int
	size   int
	idx    []int // nil when the reduced dims are the innermost, in order, or leading (cols > 0)
	// rows, cols > 0: a sum over the leading dims (a bias gradient),
	// folded row by row into a vector of column sums (leadingColsF32)
	rows, cols int
}

var reducePlans opCache[*reducePlan]

// reducePlanned switches the planned path (tests compare both).
var reducePlanned = true

// reduceF32Planned runs a one-operand float32 reduce with a binary body
// through its cached plan; ok false means "take evalReduce's general path"
// (which also reports every error).
func reduceF32Planned(env Env, op *stablehlo.Op, in []Value) ([]Value, bool) {
	if !reducePlanned || len(in) != 2 {
		return nil, false
	}
	x, ok1 := in[0].(*literal.Literal)
	init, ok2 := in[1].(*literal.Literal)
	if !ok1 || !ok2 || x == nil || init == nil || x.DType != dtype.F32 || init.DType != dtype.F32 ||
		len(init.Shape) != 0 || len(init.Data) != 4 || len(x.Data) != 4*x.Len() {
		return nil, false
	}
	p := reducePlanFor(op, x.Shape)
	if p == nil {
		return nil, false
	}
	out, err := takeResult(env, dtype.F32, p.out)
	if err != nil {
		return nil, false
	}
	if p.cols > 0 {
		if leadingColsF32(foldAdd, x, init, out, p.rows, p.cols) {
			return []Value{out}, true
		}
		return nil, false
	}
	if !reduceF32(p.kind, x, init, out, p.groups, p.size, p.idx) {
		return nil, false
	}
	return []Value{out}, true
}

// reducePlanFor returns the plan of op on an operand of shape, planning
// it when the op or shape is new; nil when no float32 fold applies.
func reducePlanFor(op *stablehlo.Op, shape []int64) *reducePlan {
	if p, ok := reducePlans.get(op); ok {
		if slices.Equal(p.shape, shape) {
			return p
		}
	}
	dims, ok := op.Ints("dimensions")
	if !ok || len(op.Regions) != 1 || op.Regions[0].Entry() == nil {
		return nil
	}
	kind, ok := foldOf(binaryBody(op.Regions[0]))
	if !ok || (kind != foldAdd && kind != foldMul && kind != foldMax && kind != foldMin) {
		return nil
	}
	if computeResultDType(op, 0, dtype.F32) != dtype.F32 {
		return nil
	}
	perm, out, size, ok := reduceLayout(shape, dims)
	if !ok || checkComputedShape(op, 0, out) != nil {
		return nil
	}
	p := &reducePlan{shape: slices.Clone(shape), kind: kind, out: out, groups: elemCount(out), size: size}
	if !identityPerm(perm) {
		if rows, cols, ok := leadingDims(shape, dims); ok && kind == foldAdd && rows > 0 && cols > 0 {
			p.rows, p.cols = rows, cols // no index to keep
		} else {
			p.idx = permutedIndex(shape, perm)
		}
	}
	reducePlans.put(op, p)
	return p
}
