package native

import (
	"slices"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Planning a strided product (reading the dot dims, permuting the shapes,
// merging stride groups) allocates and costs about as much as the product
// itself for the [seq, 64] matrices of a small transformer. A plan depends
// only on the op and the operand shapes, so the last plan of each op is
// kept and reused while the shapes stay the same (a dynamic-seq program
// replans when the sequence length changes).

type dotPlanEntry struct {
	lshape, rshape []int64
	plan           *fastDotPlan
}

var dotPlans opCache[*dotPlanEntry]

// cachedDotShape is stridedDotShape through the per-op plan cache.
func cachedDotShape(op *stablehlo.Op, lhs, rhs *literal.Literal) (*fastDotPlan, bool) {
	if lhs.DType != dtype.F32 || rhs.DType != dtype.F32 {
		return nil, false
	}
	if e, ok := dotPlans.get(op); ok {
		if slices.Equal(e.lshape, lhs.Shape) && slices.Equal(e.rshape, rhs.Shape) {
			return e.plan, true
		}
	}
	p, ok := stridedDotShape(op, lhs, rhs)
	if !ok {
		return nil, false
	}
	e := &dotPlanEntry{lshape: slices.Clone(lhs.Shape), rshape: slices.Clone(rhs.Shape), plan: p}
	dotPlans.put(op, e)
	return p, true
}
