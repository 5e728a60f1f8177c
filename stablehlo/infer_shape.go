package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

func init() {
	registerInfer(inferConstant, "stablehlo.constant")
	registerInfer(inferBroadcastInDim, "stablehlo.broadcast_in_dim")
	registerInfer(inferBroadcast, "stablehlo.broadcast")
	registerInfer(inferReshape, "stablehlo.reshape")
	registerInfer(inferTranspose, "stablehlo.transpose")
	registerInfer(inferUnary, "stablehlo.reverse")
	registerInfer(inferIota, "stablehlo.iota")
	registerInfer(inferGetDimensionSize, "stablehlo.get_dimension_size")
	registerInfer(inferDynamicGiven, "stablehlo.dynamic_broadcast_in_dim", "stablehlo.dynamic_reshape",
		"stablehlo.dynamic_iota", "stablehlo.dynamic_pad", "stablehlo.real_dynamic_slice",
		"stablehlo.set_dimension_size")
}

func inferConstant(op *Op) ([]Type, error) {
	if err := wantOperands(op, 0); err != nil {
		return nil, err
	}
	switch v := op.Attr("value").(type) {
	case *DenseAttr:
		if v.Type == nil {
			return nil, fmt.Errorf("value attribute has no type")
		}
		return []Type{v.Type}, nil
	case nil:
		return nil, fmt.Errorf("missing attribute value")
	}
	return givenTypes(op) // dense_resource and other forms keep their declared type
}

func inferBroadcastInDim(op *Op) ([]Type, error) {
	t, r, err := soleOperandAndResult(op)
	if err != nil {
		return nil, err
	}
	if !r.IsStatic() {
		return nil, fmt.Errorf("result %v must be static (use dynamic_broadcast_in_dim)", r)
	}
	dims, err := intsAttr(op, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	if len(dims) != t.Rank() {
		return nil, fmt.Errorf("broadcast_dimensions %v has %d entries for an operand of rank %d", dims, len(dims), t.Rank())
	}
	if err := checkUniqueDims("broadcast_dimensions", dims, r.Rank()); err != nil {
		return nil, err
	}
	for i, d := range dims {
		od, rd := t.Shape[i], r.Shape[d]
		if od != 1 && !dimsCompatible(od, rd) {
			return nil, fmt.Errorf("operand dim %d (size %d) cannot broadcast to result dim %d (size %d)", i, od, d, rd)
		}
	}
	if !elemsCompatible(t.Elem, r.Elem) {
		return nil, fmt.Errorf("result element type %v differs from operand %v", r.Elem, t.Elem)
	}
	return []Type{r}, nil
}

func inferBroadcast(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	sizes, err := intsAttr(op, "broadcast_sizes")
	if err != nil {
		return nil, err
	}
	return []Type{withShape(t, append(append([]int64{}, sizes...), t.Shape...))}, nil
}

func inferReshape(op *Op) ([]Type, error) {
	t, r, err := soleOperandAndResult(op)
	if err != nil {
		return nil, err
	}
	if !r.IsStatic() {
		return nil, fmt.Errorf("result %v must be static (use dynamic_reshape)", r)
	}
	if t.IsStatic() && t.NumElements() != r.NumElements() {
		return nil, fmt.Errorf("result %v has %d elements, operand has %d", r, r.NumElements(), t.NumElements())
	}
	if !elemsCompatible(t.Elem, r.Elem) {
		return nil, fmt.Errorf("result element type %v differs from operand %v", r.Elem, t.Elem)
	}
	return []Type{r}, nil
}

func inferTranspose(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	perm, err := intsAttr(op, "permutation")
	if err != nil {
		return nil, err
	}
	if len(perm) != t.Rank() {
		return nil, fmt.Errorf("permutation %v has %d entries for rank %d", perm, len(perm), t.Rank())
	}
	if err := checkUniqueDims("permutation", perm, t.Rank()); err != nil {
		return nil, err
	}
	shape := make([]int64, len(perm))
	for i, p := range perm {
		shape[i] = t.Shape[p]
	}
	return []Type{withShape(t, shape)}, nil
}

func inferIota(op *Op) ([]Type, error) {
	if err := wantOperands(op, 0); err != nil {
		return nil, err
	}
	r, err := givenResult(op, 0)
	if err != nil {
		return nil, err
	}
	if !r.IsStatic() {
		return nil, fmt.Errorf("result %v must be static (use dynamic_iota)", r)
	}
	d, err := intAttr(op, "iota_dimension")
	if err != nil {
		return nil, err
	}
	if err := checkDimIndex("iota_dimension", d, r.Rank()); err != nil {
		return nil, err
	}
	return []Type{r}, nil
}

func inferGetDimensionSize(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	d, err := intAttr(op, "dimension")
	if err != nil {
		return nil, err
	}
	if err := checkDimIndex("dimension", d, t.Rank()); err != nil {
		return nil, err
	}
	return []Type{scalarOf(Elem(dtype.I32))}, nil
}

// Dynamic-shape ops: the result type is declared (its dims may be "?").
func inferDynamicGiven(op *Op) ([]Type, error) {
	if len(op.Operands) == 0 {
		return nil, fmt.Errorf("has no operands")
	}
	if _, err := operandTensors(op); err != nil {
		return nil, err
	}
	r, err := givenResult(op, 0)
	if err != nil {
		return nil, err
	}
	if op.Name == "stablehlo.dynamic_broadcast_in_dim" {
		t, _ := operandTensor(op, 0)
		dims, err := intsAttr(op, "broadcast_dimensions")
		if err != nil {
			return nil, err
		}
		if len(dims) != t.Rank() {
			return nil, fmt.Errorf("broadcast_dimensions %v has %d entries for an operand of rank %d", dims, len(dims), t.Rank())
		}
		if err := checkUniqueDims("broadcast_dimensions", dims, r.Rank()); err != nil {
			return nil, err
		}
	}
	return []Type{r}, nil
}
