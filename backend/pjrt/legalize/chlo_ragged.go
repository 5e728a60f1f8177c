package legalize

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// rewriteRaggedDot lowers chlo.ragged_dot (XLA:CPU has no ragged-dot
// kernel) to dot_general and selects:
//   - a ragged batch dim (mode 3) is an ordinary dot_general;
//   - a ragged non-contracting dim (mode 1): the product with every group
//     of the rhs (its group dim a free dim), then per group the rows of
//     that group picked by iota against the group's bounds;
//   - a ragged contracting dim (mode 2): per group, the lhs masked to the
//     group's range along the dim, the products stacked as a new leading
//     result dim.
func rewriteRaggedDot(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	if len(op.Operands) != 3 || len(op.Results) != 1 {
		return nil, nil, fmt.Errorf("chlo.ragged_dot with %d operands", len(op.Operands))
	}
	st, ok := op.Attr("ragged_dot_dimension_numbers").(*stablehlo.StructAttr)
	if !ok {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: missing ragged_dot_dimension_numbers")
	}
	field := func(name string) []int64 {
		for _, f := range st.Fields {
			if f.Name == name {
				v, _ := stablehlo.AttrInts(f.Value)
				return v
			}
		}
		return nil
	}
	dims := stablehlo.DotDims{
		LhsBatchingDims: field("lhs_batching_dimensions"), RhsBatchingDims: field("rhs_batching_dimensions"),
		LhsContractingDims: field("lhs_contracting_dimensions"), RhsContractingDims: field("rhs_contracting_dimensions"),
	}
	ragged, group := field("lhs_ragged_dimensions"), field("rhs_group_dimensions")
	lhs, rhs, gs := op.Operands[0], op.Operands[1], op.Operands[2]
	lt, rt, gt := stablehlo.AsTensor(lhs.Type), stablehlo.AsTensor(rhs.Type), stablehlo.AsTensor(gs.Type)
	res := stablehlo.AsTensor(op.Results[0].Type)
	if lt == nil || rt == nil || gt == nil || res == nil || !res.IsStatic() || gt.Rank() < 1 {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: operand types")
	}
	if len(ragged) != 1 || ragged[0] < 0 || int(ragged[0]) >= lt.Rank() {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: want one lhs ragged dimension, got %v", ragged)
	}
	rd := ragged[0]
	out := res.DType()
	fb := stablehlo.NewOpsBuilder(op.Loc)
	g := gt.Shape[gt.Rank()-1]
	sizes := fb.Convert(gs, dtype.I64)
	// bounds returns the start and end of group j: tensors of group_sizes'
	// leading (batch) shape.
	lead := gt.Shape[:gt.Rank()-1]
	bounds := func(j int64) (*stablehlo.Value, *stablehlo.Value) {
		last := int64(gt.Rank() - 1)
		sl := func(from, to int64) *stablehlo.Value {
			start := make([]int64, gt.Rank())
			limit := append([]int64{}, gt.Shape...)
			start[last], limit[last] = from, to
			return fb.Slice(sizes, start, limit, nil)
		}
		zero := fb.BroadcastInDim(fb.ScalarInt(dtype.I64, 0), lead, nil)
		start := zero
		if j > 0 {
			start = fb.ReduceWith(sl(0, j), fb.ScalarInt(dtype.I64, 0), []int64{last}, "add")
		}
		size := fb.Reshape(sl(j, j+1), lead...)
		return start, fb.Add(start, size)
	}
	contains := func(s []int64, v int64) bool {
		for _, x := range s {
			if x == v {
				return true
			}
		}
		return false
	}
	switch {
	case contains(dims.LhsBatchingDims, rd):
		return one(fb, fb.DotGeneralAs(out, lhs, rhs, dims))
	case contains(dims.LhsContractingDims, rd):
		var parts []*stablehlo.Value
		for j := int64(0); j < g; j++ {
			start, end := bounds(j)
			pos := fb.Iota(stablehlo.Tensor(dtype.I64, lt.Shape...), rd)
			in := fb.And(fb.Compare("GE", pos, fb.BroadcastInDim(start, lt.Shape, nil), "SIGNED"),
				fb.Compare("LT", pos, fb.BroadcastInDim(end, lt.Shape, nil), "SIGNED"))
			masked := fb.Select(in, lhs, fb.BroadcastInDim(fb.Full(lt.DType(), nil, 0), lt.Shape, nil))
			p := fb.DotGeneralAs(out, masked, rhs, dims)
			parts = append(parts, fb.Reshape(p, append([]int64{1}, res.Shape[1:]...)...))
		}
		return one(fb, fb.Concatenate(0, parts...))
	}
	if len(group) != 1 || group[0] < 0 || int(group[0]) >= rt.Rank() {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: want one rhs group dimension, got %v", group)
	}
	gd := group[0]
	full := fb.DotGeneralAs(out, lhs, rhs, dims) // [batch, lhs free, rhs free (the group dim among them)]
	nb := len(dims.LhsBatchingDims)
	lfree, rfree := 0, 0
	pos := -1 // the ragged dim among the result dims
	for d := 0; d < lt.Rank(); d++ {
		if contains(dims.LhsBatchingDims, int64(d)) || contains(dims.LhsContractingDims, int64(d)) {
			continue
		}
		if int64(d) == rd {
			pos = nb + lfree
		}
		lfree++
	}
	gpos := -1 // the group dim among the full product's dims
	for d := 0; d < rt.Rank(); d++ {
		if contains(dims.RhsBatchingDims, int64(d)) || contains(dims.RhsContractingDims, int64(d)) {
			continue
		}
		if int64(d) == gd {
			gpos = nb + lfree + rfree
		}
		rfree++
	}
	if pos < 0 || gpos < 0 {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: ragged dim %d or group dim %d is not free", rd, gd)
	}
	ft := typeOf(full)
	if ft == nil {
		return nil, nil, fmt.Errorf("chlo.ragged_dot: %w", fb.Err())
	}
	acc := fb.BroadcastInDim(fb.Full(out, nil, 0), res.Shape, nil)
	for j := int64(0); j < g; j++ {
		start := make([]int64, ft.Rank())
		limit := append([]int64{}, ft.Shape...)
		start[gpos], limit[gpos] = j, j+1
		keep := append(append([]int64{}, ft.Shape[:gpos]...), ft.Shape[gpos+1:]...)
		dj := fb.Reshape(fb.Slice(full, start, limit, nil), keep...)
		lo, hi := bounds(j)
		var bdims []int64 // group_sizes' batch dims are the result's leading dims
		for i := range lead {
			bdims = append(bdims, int64(i))
		}
		row := fb.Iota(stablehlo.Tensor(dtype.I64, res.Shape...), int64(pos))
		in := fb.And(fb.Compare("GE", row, fb.BroadcastInDim(lo, res.Shape, bdims), "SIGNED"),
			fb.Compare("LT", row, fb.BroadcastInDim(hi, res.Shape, bdims), "SIGNED"))
		acc = fb.Select(in, dj, acc)
	}
	return one(fb, acc)
}
