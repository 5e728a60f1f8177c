package native

// chlo.ragged_dot: a dot_general where one lhs dim is split into groups of
// the sizes group_sizes gives. Ragged non-contracting dim (mode 1): the
// rows of group j multiply the rhs slice j of the group dim. Ragged
// contracting dim (mode 2): group j contracts only its own range, and the
// groups form a new leading result dim. Ragged batch dim (mode 3): an
// ordinary dot_general.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("chlo.ragged_dot", evalRaggedDot)
}

func evalRaggedDot(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	gs, err := tensorArg(op, in, 2)
	if err != nil {
		return nil, err
	}
	st, ok := op.Attr("ragged_dot_dimension_numbers").(*stablehlo.StructAttr)
	if !ok {
		return nil, fmt.Errorf("%s: missing ragged_dot_dimension_numbers", op.Name)
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
	dims := &stablehlo.DotDims{
		LhsBatchingDims: field("lhs_batching_dimensions"), RhsBatchingDims: field("rhs_batching_dimensions"),
		LhsContractingDims: field("lhs_contracting_dimensions"), RhsContractingDims: field("rhs_contracting_dimensions"),
	}
	ragged, group := field("lhs_ragged_dimensions"), field("rhs_group_dimensions")
	if len(ragged) != 1 || ragged[0] < 0 || int(ragged[0]) >= lhs.Rank() {
		return nil, fmt.Errorf("%s: want one lhs ragged dimension, got %v", op.Name, ragged)
	}
	rd := ragged[0]
	contains := func(s []int64, v int64) bool {
		for _, x := range s {
			if x == v {
				return true
			}
		}
		return false
	}
	outDT := computeResultDType(op, 0, lhs.DType)
	sizes := decodeInts(gs)
	var out *literal.Literal
	switch {
	case contains(dims.LhsBatchingDims, rd):
		p, err := planDotNamed(op.Name, lhs.Shape, rhs.Shape, dims)
		if err != nil {
			return nil, err
		}
		out, err = dotCompute(p, lhs, rhs, outDT)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
	case contains(dims.LhsContractingDims, rd):
		out, err = raggedContracting(op.Name, lhs, rhs, dims, rd, sizes, outDT)
	default:
		if len(group) != 1 || group[0] < 0 || int(group[0]) >= rhs.Rank() {
			return nil, fmt.Errorf("%s: want one rhs group dimension, got %v", op.Name, group)
		}
		out, err = raggedRows(op.Name, lhs, rhs, dims, rd, group[0], gs, sizes, outDT)
	}
	if err != nil {
		return nil, err
	}
	if err := checkComputedShape(op, 0, out.Shape); err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// raggedRows is mode 1.
func raggedRows(name string, lhs, rhs *literal.Literal, dims *stablehlo.DotDims, rd, gd int64,
	gs *literal.Literal, sizes []int64, dt dtype.DType) (*literal.Literal, error) {
	g := rhs.Shape[gd]
	if gs.Rank() < 1 || gs.Shape[gs.Rank()-1] != g {
		return nil, fmt.Errorf("%s: group_sizes %v, want %d groups", name, gs, g)
	}
	shift := func(v []int64) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = x
			if x == gd {
				out[i] = -1
			} else if x > gd {
				out[i] = x - 1
			}
		}
		return out
	}
	rdims := &stablehlo.DotDims{
		LhsBatchingDims: dims.LhsBatchingDims, RhsBatchingDims: shift(dims.RhsBatchingDims),
		LhsContractingDims: dims.LhsContractingDims, RhsContractingDims: shift(dims.RhsContractingDims),
	}
	sliceShape := append(append([]int64(nil), rhs.Shape[:gd]...), rhs.Shape[gd+1:]...)
	p, err := planDotNamed(name, lhs.Shape, sliceShape, rdims)
	if err != nil {
		return nil, err
	}
	// position of the ragged dim among the result dims
	nb := len(dims.LhsBatchingDims)
	pos := nb
	for d := int64(0); d < rd; d++ {
		free := true
		for _, x := range append(append([]int64(nil), dims.LhsBatchingDims...), dims.LhsContractingDims...) {
			if x == d {
				free = false
			}
		}
		if free {
			pos++
		}
	}
	out, err := literal.New(dt, p.shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	batchGroups := len(sizes) / int(g) // 1, or one row of sizes per batch
	ostr := literal.Strides(p.shape)
	batchCount := 1
	for d := 0; d < nb; d++ {
		batchCount *= int(p.shape[d])
	}
	perBatch := batchStride(p.shape, nb)
	sz := dt.Size()
	m := p.shape[pos]
	for j := int64(0); j < g; j++ {
		rj := sliceAlong(rhs, int(gd), j)
		dj, err := dotCompute(p, lhs, rj, dt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		for i := 0; i < out.Len(); i++ {
			b := i / perBatch
			row := int64(i) / ostr[pos] % m
			start := int64(0)
			brow := 0
			if batchGroups > 1 && batchCount == batchGroups {
				brow = b
			}
			for k := int64(0); k < j; k++ {
				start += sizes[brow*int(g)+int(k)]
			}
			end := start + sizes[brow*int(g)+int(j)]
			if row >= start && row < end {
				copy(out.Data[i*sz:(i+1)*sz], dj.Data[i*sz:(i+1)*sz])
			}
		}
	}
	return out, nil
}

// batchStride is the number of elements per index of the flattened batch
// dims (the first nb dims of shape).
func batchStride(shape []int64, nb int) int {
	n := 1
	for _, d := range shape[nb:] {
		n *= int(d)
	}
	return n
}

// raggedContracting is mode 2: result [g, batch..., lhs free..., rhs free...].
func raggedContracting(name string, lhs, rhs *literal.Literal, dims *stablehlo.DotDims, rd int64,
	sizes []int64, dt dtype.DType) (*literal.Literal, error) {
	p, err := planDotNamed(name, lhs.Shape, rhs.Shape, dims)
	if err != nil {
		return nil, err
	}
	g := len(sizes)
	shape := append([]int64{int64(g)}, p.shape...)
	out, err := literal.New(dt, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	per := len(out.Data) / max(g, 1)
	lstr := literal.Strides(lhs.Shape)
	sz := lhs.DType.Size()
	start := int64(0)
	for j := 0; j < g; j++ {
		end := start + sizes[j]
		masked := lhs.Clone()
		for i := 0; i < masked.Len(); i++ {
			c := int64(i) / lstr[rd] % lhs.Shape[rd]
			if c < start || c >= end {
				clear(masked.Data[i*sz : (i+1)*sz])
			}
		}
		dj, err := dotCompute(p, masked, rhs, dt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		copy(out.Data[j*per:(j+1)*per], dj.Data)
		start = end
	}
	return out, nil
}

// sliceAlong returns l at index i of dim d, with that dim removed.
func sliceAlong(l *literal.Literal, d int, i int64) *literal.Literal {
	shape := append(append([]int64(nil), l.Shape[:d]...), l.Shape[d+1:]...)
	out := &literal.Literal{DType: l.DType, Shape: shape}
	sz := l.DType.Size()
	inner := 1
	for _, x := range l.Shape[d+1:] {
		inner *= int(x)
	}
	outer := 1
	for _, x := range l.Shape[:d] {
		outer *= int(x)
	}
	n := int(l.Shape[d])
	out.Data = make([]byte, outer*inner*sz)
	for o := 0; o < outer; o++ {
		src := ((o * n) + int(i)) * inner * sz
		copy(out.Data[o*inner*sz:(o+1)*inner*sz], l.Data[src:src+inner*sz])
	}
	return out
}
