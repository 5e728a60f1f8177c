package stablehlo

import "fmt"

// Helpers for rules of ops with regions: block signatures and terminators.

// regionBlock returns the single block of region i.
func regionBlock(op *Op, i int) (*Block, error) {
	if i >= len(op.Regions) {
		return nil, fmt.Errorf("missing region %d (have %d)", i, len(op.Regions))
	}
	b := op.Regions[i].Entry()
	if b == nil {
		return nil, fmt.Errorf("region %d is empty", i)
	}
	return b, nil
}

// returnedTypes returns the operand types of the block's terminator, which
// must be a return op (stablehlo.return, or func.return in loose input).
func returnedTypes(b *Block) ([]Type, error) {
	if len(b.Ops) == 0 {
		return nil, fmt.Errorf("block has no terminator")
	}
	t := b.Ops[len(b.Ops)-1]
	if t.Name != "stablehlo.return" && t.Name != "func.return" && t.Name != "mhlo.return" {
		return nil, fmt.Errorf("block ends with %s, want stablehlo.return", t.Name)
	}
	out := make([]Type, len(t.Operands))
	for i, v := range t.Operands {
		if v == nil || v.Type == nil {
			return nil, fmt.Errorf("return operand %d is undefined", i)
		}
		out[i] = v.Type
	}
	return out, nil
}

// regionReturns returns the terminator operand types of region i.
func regionReturns(op *Op, i int) ([]Type, error) {
	b, err := regionBlock(op, i)
	if err != nil {
		return nil, err
	}
	ts, err := returnedTypes(b)
	if err != nil {
		return nil, fmt.Errorf("region %d: %w", i, err)
	}
	return ts, nil
}

// checkBlockArgs checks the block arguments of region i against want.
func checkBlockArgs(op *Op, i int, want []Type) error {
	b, err := regionBlock(op, i)
	if err != nil {
		return err
	}
	if len(b.Args) != len(want) {
		return fmt.Errorf("region %d has %d arguments, want %d", i, len(b.Args), len(want))
	}
	for j, a := range b.Args {
		if a == nil || !TypesCompatible(want[j], a.Type) {
			return fmt.Errorf("region %d argument %d has type %v, want %v", i, j, typeOf(a), want[j])
		}
	}
	return nil
}

func typeOf(v *Value) Type {
	if v == nil {
		return nil
	}
	return v.Type
}

// scalarBody checks a reduction-style body: 2n scalar arguments (the
// accumulators then the elements, of elems[k]) returning n scalars; it
// returns the returned element types (which may be wider than the inputs,
// as StableHLO allows element-type promotion in reductions).
func scalarBody(op *Op, region int, elems []ElemType) ([]ElemType, error) {
	b, err := regionBlock(op, region)
	if err != nil {
		return nil, err
	}
	n := len(elems)
	if len(b.Args) != 2*n {
		return nil, fmt.Errorf("region %d has %d arguments, want %d", region, len(b.Args), 2*n)
	}
	for j, a := range b.Args {
		t := AsTensor(typeOf(a))
		if t == nil || t.Rank() != 0 {
			return nil, fmt.Errorf("region %d argument %d has type %v, want a 0-d tensor", region, j, typeOf(a))
		}
		if e := elems[j%n]; !elemsCompatible(e, t.Elem) && !promotable(e, t.Elem) {
			return nil, fmt.Errorf("region %d argument %d has type %v for values of %v", region, j, t, e)
		}
	}
	rets, err := regionReturns(op, region)
	if err != nil {
		return nil, err
	}
	if len(rets) != n {
		return nil, fmt.Errorf("region %d returns %d values, want %d", region, len(rets), n)
	}
	out := make([]ElemType, len(rets))
	for j, r := range rets {
		t := AsTensor(r)
		if t == nil || t.Rank() != 0 {
			return nil, fmt.Errorf("region %d returns %v at %d, want a 0-d tensor", region, r, j)
		}
		out[j] = t.Elem
	}
	return out, nil
}
