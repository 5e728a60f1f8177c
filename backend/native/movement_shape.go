package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Shape-changing data movement: reshape, broadcast, transpose, reverse and
// their dynamic forms, get/set_dimension_size.

func init() {
	register("stablehlo.reshape", kReshape)
	register("stablehlo.dynamic_reshape", kDynamicReshape)
	register("stablehlo.broadcast_in_dim", kBroadcastInDim)
	register("stablehlo.dynamic_broadcast_in_dim", kDynamicBroadcastInDim)
	register("stablehlo.broadcast", kBroadcast)
	register("stablehlo.transpose", kTranspose)
	register("stablehlo.reverse", kReverse)
	register("stablehlo.get_dimension_size", kGetDimensionSize)
	register("stablehlo.set_dimension_size", kSetDimensionSize)
}

func kReshape(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	shape, err := mvStaticResultShape(op, 0)
	if err != nil {
		return nil, err
	}
	return mvReshape(op, x, shape)
}

func kDynamicReshape(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	shape, err := mvDynamicShape(op, in, 1, "output_shape")
	if err != nil {
		return nil, err
	}
	return mvReshape(op, x, shape)
}

// mvReshape shares x's bytes under a new shape: values are immutable, so
// no copy is needed.
func mvReshape(op *stablehlo.Op, x *literal.Literal, shape []int64) ([]Value, error) {
	n, err := literal.NumElements(shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	if n != int64(x.Len()) {
		return nil, fmt.Errorf("%s: cannot reshape %v (%d elements) to %v", op.Name, x, x.Len(), shape)
	}
	r := &reshaped{lit: literal.Literal{DType: x.DType, Data: x.Data}}
	if len(shape) <= len(r.shape) {
		r.lit.Shape = append(r.shape[:0:len(shape)], shape...)
	} else {
		r.lit.Shape = append([]int64{}, shape...)
	}
	r.out[0] = &r.lit
	return r.out[:], nil
}

// reshaped is a reshape's result, its shape and the result list in one
// allocation: a reshape is a view, and its three allocations were most of
// its cost (a fused block of the eager device has hundreds).
type reshaped struct {
	lit   literal.Literal
	shape [6]int64
	out   [1]Value
}

func kBroadcastInDim(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	shape, err := mvStaticResultShape(op, 0)
	if err != nil {
		return nil, err
	}
	dims, err := mvInts(op, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	return mvBroadcastInDim(env, op, x, shape, dims)
}

func kDynamicBroadcastInDim(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	shape, err := mvDynamicShape(op, in, 1, "output_dimensions")
	if err != nil {
		return nil, err
	}
	dims, err := mvInts(op, "broadcast_dimensions")
	if err != nil {
		return nil, err
	}
	return mvBroadcastInDim(env, op, x, shape, dims)
}

// kBroadcast is the deprecated broadcast: the result shape is
// broadcast_sizes followed by the operand's shape.
func kBroadcast(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	sizes, err := mvInts(op, "broadcast_sizes")
	if err != nil {
		return nil, err
	}
	shape := append(append([]int64{}, sizes...), x.Shape...)
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	dims := make([]int64, x.Rank())
	for i := range dims {
		dims[i] = int64(len(sizes) + i)
	}
	return mvBroadcastInDim(env, op, x, shape, dims)
}

// mvBroadcastInDim maps operand dim i to result dim dims[i]; size-1
// operand dims expand.
func mvBroadcastInDim(env Env, op *stablehlo.Op, x *literal.Literal, shape, dims []int64) ([]Value, error) {
	if len(dims) != x.Rank() {
		return nil, fmt.Errorf("%s: broadcast_dimensions %v has %d entries for operand %v", op.Name, dims, len(dims), x)
	}
	if err := mvAxes(op, "broadcast_dimensions", dims, len(shape)); err != nil {
		return nil, err
	}
	out, err := mvTake(env, op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	xs := literal.Strides(x.Shape)
	src := make([]int64, len(shape))
	for i, d := range dims {
		switch {
		case x.Shape[i] == shape[d]:
			src[d] = xs[i]
		case x.Shape[i] == 1:
			src[d] = 0
		default:
			return nil, fmt.Errorf("%s: operand %v dim %d cannot broadcast to result dim %d of %v", op.Name, x, i, d, shape)
		}
	}
	copyBox(x.DType.Size(), shape, out.Data, 0, literal.Strides(shape), x.Data, 0, src)
	return []Value{out}, nil
}

func kTranspose(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	perm, err := mvInts(op, "permutation")
	if err != nil {
		return nil, err
	}
	if len(perm) != x.Rank() {
		return nil, fmt.Errorf("%s: permutation %v has %d entries for operand %v", op.Name, perm, len(perm), x)
	}
	if err := mvAxes(op, "permutation", perm, x.Rank()); err != nil {
		return nil, err
	}
	shape := make([]int64, len(perm))
	src := make([]int64, len(perm))
	xs := literal.Strides(x.Shape)
	for i, p := range perm {
		shape[i] = x.Shape[p]
		src[i] = xs[p]
	}
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := mvNewEnv(env, op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	copyBox(x.DType.Size(), shape, out.Data, 0, literal.Strides(shape), x.Data, 0, src)
	return []Value{out}, nil
}

func kReverse(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	dims, err := mvInts(op, "dimensions")
	if err != nil {
		return nil, err
	}
	if err := mvAxes(op, "dimensions", dims, x.Rank()); err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, x.Shape); err != nil {
		return nil, err
	}
	// the copy writes every element: the arena's buffer, not cleared
	out, err := mvTake(env, op, x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	src := literal.Strides(x.Shape)
	off := int64(0)
	for _, d := range dims {
		if x.Shape[d] > 0 {
			off += (x.Shape[d] - 1) * src[d]
		}
		src[d] = -src[d]
	}
	copyBox(x.DType.Size(), x.Shape, out.Data, 0, literal.Strides(x.Shape), x.Data, off, src)
	return []Value{out}, nil
}

func kGetDimensionSize(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	d, err := mvInt(op, "dimension")
	if err != nil {
		return nil, err
	}
	if err := mvAxis(op, "dimension", d, x.Rank()); err != nil {
		return nil, err
	}
	dt := mvResultDType(op, 0, 0)
	if !dt.IsInteger() {
		return nil, fmt.Errorf("%s: result must have an integer type, got %v", op.Name, dt)
	}
	out, err := mvNew(op, dt, nil)
	if err != nil {
		return nil, err
	}
	out.SetInt64(0, x.Shape[d])
	return []Value{out}, nil
}

// kSetDimensionSize sets the runtime size of a (bounded) dim. Tensors are
// stored at their runtime size here, so a dim the result type leaves
// dynamic is cut to the given size; a static result dim keeps the operand.
func kSetDimensionSize(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	s, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	d, err := mvInt(op, "dimension")
	if err != nil {
		return nil, err
	}
	if err := mvAxis(op, "dimension", d, x.Rank()); err != nil {
		return nil, err
	}
	size, err := mvScalarIndex(op, s, "size")
	if err != nil {
		return nil, err
	}
	if size < 0 || size > x.Shape[d] {
		return nil, fmt.Errorf("%s: size %d out of range for dim %d of %v", op.Name, size, d, x)
	}
	if len(op.Results) > 0 {
		t := stablehlo.AsTensor(op.Results[0].Type)
		if t != nil && int(d) < len(t.Shape) && t.Shape[d] != stablehlo.Dynamic {
			return []Value{x}, nil
		}
	}
	limit := append([]int64{}, x.Shape...)
	limit[d] = size
	ones := make([]int64, x.Rank())
	for i := range ones {
		ones[i] = 1
	}
	out, err := mvSlice(env, op, x, make([]int64, x.Rank()), limit, ones)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}
