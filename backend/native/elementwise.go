package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Elementwise kernels are described per class of element type: a function
// for i1, for signed and for unsigned integers (given the dtype, to know
// the width), for real floats (computed in float64 and rounded once to the
// result type) and for complex numbers. A nil function means the op does
// not accept that class.

type unaryFns struct {
	b func(x bool) bool
	s func(x int64, d dtype.DType) int64
	u func(x uint64, d dtype.DType) uint64
	f func(x float64) float64
	c func(x complex128) complex128
	// v32 and s32, where set, compute float32 results in float32
	// (package vmath): rows and single values. f32 tensors use them instead
	// of f, in the fused loops and here alike.
	v32 vmathFn
	s32 func(float32) float32
}

type binaryFns struct {
	b func(x, y bool) bool
	s func(x, y int64, d dtype.DType) int64
	u func(x, y uint64, d dtype.DType) uint64
	f func(x, y float64) float64
	c func(x, y complex128) complex128
	// i64, when set, is s over int64 rows (d[k] = x[k] op y[k]): a loop
	// the compiler keeps in registers, not a call per element
	i64 func(d, x, y []int64)
}

// outLiteral allocates the result of an elementwise op: the op's static
// result type when it has one, else shape with dtype d.
func outLiteral(op *stablehlo.Op, d dtype.DType, shape []int64) (*literal.Literal, error) {
	return outLiteralEnv(nil, op, d, shape)
}

// outLiteralEnv is outLiteral taking the buffer from env's arena.
func outLiteralEnv(env Env, op *stablehlo.Op, d dtype.DType, shape []int64) (*literal.Literal, error) {
	if t := resultType(op, 0); t != nil {
		if !shapeEq(t.Shape, shape) {
			return nil, fmt.Errorf("result type %v does not match operand shape %v", t, shape)
		}
		d = t.DType()
	}
	return newResult(env, d, shape)
}

func unsupportedType(d dtype.DType) error {
	return fmt.Errorf("element type %v: %w", d, backend.ErrNotImplemented)
}

func unaryKernel(fns unaryFns) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		out, err := outLiteralEnv(env, op, x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		if out.DType != x.DType {
			return nil, fmt.Errorf("result element type %v differs from operand's %v", out.DType, x.DType)
		}
		if err := applyUnary(fns, x, out); err != nil {
			return nil, err
		}
		return []Value{out}, nil
	}
}

func applyUnary(fns unaryFns, x, out *literal.Literal) error {
	if len(x.Data) != len(out.Data) {
		return fmt.Errorf("operand %v holds %d bytes, result %v %d", x, len(x.Data), out, len(out.Data))
	}
	if fastUnary(fns, x, out) {
		return nil
	}
	d := x.DType
	n := x.Len()
	switch {
	case d.IsBool() && fns.b != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, b2i(fns.b(x.Int64(i) != 0)))
		}
	case d.IsSigned() && fns.s != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, fns.s(x.Int64(i), d))
		}
	case d.IsUnsigned() && fns.u != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, int64(fns.u(x.Uint64(i), d)))
		}
	case d.IsFloat() && fns.f != nil:
		for i := 0; i < n; i++ {
			out.SetFloat64(i, fns.f(x.Float64(i)))
		}
	case d.IsComplex() && fns.c != nil:
		for i := 0; i < n; i++ {
			out.SetComplex128(i, fns.c(x.Complex128(i)))
		}
	default:
		return unsupportedType(d)
	}
	return nil
}

func binaryKernel(fns binaryFns) Kernel {
	return func(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		if len(in) != 2 {
			return nil, fmt.Errorf("want 2 operands, got %d", len(in))
		}
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		y, err := tensorArg(op, in, 1)
		if err != nil {
			return nil, err
		}
		if x.DType != y.DType || !shapeEq(x.Shape, y.Shape) {
			return nil, fmt.Errorf("operands %v and %v differ", x, y)
		}
		out, err := outLiteralEnv(env, op, x.DType, x.Shape)
		if err != nil {
			return nil, err
		}
		if out.DType != x.DType {
			return nil, fmt.Errorf("result element type %v differs from operands' %v", out.DType, x.DType)
		}
		if err := applyBinary(fns, x, y, out); err != nil {
			return nil, err
		}
		return []Value{out}, nil
	}
}

func applyBinary(fns binaryFns, x, y, out *literal.Literal) error {
	if len(x.Data) != len(out.Data) || len(y.Data) != len(out.Data) {
		return fmt.Errorf("operands %v and %v do not match the size of result %v", x, y, out)
	}
	if fastBinary(fns, x, y, out) {
		return nil
	}
	d := x.DType
	n := x.Len()
	switch {
	case d.IsBool() && fns.b != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, b2i(fns.b(x.Int64(i) != 0, y.Int64(i) != 0)))
		}
	case d.IsSigned() && fns.s != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, fns.s(x.Int64(i), y.Int64(i), d))
		}
	case d.IsUnsigned() && fns.u != nil:
		for i := 0; i < n; i++ {
			out.SetInt64(i, int64(fns.u(x.Uint64(i), y.Uint64(i), d)))
		}
	case d.IsFloat() && fns.f != nil:
		for i := 0; i < n; i++ {
			out.SetFloat64(i, fns.f(x.Float64(i), y.Float64(i)))
		}
	case d.IsComplex() && fns.c != nil:
		for i := 0; i < n; i++ {
			out.SetComplex128(i, fns.c(x.Complex128(i), y.Complex128(i)))
		}
	default:
		return unsupportedType(d)
	}
	return nil
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// widthMask is the mask of an integer type's bits.
func widthMask(d dtype.DType) uint64 {
	if d.Bits() >= 64 {
		return ^uint64(0)
	}
	return 1<<d.Bits() - 1
}

// denseLiteral expands a dense attribute into a literal of its type.
func denseLiteral(a *stablehlo.DenseAttr) (*literal.Literal, error) {
	if a == nil || a.Type == nil || a.Value == nil {
		return nil, fmt.Errorf("empty dense attribute")
	}
	if !a.Type.IsStatic() {
		return nil, fmt.Errorf("dense attribute of dynamic type %v", a.Type)
	}
	d := a.Type.DType()
	if a.Value.DType != d {
		return nil, fmt.Errorf("dense attribute holds %v elements for type %v", a.Value.DType, a.Type)
	}
	if !a.Splat {
		if n, err := literal.NumElements(a.Type.Shape); err != nil || int64(a.Value.Len()) != n {
			return nil, fmt.Errorf("dense attribute has %d elements for type %v", a.Value.Len(), a.Type)
		}
		return &literal.Literal{DType: d, Shape: append([]int64{}, a.Type.Shape...), Data: a.Value.Data}, nil
	}
	out, err := literal.New(d, a.Type.Shape)
	if err != nil {
		return nil, err
	}
	if a.Value.Len() < 1 {
		return nil, fmt.Errorf("splat dense attribute without a value")
	}
	sz := d.Size()
	for i := 0; i < len(out.Data); i += sz {
		copy(out.Data[i:i+sz], a.Value.Data[:sz])
	}
	return out, nil
}

func evalConstant(_ Env, op *stablehlo.Op, _ []Value) ([]Value, error) {
	d, ok := op.Attr("value").(*stablehlo.DenseAttr)
	if !ok {
		return nil, fmt.Errorf("value is %T, want a dense attribute", op.Attr("value"))
	}
	l, err := denseLiteral(d)
	if err != nil {
		return nil, err
	}
	return []Value{l}, nil
}

func init() {
	register("stablehlo.constant", evalConstant)
}

// unaryTable and binaryTable hold the per-type functions of the
// elementwise ops by name (for fused or specialised executors).
var (
	unaryTable  = map[string]unaryFns{}
	binaryTable = map[string]binaryFns{}
)

func registerUnary(name string, fns unaryFns) {
	if v, ok := vmathOps[name]; ok {
		fns.v32, fns.s32 = v.row, v.scalar
	}
	unaryTable[name] = fns
	register(name, unaryKernel(fns))
}

func registerBinary(name string, fns binaryFns) {
	binaryTable[name] = fns
	register(name, binaryKernel(fns))
}
