package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

// Slicing, concatenation and padding.

func init() {
	registerInfer(inferSlice, "stablehlo.slice")
	registerInfer(inferDynamicSlice, "stablehlo.dynamic_slice")
	registerInfer(inferDynamicUpdateSlice, "stablehlo.dynamic_update_slice")
	registerInfer(inferConcatenate, "stablehlo.concatenate")
	registerInfer(inferPad, "stablehlo.pad")
}

func inferSlice(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	start, err := intsAttr(op, "start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := intsAttr(op, "limit_indices")
	if err != nil {
		return nil, err
	}
	strides, err := optInts(op, "strides", filled(t.Rank(), 1))
	if err != nil {
		return nil, err
	}
	if len(start) != t.Rank() || len(limit) != t.Rank() || len(strides) != t.Rank() {
		return nil, fmt.Errorf("start %v, limit %v, strides %v must each have %d entries", start, limit, strides, t.Rank())
	}
	shape := make([]int64, t.Rank())
	for i := range shape {
		d := t.Shape[i]
		if start[i] < 0 || limit[i] < start[i] || strides[i] <= 0 || (d != Dynamic && limit[i] > d) {
			return nil, fmt.Errorf("dim %d: slice [%d:%d:%d] is not within size %d", i, start[i], limit[i], strides[i], d)
		}
		shape[i] = (limit[i] - start[i] + strides[i] - 1) / strides[i]
	}
	return []Type{withShape(t, shape)}, nil
}

func checkScalarIndices(op *Op, from, n int) error {
	if len(op.Operands) != from+n {
		return fmt.Errorf("has %d operands, want %d (%d start indices)", len(op.Operands), from+n, n)
	}
	var first dtype.DType
	for i := from; i < from+n; i++ {
		t, err := operandTensor(op, i)
		if err != nil {
			return err
		}
		if t.Rank() != 0 || !(t.DType().IsInteger()) {
			return fmt.Errorf("start index operand %d has type %v, want a 0-d integer tensor", i, t)
		}
		if i == from {
			first = t.DType()
		} else if t.DType() != first {
			return fmt.Errorf("start index operand %d has type %v, others %v", i, t, first)
		}
	}
	return nil
}

func inferDynamicSlice(op *Op) ([]Type, error) {
	t, err := operandTensor(op, 0)
	if err != nil {
		return nil, err
	}
	if err := checkScalarIndices(op, 1, t.Rank()); err != nil {
		return nil, err
	}
	sizes, err := intsAttr(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	if len(sizes) != t.Rank() {
		return nil, fmt.Errorf("slice_sizes %v has %d entries for rank %d", sizes, len(sizes), t.Rank())
	}
	for i, s := range sizes {
		if s < 0 || (t.Shape[i] != Dynamic && s > t.Shape[i]) {
			return nil, fmt.Errorf("slice size %d of dim %d exceeds size %d", s, i, t.Shape[i])
		}
	}
	return []Type{withShape(t, append([]int64{}, sizes...))}, nil
}

func inferDynamicUpdateSlice(op *Op) ([]Type, error) {
	t, err := operandTensor(op, 0)
	if err != nil {
		return nil, err
	}
	u, err := operandTensor(op, 1)
	if err != nil {
		return nil, err
	}
	if err := checkScalarIndices(op, 2, t.Rank()); err != nil {
		return nil, err
	}
	if u.Rank() != t.Rank() || !elemsCompatible(u.Elem, t.Elem) {
		return nil, fmt.Errorf("update %v does not match operand %v", u, t)
	}
	for i := range u.Shape {
		if u.Shape[i] != Dynamic && t.Shape[i] != Dynamic && u.Shape[i] > t.Shape[i] {
			return nil, fmt.Errorf("update dim %d (%d) exceeds operand dim (%d)", i, u.Shape[i], t.Shape[i])
		}
	}
	return []Type{withElem(t, t.Elem)}, nil
}

func inferConcatenate(op *Op) ([]Type, error) {
	if len(op.Operands) == 0 {
		return nil, fmt.Errorf("needs at least one operand")
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	dim, err := intAttr(op, "dimension")
	if err != nil {
		return nil, err
	}
	if err := checkDimIndex("dimension", dim, ts[0].Rank()); err != nil {
		return nil, err
	}
	shape := append([]int64{}, ts[0].Shape...)
	for i, t := range ts[1:] {
		if t.Rank() != len(shape) || !elemsCompatible(t.Elem, ts[0].Elem) {
			return nil, fmt.Errorf("operand %d %v does not match operand 0 %v", i+1, t, ts[0])
		}
		for d := range shape {
			if int64(d) == dim {
				if shape[d] == Dynamic || t.Shape[d] == Dynamic {
					shape[d] = Dynamic
				} else {
					shape[d] += t.Shape[d]
				}
				continue
			}
			if !dimsCompatible(shape[d], t.Shape[d]) {
				return nil, fmt.Errorf("operand %d dim %d is %d, operand 0 has %d", i+1, d, t.Shape[d], shape[d])
			}
			if shape[d] == Dynamic {
				shape[d] = t.Shape[d]
			}
		}
	}
	return []Type{withShape(ts[0], shape)}, nil
}

func inferPad(op *Op) ([]Type, error) {
	if err := wantOperands(op, 2); err != nil {
		return nil, err
	}
	t, err := operandTensor(op, 0)
	if err != nil {
		return nil, err
	}
	pv, err := operandTensor(op, 1)
	if err != nil {
		return nil, err
	}
	if pv.Rank() != 0 || !elemsCompatible(pv.Elem, t.Elem) {
		return nil, fmt.Errorf("padding value %v must be a 0-d tensor of %v", pv, t.Elem)
	}
	lo, err := intsAttr(op, "edge_padding_low")
	if err != nil {
		return nil, err
	}
	hi, err := intsAttr(op, "edge_padding_high")
	if err != nil {
		return nil, err
	}
	in, err := optInts(op, "interior_padding", filled(t.Rank(), 0))
	if err != nil {
		return nil, err
	}
	if len(lo) != t.Rank() || len(hi) != t.Rank() || len(in) != t.Rank() {
		return nil, fmt.Errorf("low %v, high %v, interior %v must each have %d entries", lo, hi, in, t.Rank())
	}
	shape := make([]int64, t.Rank())
	for i, d := range t.Shape {
		if in[i] < 0 {
			return nil, fmt.Errorf("interior padding %d of dim %d is negative", in[i], i)
		}
		if d == Dynamic {
			shape[i] = Dynamic
			continue
		}
		n := lo[i] + hi[i] + d
		if d > 0 {
			n += (d - 1) * in[i]
		}
		if n < 0 {
			return nil, fmt.Errorf("dim %d would have negative size %d", i, n)
		}
		shape[i] = n
	}
	return []Type{withShape(t, shape)}, nil
}
