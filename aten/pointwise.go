package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Shared machinery of the pointwise families (unary.go, binary.go,
// compare.go, pointwise_act.go): PyTorch promotion, computation in the
// CPU's op-math type (float32 for float16/bfloat16) and one rounding to
// the result dtype.

// lower registers a lowered entry.
func lower(name string, f LowerFunc) { Register(Entry{Name: name, Kind: Lowered, Lower: f}) }

// decomp registers a decomposed entry.
func decomp(name string, f LowerFunc) { Register(Entry{Name: name, Kind: Decomposed, Lower: f}) }

// one wraps a single tensor result.
func one(v *stablehlo.Value) []Value { return []Value{TensorValue(v)} }

// floatResult is the result dtype of an "int-to-float" op: the promoted
// dtype if floating or complex, else the default float dtype.
func floatResult(d dtype.DType) dtype.DType {
	if d.IsFloat() || d.IsComplex() {
		return d
	}
	return dtype.DefaultFloat
}

// mathFn computes on values of the op-math dtype.
type mathFn func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value

// pointwise promotes the operands, computes fn in the op-math dtype of the
// result (or of compute when given) and converts to the result dtype.
// toFloat selects int-to-float semantics.
func pointwise(c *LowerCtx, toFloat bool, fn mathFn, ops ...Operand) *stablehlo.Value {
	dt := c.ResultType(ops...)
	if toFloat {
		dt = floatResult(dt)
	}
	return pointwiseAs(c, dt, fn, ops...)
}

// pointwiseAs computes fn over the operands converted to OpMath(dt) and
// broadcast, and rounds the result to dt.
func pointwiseAs(c *LowerCtx, dt dtype.DType, fn mathFn, ops ...Operand) *stablehlo.Value {
	xs := c.Broadcast(OpMath(dt), ops...)
	return c.Convert(fn(c, xs), dt)
}

// unaryMath registers an int-to-float unary op computed by fn.
func unaryMath(name string, fn func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value) {
	lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return fn(c, xs[0]) }, a.Operand("self"))), nil
	})
}

// op1 returns a unary math function emitting one StableHLO or CHLO op.
func op1(name string) func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
		return c.Op1(name, []*stablehlo.Value{x}, nil)
	}
}

// requireFloat reports PyTorch's error for an op that takes only floats.
func requireFloat(c *LowerCtx, what string, d dtype.DType) {
	if !d.IsFloat() && !d.IsComplex() {
		c.Errorf("%s is not implemented for %s tensors", what, d.Torch())
	}
}

// requireIntegral reports PyTorch's error for bitwise ops on floats.
func requireIntegral(c *LowerCtx, what string, d dtype.DType) {
	if d.IsFloat() || d.IsComplex() {
		c.Errorf("%s is only supported for integer and boolean tensors, not %s", what, d.Torch())
	}
}

// nanMax is maximum that propagates NaN (PyTorch's maximum/clamp).
func nanMax(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value {
	return nanSelect(c, c.Binary("maximum", a, b), a, b)
}

// nanMin is minimum that propagates NaN.
func nanMin(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value {
	return nanSelect(c, c.Binary("minimum", a, b), a, b)
}

// nanMaxConst and nanMinConst are nanMax and nanMin against a constant
// bound b that is not NaN: only a can bring a NaN, so only a is tested.
// The values are those of nanMax/nanMin; what is saved is the test of the
// constant, which a backend would otherwise fold into a tensor of a's size.
func nanMaxConst(c *LowerCtx, a, b *stablehlo.Value, bNaN bool) *stablehlo.Value {
	if bNaN {
		return nanMax(c, a, b)
	}
	return nanSelectA(c, c.Binary("maximum", a, b), a)
}

func nanMinConst(c *LowerCtx, a, b *stablehlo.Value, bNaN bool) *stablehlo.Value {
	if bNaN {
		return nanMin(c, a, b)
	}
	return nanSelectA(c, c.Binary("minimum", a, b), a)
}

func nanSelectA(c *LowerCtx, r, a *stablehlo.Value) *stablehlo.Value {
	if !c.DType(r).IsFloat() {
		return r
	}
	return c.Select(c.IsNaN(a), a, r)
}

func nanSelect(c *LowerCtx, r, a, b *stablehlo.Value) *stablehlo.Value {
	if !c.DType(r).IsFloat() {
		return r
	}
	r = c.Select(c.IsNaN(b), b, r)
	return c.Select(c.IsNaN(a), a, r)
}

// scalarOperand returns a Scalar parameter as an Operand.
func scalarOperand(a *Args, name string) Operand {
	s := a.Scalar(name)
	return ScalarOperand(s)
}

// mustDType formats a dtype for errors.
func torchName(d dtype.DType) string {
	if n := d.Torch(); n != "" {
		return n
	}
	return fmt.Sprint(d)
}
