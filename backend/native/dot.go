package native

// dot_general and the deprecated dot.

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.dot_general", evalDotGeneral)
	register("stablehlo.dot", evalDot)
}

func evalDotGeneral(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	dims, ok := op.Attr("dot_dimension_numbers").(*stablehlo.DotDims)
	if !ok {
		return nil, fmt.Errorf("%s: missing dot_dimension_numbers", op.Name)
	}
	out, err := dotGeneral(op, lhs, rhs, dims)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// evalDot is stablehlo.dot: lhs rank 1 or 2, rhs rank 1 or 2, contracting
// the last dim of lhs with the first of rhs.
func evalDot(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	if lhs.Rank() < 1 || lhs.Rank() > 2 || rhs.Rank() < 1 || rhs.Rank() > 2 {
		return nil, fmt.Errorf("%s: operands must have rank 1 or 2, got %v and %v", op.Name, lhs, rhs)
	}
	dims := &stablehlo.DotDims{
		LhsContractingDims: []int64{int64(lhs.Rank() - 1)},
		RhsContractingDims: []int64{0},
	}
	out, err := dotGeneral(op, lhs, rhs, dims)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// dotLayout is a dot_general reduced to a batched matrix product.
type dotLayout struct {
	lhsPerm, rhsPerm []int // lhs to [batch, free, contract]; rhs to [batch, contract, free]
	batch, m, k, n   int
	shape            []int64 // result shape: batch, lhs free, rhs free
}

func planDot(op *stablehlo.Op, lshape, rshape []int64, d *stablehlo.DotDims) (*dotLayout, error) {
	return planDotNamed(op.Name, lshape, rshape, d)
}

func planDotNamed(name string, lshape, rshape []int64, d *stablehlo.DotDims) (*dotLayout, error) {
	if len(d.LhsBatchingDims) != len(d.RhsBatchingDims) {
		return nil, fmt.Errorf("%s: %d lhs batching dims but %d rhs batching dims", name, len(d.LhsBatchingDims), len(d.RhsBatchingDims))
	}
	if len(d.LhsContractingDims) != len(d.RhsContractingDims) {
		return nil, fmt.Errorf("%s: %d lhs contracting dims but %d rhs contracting dims", name, len(d.LhsContractingDims), len(d.RhsContractingDims))
	}
	lused := make([]bool, len(lshape))
	rused := make([]bool, len(rshape))
	mark := func(side string, used []bool, dims []int64) error {
		for _, x := range dims {
			if x < 0 || int(x) >= len(used) {
				return fmt.Errorf("%s: %s dimension %d out of range for rank %d", name, side, x, len(used))
			}
			if used[x] {
				return fmt.Errorf("%s: %s dimension %d used twice", name, side, x)
			}
			used[x] = true
		}
		return nil
	}
	for _, e := range []error{
		mark("lhs", lused, d.LhsBatchingDims), mark("lhs", lused, d.LhsContractingDims),
		mark("rhs", rused, d.RhsBatchingDims), mark("rhs", rused, d.RhsContractingDims),
	} {
		if e != nil {
			return nil, e
		}
	}
	p := &dotLayout{batch: 1, m: 1, k: 1, n: 1}
	for i := range d.LhsBatchingDims {
		l, r := d.LhsBatchingDims[i], d.RhsBatchingDims[i]
		if lshape[l] != rshape[r] {
			return nil, fmt.Errorf("%s: batching dims lhs %d (size %d) and rhs %d (size %d) differ", name, l, lshape[l], r, rshape[r])
		}
		p.lhsPerm = append(p.lhsPerm, int(l))
		p.rhsPerm = append(p.rhsPerm, int(r))
		p.batch *= int(lshape[l])
		p.shape = append(p.shape, lshape[l])
	}
	for i, used := range lused {
		if !used {
			p.lhsPerm = append(p.lhsPerm, i)
			p.m *= int(lshape[i])
			p.shape = append(p.shape, lshape[i])
		}
	}
	for i := range d.LhsContractingDims {
		l, r := d.LhsContractingDims[i], d.RhsContractingDims[i]
		if lshape[l] != rshape[r] {
			return nil, fmt.Errorf("%s: contracting dims lhs %d (size %d) and rhs %d (size %d) differ", name, l, lshape[l], r, rshape[r])
		}
		p.lhsPerm = append(p.lhsPerm, int(l))
		p.rhsPerm = append(p.rhsPerm, int(r))
		p.k *= int(lshape[l])
	}
	for i, used := range rused {
		if !used {
			p.rhsPerm = append(p.rhsPerm, i)
			p.n *= int(rshape[i])
			p.shape = append(p.shape, rshape[i])
		}
	}
	if p.shape == nil {
		p.shape = []int64{}
	}
	return p, nil
}

// dotGeneral computes a dot_general into a new literal of the op's result
// element type, accumulating in the type accumulatorFor picks.
func dotGeneral(op *stablehlo.Op, lhs, rhs *literal.Literal, d *stablehlo.DotDims) (*literal.Literal, error) {
	p, err := planDot(op, lhs.Shape, rhs.Shape, d)
	if err != nil {
		return nil, err
	}
	if err := checkComputedShape(op, 0, p.shape); err != nil {
		return nil, err
	}
	dt := computeResultDType(op, 0, lhs.DType)
	if alg, ok := readDotAlgorithm(op); ok && lhs.DType.IsFloat() && rhs.DType.IsFloat() && dt.IsFloat() {
		out, err := dotWithAlgorithm(p, lhs, rhs, dt, alg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		return out, nil
	}
	out, err := dotCompute(p, lhs, rhs, dt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return out, nil
}

// dotCompute runs a planned dot into a new literal of element type dt.
func dotCompute(p *dotLayout, lhs, rhs *literal.Literal, dt dtype.DType) (*literal.Literal, error) {
	out, err := literal.New(dt, p.shape)
	if err != nil {
		return nil, err
	}
	lidx := permIndexOrNil(lhs.Shape, p.lhsPerm)
	ridx := permIndexOrNil(rhs.Shape, p.rhsPerm)
	c := p.batch * p.m * p.n
	switch accumulatorFor(out.DType) {
	case accF64:
		r := make([]float64, c)
		gemmF64(p.batch, p.m, p.k, p.n, loadF64(lhs, lidx), loadF64(rhs, ridx), r)
		encodeFloats(out, r)
	case accF32:
		r := make([]float32, c)
		gemmF32(p.batch, p.m, p.k, p.n, loadF32(lhs, lidx), loadF32(rhs, ridx), r)
		encodeFloats(out, fromF32s(r))
	case accC128:
		r := make([]complex128, c)
		gemmC128(p.batch, p.m, p.k, p.n, loadC128(lhs, lidx), loadC128(rhs, ridx), r)
		encodeComplexes(out, r)
	case accC64:
		r := make([]complex64, c)
		gemmC64(p.batch, p.m, p.k, p.n, toC64s(loadC128(lhs, lidx)), toC64s(loadC128(rhs, ridx)), r)
		encodeComplexes(out, fromC64s(r))
	default:
		r := make([]int64, c)
		gemmI64(p.batch, p.m, p.k, p.n, loadI64(lhs, lidx), loadI64(rhs, ridx), r)
		encodeInts(out, r)
	}
	return out, nil
}
