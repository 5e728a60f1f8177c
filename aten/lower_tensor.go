package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Tensor-level helpers shared by every lowering: constants, conversion,
// broadcasting, PyTorch promotion, elementwise ops and comparisons.

// Const emits a constant holding lit.
func (c *LowerCtx) Const(lit *literal.Literal) *stablehlo.Value {
	t := stablehlo.Tensor(lit.DType, lit.Shape...)
	return c.Op1("stablehlo.constant", nil, []stablehlo.NamedAttr{Attr("value", &stablehlo.DenseAttr{Type: t, Value: lit})})
}

// Splat emits a constant of the given shape with every element v (a float
// converted to dt as PyTorch converts: truncation for integers, nonzero →
// true for bool, round-to-nearest-even for narrow floats).
func (c *LowerCtx) Splat(dt dtype.DType, shape []int64, v float64) *stablehlo.Value {
	lit, _ := literal.New(dt, nil)
	setFloat(lit, v)
	return c.splatLit(lit, shape)
}

// SplatInt is Splat for an exact integer value.
func (c *LowerCtx) SplatInt(dt dtype.DType, shape []int64, v int64) *stablehlo.Value {
	lit, _ := literal.New(dt, nil)
	if dt.IsFloat() || dt.IsComplex() {
		lit.SetFloat64(0, float64(v))
	} else {
		lit.SetInt64(0, v)
	}
	return c.splatLit(lit, shape)
}

func (c *LowerCtx) splatLit(lit *literal.Literal, shape []int64) *stablehlo.Value {
	t := stablehlo.Tensor(lit.DType, shape...)
	return c.Op1("stablehlo.constant", nil, []stablehlo.NamedAttr{Attr("value", &stablehlo.DenseAttr{Type: t, Value: lit, Splat: true})})
}

func setFloat(lit *literal.Literal, v float64) {
	switch {
	case lit.DType == dtype.Bool:
		if v != 0 || math.IsNaN(v) {
			lit.SetInt64(0, 1)
		}
	case lit.DType.IsFloat() || lit.DType.IsComplex():
		lit.SetFloat64(0, v)
	case math.IsNaN(v) || math.IsInf(v, 0):
		lit.SetInt64(0, math.MinInt64) // undefined in PyTorch; x86 gives INT_MIN
	default:
		lit.SetInt64(0, int64(v))
	}
}

// ScalarConst emits a 0-dim constant of dt holding the Python scalar s,
// converted directly from its Python value (no intermediate float32).
func (c *LowerCtx) ScalarConst(s Scalar, dt dtype.DType) *stablehlo.Value {
	return c.ScalarFull(s, dt, nil)
}

// ScalarFull is ScalarConst with a shape.
func (c *LowerCtx) ScalarFull(s Scalar, dt dtype.DType, shape []int64) *stablehlo.Value {
	if s.Kind == KComplex && dt.IsComplex() {
		lit, _ := literal.New(dt, nil)
		lit.SetComplex128(0, s.C)
		return c.splatLit(lit, shape)
	}
	if s.Kind == KInt && !dt.IsFloat() && !dt.IsComplex() {
		if dt == dtype.Bool {
			return c.SplatInt(dt, shape, b2i(s.I != 0))
		}
		return c.SplatInt(dt, shape, s.I)
	}
	return c.Splat(dt, shape, s.Float())
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Convert converts v to dt with PyTorch's rules (to bool: x != 0).
func (c *LowerCtx) Convert(v *stablehlo.Value, dt dtype.DType) *stablehlo.Value {
	t := c.Type(v)
	if t.DType() == dt {
		return v
	}
	if t.DType().IsComplex() && !dt.IsComplex() && dt != dtype.Bool {
		// PyTorch drops the imaginary part (with a warning).
		return c.Convert(c.Unary("real", v), dt)
	}
	if dt == dtype.Bool {
		return c.Compare("NE", v, c.Splat(t.DType(), t.Shape, 0))
	}
	if t.DType().IsFloat() && dt.IsInteger() {
		v = c.x86Trunc(v, dt)
		if c.DType(v) == dt {
			return v
		}
	}
	return c.Op1("stablehlo.convert", []*stablehlo.Value{v}, nil, stablehlo.Tensor(dt, t.Shape...))
}

// x86Trunc converts a float tensor to an integer type the way PyTorch's CPU
// does on x86: truncation through a 32-bit integer (64-bit for 64-bit and
// unsigned 32-bit targets), where NaN and out-of-range values give the
// wide type's minimum, then wrap-around to the target width.
func (c *LowerCtx) x86Trunc(v *stablehlo.Value, dt dtype.DType) *stablehlo.Value {
	t := c.Type(v)
	wide, bits := dtype.I32, 32
	if dt.Bits() == 64 || dt == dtype.U32 {
		wide, bits = dtype.I64, 64
	}
	lim := math.Ldexp(1, bits-1)
	r := c.Op1("stablehlo.convert", []*stablehlo.Value{v}, nil, stablehlo.Tensor(wide, t.Shape...))
	bad := c.Binary("or", c.IsNaN(v), c.Binary("or",
		c.Compare("GE", v, c.Splat(t.DType(), t.Shape, lim)), c.Compare("LT", v, c.Splat(t.DType(), t.Shape, -lim))))
	r = c.Select(bad, c.SplatInt(wide, t.Shape, -1<<(bits-1)), r)
	if wide == dt {
		return r
	}
	return c.Op1("stablehlo.convert", []*stablehlo.Value{r}, nil, stablehlo.Tensor(dt, t.Shape...))
}

// BroadcastShapes returns the broadcast of shapes (NumPy rules).
func (c *LowerCtx) BroadcastShapes(shapes ...[]int64) []int64 {
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		off := n - len(s)
		for i, d := range s {
			o := out[off+i]
			switch {
			case o == d || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				c.Errorf("the size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d", o, d, i)
			}
		}
	}
	return out
}

// BroadcastTo broadcasts v to shape, aligning trailing dims.
func (c *LowerCtx) BroadcastTo(v *stablehlo.Value, shape []int64) *stablehlo.Value {
	t := c.Type(v)
	if sameShape(t.Shape, shape) {
		return v
	}
	off := len(shape) - t.Rank()
	if off < 0 {
		c.Errorf("cannot broadcast %v to shape %v", t, shape)
		return v
	}
	dims := make([]int64, t.Rank())
	for i := range dims {
		dims[i] = int64(off + i)
	}
	return c.BroadcastInDim(v, shape, dims)
}

// BroadcastInDim emits stablehlo.broadcast_in_dim.
func (c *LowerCtx) BroadcastInDim(v *stablehlo.Value, shape, dims []int64) *stablehlo.Value {
	return c.Op1("stablehlo.broadcast_in_dim", []*stablehlo.Value{v},
		[]stablehlo.NamedAttr{I64s("broadcast_dimensions", dims)}, stablehlo.Tensor(c.DType(v), shape...))
}

// Reshape emits stablehlo.reshape.
func (c *LowerCtx) Reshape(v *stablehlo.Value, shape []int64) *stablehlo.Value {
	if sameShape(c.Shape(v), shape) {
		return v
	}
	return c.Op1("stablehlo.reshape", []*stablehlo.Value{v}, nil, stablehlo.Tensor(c.DType(v), shape...))
}

// ResultType returns PyTorch's result_type over the operands.
func (c *LowerCtx) ResultType(ops ...Operand) dtype.DType {
	ps := make([]dtype.Operand, len(ops))
	for i, o := range ops {
		ps[i] = o.Promotion()
	}
	d, err := dtype.ResultType(ps...)
	if err != nil {
		c.Errorf("%w", err)
		return dtype.F32
	}
	return d
}

// Materialize returns the operand as a tensor of dt: a wrapped number
// becomes a 0-dim constant made from its Python value.
func (c *LowerCtx) Materialize(o Operand, dt dtype.DType) *stablehlo.Value {
	if o.Scalar != nil {
		return c.ScalarConst(*o.Scalar, dt)
	}
	return c.Convert(o.V, dt)
}

// Broadcast materialises operands as dt and broadcasts them to their
// common shape.
func (c *LowerCtx) Broadcast(dt dtype.DType, ops ...Operand) []*stablehlo.Value {
	vs := make([]*stablehlo.Value, len(ops))
	shapes := make([][]int64, len(ops))
	for i, o := range ops {
		vs[i] = c.Materialize(o, dt)
		shapes[i] = c.Shape(vs[i])
	}
	shape := c.BroadcastShapes(shapes...)
	for i := range vs {
		vs[i] = c.BroadcastTo(vs[i], shape)
	}
	return vs
}

// OpMath is the dtype PyTorch computes dt in on the CPU: float32 for
// float16 and bfloat16, dt otherwise.
func OpMath(dt dtype.DType) dtype.DType {
	if dt == dtype.F16 || dt == dtype.BF16 {
		return dtype.F32
	}
	return dt
}

// Unary emits an elementwise op with one operand.
func (c *LowerCtx) Unary(name string, v *stablehlo.Value) *stablehlo.Value {
	return c.Op1("stablehlo."+name, []*stablehlo.Value{v}, nil)
}

// Binary emits an elementwise op over operands of equal type.
func (c *LowerCtx) Binary(name string, a, b *stablehlo.Value) *stablehlo.Value {
	return c.Op1("stablehlo."+name, []*stablehlo.Value{a, b}, nil)
}

// Chlo emits a chlo op (erf, lgamma, digamma, erf_inv, ...) with inferred
// elementwise type.
func (c *LowerCtx) Chlo(name string, v ...*stablehlo.Value) *stablehlo.Value {
	return c.Op1("chlo."+name, v, nil, c.Type(v[0]))
}

// Compare emits stablehlo.compare with direction EQ/NE/LT/LE/GT/GE; the
// comparison type follows the element type.
func (c *LowerCtx) Compare(dir string, a, b *stablehlo.Value) *stablehlo.Value {
	dt := c.DType(a)
	ct := "FLOAT"
	switch {
	case dt == dtype.Bool || dt.IsUnsigned():
		ct = "UNSIGNED"
	case dt.IsInteger():
		ct = "SIGNED"
	}
	return c.Op1("stablehlo.compare", []*stablehlo.Value{a, b}, []stablehlo.NamedAttr{
		Attr("comparison_direction", &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_direction", Value: dir}),
		Attr("compare_type", &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "comparison_type", Value: ct}),
	})
}

// Select emits stablehlo.select(pred, onTrue, onFalse).
func (c *LowerCtx) Select(pred, onTrue, onFalse *stablehlo.Value) *stablehlo.Value {
	return c.Op1("stablehlo.select", []*stablehlo.Value{pred, onTrue, onFalse}, nil)
}

// Like returns a splat constant shaped and typed like v.
func (c *LowerCtx) Like(v *stablehlo.Value, x float64) *stablehlo.Value {
	t := c.Type(v)
	return c.Splat(t.DType(), t.Shape, x)
}

// IsNaN returns x != x.
func (c *LowerCtx) IsNaN(x *stablehlo.Value) *stablehlo.Value { return c.Compare("NE", x, x) }

// Iota emits stablehlo.iota along dim.
func (c *LowerCtx) Iota(dt dtype.DType, shape []int64, dim int) *stablehlo.Value {
	return c.Op1("stablehlo.iota", nil, []stablehlo.NamedAttr{Attr("iota_dimension", &stablehlo.IntAttr{Value: int64(dim)})},
		stablehlo.Tensor(dt, shape...))
}

// Reduce emits stablehlo.reduce of v over dims with a binary body op
// ("add", "multiply", "maximum", "minimum", "and", "or") and init value.
func (c *LowerCtx) Reduce(v *stablehlo.Value, dims []int64, body string, init float64) *stablehlo.Value {
	return c.ReduceWith(v, dims, body, c.Splat(c.DType(v), nil, init))
}

// ReduceWith is Reduce with the init value given as a 0-dim tensor (exact
// integer limits, say).
func (c *LowerCtx) ReduceWith(v *stablehlo.Value, dims []int64, body string, initV *stablehlo.Value) *stablehlo.Value {
	scalar := stablehlo.Tensor(c.DType(v))
	r := c.Region([]stablehlo.Type{scalar, scalar}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		return []*stablehlo.Value{s.Binary(body, a[0], a[1])}
	})
	op := c.OpRegions("stablehlo.reduce", []*stablehlo.Value{v, initV}, []stablehlo.NamedAttr{I64s("dimensions", dims)}, []*stablehlo.Region{r})
	return op.Results[0]
}
