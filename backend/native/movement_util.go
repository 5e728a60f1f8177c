package native

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Helpers shared by the data-movement kernels (movement_*.go, gather.go,
// scatter.go, sort.go, topk.go).

// mvInts reads a required integer-list attribute.
func mvInts(op *stablehlo.Op, name string) ([]int64, error) {
	v, ok := op.Ints(name)
	if !ok {
		return nil, fmt.Errorf("%s: missing or non-integer attribute %s", op.Name, name)
	}
	return v, nil
}

// mvOptInts reads an optional integer-list attribute (nil when absent).
func mvOptInts(op *stablehlo.Op, name string) ([]int64, error) {
	if op.Attr(name) == nil {
		return nil, nil
	}
	return mvInts(op, name)
}

// mvInt reads a required integer attribute.
func mvInt(op *stablehlo.Op, name string) (int64, error) {
	v, ok := op.Int(name)
	if !ok {
		return 0, fmt.Errorf("%s: missing or non-integer attribute %s", op.Name, name)
	}
	return v, nil
}

// mvIndex reads element i of an integer tensor as a signed index; unsigned
// values past the int64 range saturate (they are clamped like any other
// out-of-range index).
func mvIndex(l *literal.Literal, i int) int64 {
	v := l.Int64(i)
	if l.DType.IsUnsigned() && v < 0 {
		return math.MaxInt64
	}
	return v
}

// mvIndexList reads a 1-d integer tensor operand (a shape or index vector).
func mvIndexList(op *stablehlo.Op, l *literal.Literal, what string) ([]int64, error) {
	if !mvIsIndexType(l.DType) {
		return nil, fmt.Errorf("%s: %s must have an integer type, got %v", op.Name, what, l)
	}
	if l.Rank() > 1 {
		return nil, fmt.Errorf("%s: %s must be 1-d, got %v", op.Name, what, l)
	}
	out := make([]int64, l.Len())
	for i := range out {
		out[i] = mvIndex(l, i)
	}
	return out, nil
}

// mvScalarIndex reads a 0-d (or one-element) integer tensor.
func mvScalarIndex(op *stablehlo.Op, l *literal.Literal, what string) (int64, error) {
	if !mvIsIndexType(l.DType) {
		return 0, fmt.Errorf("%s: %s must have an integer type, got %v", op.Name, what, l)
	}
	if l.Len() != 1 {
		return 0, fmt.Errorf("%s: %s must be a scalar, got %v", op.Name, what, l)
	}
	return mvIndex(l, 0), nil
}

func mvIsIndexType(d dtype.DType) bool {
	return d.IsInteger() || d == dtype.Index
}

// mvShapeFrom reads a shape operand: a 1-d integer tensor of non-negative
// sizes.
func mvShapeFrom(op *stablehlo.Op, l *literal.Literal, what string) ([]int64, error) {
	s, err := mvIndexList(op, l, what)
	if err != nil {
		return nil, err
	}
	for _, d := range s {
		if d < 0 {
			return nil, fmt.Errorf("%s: %s %v has a negative size", op.Name, what, s)
		}
	}
	if _, err := literal.NumElements(s); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", op.Name, what, err)
	}
	return s, nil
}

// mvDynamicShape reads operand i as the shape (what) of a dynamic op's
// result, checked against the static dims of result 0's type.
func mvDynamicShape(op *stablehlo.Op, in []Value, i int, what string) ([]int64, error) {
	s, err := tensorArg(op, in, i)
	if err != nil {
		return nil, err
	}
	shape, err := mvShapeFrom(op, s, what)
	if err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	return shape, nil
}

// mvResultDType is the element type of result i when its type says, else
// def.
func mvResultDType(op *stablehlo.Op, i int, def dtype.DType) dtype.DType {
	if i < len(op.Results) {
		if t := stablehlo.AsTensor(op.Results[i].Type); t != nil && t.DType() != dtype.Invalid {
			return t.DType()
		}
	}
	return def
}

// mvCheckShape verifies a shape computed from the operands against the
// static dims of result i's type.
func mvCheckShape(op *stablehlo.Op, i int, shape []int64) error {
	if i >= len(op.Results) {
		return fmt.Errorf("%s: missing result #%d", op.Name, i)
	}
	t := stablehlo.AsTensor(op.Results[i].Type)
	if t == nil {
		return nil
	}
	if len(t.Shape) != len(shape) {
		return fmt.Errorf("%s: result type %v does not match the computed shape %v", op.Name, t, shape)
	}
	for d, n := range t.Shape {
		if n != stablehlo.Dynamic && n != shape[d] {
			return fmt.Errorf("%s: result type %v does not match the computed shape %v", op.Name, t, shape)
		}
	}
	return nil
}

// mvStaticResultShape returns result i's static shape, or an error when the
// type is missing or has dynamic dims.
func mvStaticResultShape(op *stablehlo.Op, i int) ([]int64, error) {
	if i >= len(op.Results) {
		return nil, fmt.Errorf("%s: missing result #%d", op.Name, i)
	}
	t := stablehlo.AsTensor(op.Results[i].Type)
	if t == nil {
		return nil, fmt.Errorf("%s: result #%d is not a tensor", op.Name, i)
	}
	if !t.IsStatic() {
		return nil, fmt.Errorf("%s: result type %v has dynamic dims", op.Name, t)
	}
	if _, err := literal.NumElements(t.Shape); err != nil {
		return nil, fmt.Errorf("%s: result type %v: %w", op.Name, t, err)
	}
	return t.Shape, nil
}

// mvNew allocates a zero-filled result, wrapping errors with the op name.
func mvNew(op *stablehlo.Op, dt dtype.DType, shape []int64) (*literal.Literal, error) {
	l, err := literal.New(dt, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return l, nil
}

// mvTake is mvNew for kernels that write every element of their result:
// the buffer comes from env's arena when it has one, not cleared.
func mvTake(env Env, op *stablehlo.Op, dt dtype.DType, shape []int64) (*literal.Literal, error) {
	l, err := takeResult(env, dt, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return l, nil
}

// mvNewEnv is mvNew taking the buffer from env's arena, not cleared: its
// callers (transpose, dynamic_slice, concatenate) write every element.
func mvNewEnv(env Env, op *stablehlo.Op, dt dtype.DType, shape []int64) (*literal.Literal, error) {
	l, err := takeResult(env, dt, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return l, nil
}

// mvAxis checks 0 <= d < rank.
func mvAxis(op *stablehlo.Op, what string, d int64, rank int) error {
	if d < 0 || d >= int64(rank) {
		return fmt.Errorf("%s: %s %d out of range for rank %d", op.Name, what, d, rank)
	}
	return nil
}

// mvAxes checks a list of dims: each in [0, rank) and no repeats.
func mvAxes(op *stablehlo.Op, what string, dims []int64, rank int) error {
	seen := make(map[int64]bool, len(dims))
	for _, d := range dims {
		if err := mvAxis(op, what, d, rank); err != nil {
			return err
		}
		if seen[d] {
			return fmt.Errorf("%s: %s %v repeats dim %d", op.Name, what, dims, d)
		}
		seen[d] = true
	}
	return nil
}

// mvContains reports whether v is in s.
func mvContains(s []int64, v int64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// mvClamp clamps v into [lo, hi] (lo wins when hi < lo).
func mvClamp(v, lo, hi int64) int64 {
	if v > hi {
		v = hi
	}
	if v < lo {
		v = lo
	}
	return v
}

// mvTensors returns operands [from, to) as literals.
func mvTensors(op *stablehlo.Op, in []Value, from, to int) ([]*literal.Literal, error) {
	out := make([]*literal.Literal, 0, to-from)
	for i := from; i < to; i++ {
		l, err := tensorArg(op, in, i)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}
