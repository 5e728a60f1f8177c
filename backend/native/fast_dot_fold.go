package native

import (
	"slices"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Transposes read by products, folded into them: a float32 dot_general
// of transpose(x) reads x in place, its dimension numbers renamed through
// the permutation, where the fast path (fast_dot.go) then reads every
// group of x's dims with one stride (or the batch dims as two runs). An
// attention's heads, [b, t, h, d] projections transposed to [b, h, t, d]
// for their products, are read as [b, h] batches of [t, d] rows of
// stride h·d instead of being copied first. A transpose no other op reads
// is then not run at all. The products are the same sums in the same
// order over the same values: the bits do not change.

// foldTransposesEnabled switches the fold (tests compare both).
var foldTransposesEnabled = true

// foldDotTransposes returns, for the ops of block b, the dot_generals to
// plan instead of b's (by the op they replace) and the transposes left
// with no reader.
func foldDotTransposes(b *stablehlo.Block) (map[*stablehlo.Op]*stablehlo.Op, map[*stablehlo.Op]bool) {
	if !foldTransposesEnabled {
		return nil, nil
	}
	transposeOf := map[*stablehlo.Value]*stablehlo.Op{}
	for _, op := range b.Ops {
		if op.Name == "stablehlo.transpose" && len(op.Operands) == 1 && len(op.Results) == 1 {
			transposeOf[op.Results[0]] = op
		}
	}
	if len(transposeOf) == 0 {
		return nil, nil
	}
	uses := map[*stablehlo.Value]int{}
	countUses(b, uses)
	var repl map[*stablehlo.Op]*stablehlo.Op
	for _, op := range b.Ops {
		if op.Name != "stablehlo.dot_general" || len(op.Operands) != 2 {
			continue
		}
		cur := op
		for side := 0; side < 2; side++ {
			t := transposeOf[cur.Operands[side]]
			if t == nil {
				continue
			}
			if folded, ok := foldTransposeInto(cur, side, t); ok {
				uses[cur.Operands[side]]--
				cur = folded
			}
		}
		if cur != op {
			if repl == nil {
				repl = map[*stablehlo.Op]*stablehlo.Op{}
			}
			repl[op] = cur
		}
	}
	if repl == nil {
		return nil, nil
	}
	skip := map[*stablehlo.Op]bool{}
	for v, t := range transposeOf {
		if uses[v] == 0 {
			skip[t] = true
		}
	}
	return repl, skip
}

// countUses adds the reads of each value by the ops of b and of their
// regions (implicit captures included) to uses.
func countUses(b *stablehlo.Block, uses map[*stablehlo.Value]int) {
	for _, op := range b.Ops {
		for _, v := range op.Operands {
			uses[v]++
		}
		for _, r := range op.Regions {
			for _, sub := range r.Blocks {
				countUses(sub, uses)
			}
		}
	}
}

// foldTransposeInto returns dot reading transpose t's operand in place as
// its operand side, when the fast path takes the result (static float32
// shapes, each group of dims of one stride) and the free dims keep their
// order (the result's dims are the same).
func foldTransposeInto(dot *stablehlo.Op, side int, t *stablehlo.Op) (*stablehlo.Op, bool) {
	dims, ok := dot.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
	if !ok {
		return nil, false
	}
	perm, ok := transposePerm(t)
	x := t.Operands[0]
	xt := staticType(x)
	if !ok || xt == nil || xt.DType() != dtype.F32 || len(perm) != len(xt.Shape) {
		return nil, false
	}
	batch, contract := dims.LhsBatchingDims, dims.LhsContractingDims
	if side == 1 {
		batch, contract = dims.RhsBatchingDims, dims.RhsContractingDims
	}
	used := make([]bool, len(perm))
	rename := func(ds []int64) ([]int64, bool) {
		out := make([]int64, len(ds))
		for i, d := range ds {
			if d < 0 || int(d) >= len(perm) {
				return nil, false
			}
			used[d] = true
			out[i] = perm[d]
		}
		return out, true
	}
	nb, ok1 := rename(batch)
	nc, ok2 := rename(contract)
	if !ok1 || !ok2 {
		return nil, false
	}
	// the free dims, in the transpose's order, must stay in increasing
	// order of x's dims: the result lists them that way
	last := int64(-1)
	for d, u := range used {
		if u {
			continue
		}
		if perm[d] < last {
			return nil, false
		}
		last = perm[d]
	}
	nd := *dims
	if side == 0 {
		nd.LhsBatchingDims, nd.LhsContractingDims = nb, nc
	} else {
		nd.RhsBatchingDims, nd.RhsContractingDims = nb, nc
	}
	folded := &stablehlo.Op{Name: dot.Name, Operands: slices.Clone(dot.Operands), Results: dot.Results,
		Attrs: slices.Clone(dot.Attrs), Regions: dot.Regions, Loc: dot.Loc}
	folded.Operands[side] = x
	for i := range folded.Attrs {
		if folded.Attrs[i].Name == "dot_dimension_numbers" {
			folded.Attrs[i].Value = &nd
		}
	}
	// the fast path must take it, on the shapes of every run
	lt, rt := staticType(folded.Operands[0]), staticType(folded.Operands[1])
	if lt == nil || rt == nil {
		return nil, false
	}
	lhs := &literal.Literal{DType: lt.DType(), Shape: lt.Shape}
	rhs := &literal.Literal{DType: rt.DType(), Shape: rt.Shape}
	if _, ok := stridedDotShape(folded, lhs, rhs); !ok {
		return nil, false
	}
	return folded, true
}
