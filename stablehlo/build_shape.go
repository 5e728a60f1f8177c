package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Constant emits stablehlo.constant holding a copy-free reference to lit.
func (fb *FuncBuilder) Constant(lit *literal.Literal) *Value {
	if lit == nil {
		fb.b.fail(fmt.Errorf("stablehlo: build stablehlo.constant: nil literal"))
		return nil
	}
	n, err := literal.NumElements(lit.Shape)
	if err != nil || lit.DType.Size() == 0 || int64(len(lit.Data)) != n*int64(lit.DType.Size()) {
		fb.b.fail(fmt.Errorf("stablehlo: build stablehlo.constant: malformed literal %v with %d bytes", lit, len(lit.Data)))
		return nil
	}
	return fb.ConstantAttr(&DenseAttr{Type: Tensor(lit.DType, lit.Shape...), Value: lit})
}

// ConstantAttr emits stablehlo.constant with the given dense value.
func (fb *FuncBuilder) ConstantAttr(v *DenseAttr) *Value {
	return fb.one("stablehlo.constant", nil, NamedAttr{"value", v})
}

// Full emits a splat constant of the given shape: every element is v
// (converted to d; exact for integers up to 2^53).
func (fb *FuncBuilder) Full(d dtype.DType, shape []int64, v float64) *Value {
	lit, err := literal.New(d, nil)
	if err != nil {
		fb.b.fail(fmt.Errorf("stablehlo: build stablehlo.constant: %w", err))
		return nil
	}
	lit.SetFloat64(0, v)
	return fb.ConstantAttr(splatAttr(Tensor(d, shape...), lit))
}

// FullInt is Full for integer values (exact for all of int64 / uint64 bits).
func (fb *FuncBuilder) FullInt(d dtype.DType, shape []int64, v int64) *Value {
	lit, err := literal.New(d, nil)
	if err != nil {
		fb.b.fail(fmt.Errorf("stablehlo: build stablehlo.constant: %w", err))
		return nil
	}
	lit.SetInt64(0, v)
	return fb.ConstantAttr(splatAttr(Tensor(d, shape...), lit))
}

// splatAttr makes a splat of the one-element literal lit; a type of one
// element holds lit reshaped instead (as the parser represents it).
func splatAttr(t *TensorType, lit *literal.Literal) *DenseAttr {
	if n, err := literal.NumElements(t.Shape); err == nil && n == 1 {
		lit.Shape = append([]int64{}, t.Shape...)
		return &DenseAttr{Type: t, Value: lit}
	}
	return &DenseAttr{Type: t, Value: lit, Splat: true}
}

// Scalar emits a 0-d constant of dtype d.
func (fb *FuncBuilder) Scalar(d dtype.DType, v float64) *Value { return fb.Full(d, nil, v) }

// ScalarInt emits a 0-d integer (or bool) constant of dtype d.
func (fb *FuncBuilder) ScalarInt(d dtype.DType, v int64) *Value { return fb.FullInt(d, nil, v) }

// Iota emits a tensor of type t counting along dim.
func (fb *FuncBuilder) Iota(t *TensorType, dim int64) *Value {
	return fb.oneTyped("stablehlo.iota", nil, t, NamedAttr{"iota_dimension", I64(dim)})
}

// BroadcastInDim broadcasts x to shape; dims[i] is the result dimension of
// operand dimension i.
func (fb *FuncBuilder) BroadcastInDim(x *Value, shape []int64, dims []int64) *Value {
	t := tensorOf(x)
	if t == nil {
		fb.checkOperands("stablehlo.broadcast_in_dim", []*Value{x})
		return nil
	}
	return fb.oneTyped("stablehlo.broadcast_in_dim", []*Value{x}, withShape(t, append([]int64{}, shape...)),
		NamedAttr{"broadcast_dimensions", I64s(dims...)})
}

// Reshape reshapes x (same element count) to shape.
func (fb *FuncBuilder) Reshape(x *Value, shape ...int64) *Value {
	t := tensorOf(x)
	if t == nil {
		fb.checkOperands("stablehlo.reshape", []*Value{x})
		return nil
	}
	return fb.oneTyped("stablehlo.reshape", []*Value{x}, withShape(t, append([]int64{}, shape...)))
}

// Transpose permutes dims: result dim i is operand dim perm[i].
func (fb *FuncBuilder) Transpose(x *Value, perm ...int64) *Value {
	return fb.one("stablehlo.transpose", []*Value{x}, NamedAttr{"permutation", I64s(perm...)})
}

// Slice takes x[start:limit:stride] per dim (strides nil means all 1).
func (fb *FuncBuilder) Slice(x *Value, start, limit, strides []int64) *Value {
	if strides == nil {
		if t := tensorOf(x); t != nil {
			strides = filled(t.Rank(), 1)
		}
	}
	return fb.one("stablehlo.slice", []*Value{x}, NamedAttr{"start_indices", I64s(start...)},
		NamedAttr{"limit_indices", I64s(limit...)}, NamedAttr{"strides", I64s(strides...)})
}

// DynamicSlice slices sizes at runtime start indices (0-d integer tensors).
func (fb *FuncBuilder) DynamicSlice(x *Value, starts []*Value, sizes []int64) *Value {
	return fb.one("stablehlo.dynamic_slice", append([]*Value{x}, starts...), NamedAttr{"slice_sizes", I64s(sizes...)})
}

// DynamicUpdateSlice writes update into x at runtime start indices.
func (fb *FuncBuilder) DynamicUpdateSlice(x, update *Value, starts []*Value) *Value {
	return fb.one("stablehlo.dynamic_update_slice", append([]*Value{x, update}, starts...))
}

// Concatenate joins xs along dim.
func (fb *FuncBuilder) Concatenate(dim int64, xs ...*Value) *Value {
	return fb.one("stablehlo.concatenate", xs, NamedAttr{"dimension", I64(dim)})
}

// Pad pads x with the 0-d value pv: low/high edge padding (negative crops)
// and interior padding per dim (interior nil means none).
func (fb *FuncBuilder) Pad(x, pv *Value, low, high, interior []int64) *Value {
	if interior == nil {
		interior = make([]int64, len(low))
	}
	return fb.one("stablehlo.pad", []*Value{x, pv}, NamedAttr{"edge_padding_low", I64s(low...)},
		NamedAttr{"edge_padding_high", I64s(high...)}, NamedAttr{"interior_padding", I64s(interior...)})
}

// Reverse reverses x along dims.
func (fb *FuncBuilder) Reverse(x *Value, dims ...int64) *Value {
	return fb.one("stablehlo.reverse", []*Value{x}, NamedAttr{"dimensions", I64s(dims...)})
}

// GetDimensionSize returns the runtime size of dim as tensor<i32>.
func (fb *FuncBuilder) GetDimensionSize(x *Value, dim int64) *Value {
	return fb.one("stablehlo.get_dimension_size", []*Value{x}, NamedAttr{"dimension", I64(dim)})
}

// DynamicBroadcastInDim broadcasts x to the runtime shape outShape (a 1-d
// integer tensor); result is the result type (dims may be Dynamic).
func (fb *FuncBuilder) DynamicBroadcastInDim(x, outShape *Value, result *TensorType, dims []int64) *Value {
	return fb.oneTyped("stablehlo.dynamic_broadcast_in_dim", []*Value{x, outShape}, result,
		NamedAttr{"broadcast_dimensions", I64s(dims...)})
}

// DynamicReshape reshapes x to the runtime shape outShape.
func (fb *FuncBuilder) DynamicReshape(x, outShape *Value, result *TensorType) *Value {
	return fb.oneTyped("stablehlo.dynamic_reshape", []*Value{x, outShape}, result)
}

// DynamicIota is Iota with a runtime shape.
func (fb *FuncBuilder) DynamicIota(outShape *Value, result *TensorType, dim int64) *Value {
	return fb.oneTyped("stablehlo.dynamic_iota", []*Value{outShape}, result, NamedAttr{"iota_dimension", I64(dim)})
}

// Tuple packs values (legacy).
func (fb *FuncBuilder) Tuple(xs ...*Value) *Value { return fb.one("stablehlo.tuple", xs) }

// GetTupleElement extracts element i of a tuple (legacy).
func (fb *FuncBuilder) GetTupleElement(t *Value, i int64) *Value {
	return fb.one("stablehlo.get_tuple_element", []*Value{t}, NamedAttr{"index", I32(i)})
}
