package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Binary arithmetic with PyTorch's promotion: add/sub with alpha, mul,
// true and rounding division, floor_divide, remainder (divisor's sign),
// fmod (dividend's sign), pow, atan2, hypot, copysign, xlogy, logaddexp,
// maximum/minimum (NaN-propagating), fmax/fmin (NaN-ignoring).

// binaryOp registers fn under the .Tensor overload (other: Tensor) and,
// with scalar set, the .Scalar overload (other: Scalar).
func binaryOp(base string, toFloat, scalar bool, fn mathFn) {
	f := func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, toFloat, fn, a.Operand("self"), a.Operand("other"))), nil
	}
	lower("aten::"+base+".Tensor", f)
	if scalar {
		lower("aten::"+base+".Scalar", f)
	}
}

// zeroDivisor rejects an integer division or remainder by a Python-scalar
// zero, for which PyTorch raises "ZeroDivisionError" whatever the input.
// (A zero inside a tensor divisor is data: the result is the backend's,
// -1 for a quotient and the dividend for a remainder as in XLA, since a
// lowering cannot raise at run time.)
func zeroDivisor(c *LowerCtx, op string, x, y Operand) error {
	if y.Scalar == nil || y.Scalar.Kind == KFloat || y.Scalar.Kind == KComplex {
		return nil
	}
	if dt := c.ResultType(x, y); dt.IsInteger() && y.Scalar.Int() == 0 {
		return c.Errorf("%s: ZeroDivisionError (integer division or remainder by zero)", op)
	}
	return nil
}

// intBinaryOp is binaryOp for the integer-dividing ops, which reject a
// scalar zero divisor.
func intBinaryOp(base string, fn mathFn) {
	f := func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Operand("self"), a.Operand("other")
		if err := zeroDivisor(c, base, x, y); err != nil {
			return nil, err
		}
		return one(pointwise(c, false, fn, x, y)), nil
	}
	lower("aten::"+base+".Tensor", f)
	lower("aten::"+base+".Scalar", f)
}

func init() {
	addSub := func(op string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Operand("self"), a.Operand("other")
			alpha := a.Scalar("alpha")
			dt := c.ResultType(x, y)
			if op == "subtract" && dt == dtype.Bool {
				return nil, c.Errorf("subtraction, the `-` operator, with two bool tensors is not supported; use `^` or logical_xor() instead")
			}
			if alpha.Kind == KFloat && !dt.IsFloat() && !dt.IsComplex() {
				return nil, c.Errorf("for integral input tensors, argument alpha must not be a floating point number")
			}
			return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				b := xs[1]
				if alpha.Float() != 1 {
					b = c.Binary("multiply", b, c.ScalarFull(alpha, c.DType(b), c.Shape(b)))
				}
				if dt == dtype.Bool {
					return c.Binary("or", xs[0], b)
				}
				return c.Binary(op, xs[0], b)
			}, x, y)), nil
		}
	}
	for _, ov := range []string{"Tensor", "Scalar"} {
		lower("aten::add."+ov, addSub("add"))
		lower("aten::sub."+ov, addSub("subtract"))
	}
	decomp("aten::rsub.Scalar", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::sub.Tensor", []Value{a.Value("other"), a.Value("self")}, map[string]Value{"alpha": a.Value("alpha")})
	})
	decomp("aten::rsub.Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::sub.Tensor", []Value{a.Value("other"), a.Value("self")}, map[string]Value{"alpha": a.Value("alpha")})
	})
	binaryOp("mul", false, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		if c.DType(xs[0]) == dtype.Bool {
			return c.Binary("and", xs[0], xs[1])
		}
		return c.Binary("multiply", xs[0], xs[1])
	})
	binaryOp("div", true, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		return c.Binary("divide", xs[0], xs[1])
	})
	divMode := func(c *LowerCtx, a *Args) ([]Value, error) {
		mode, ok := a.OptStr("rounding_mode")
		x, y := a.Operand("self"), a.Operand("other")
		switch {
		case !ok:
			return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return c.Binary("divide", xs[0], xs[1]) }, x, y)), nil
		case mode == "trunc" || mode == "floor":
			if err := zeroDivisor(c, "div", x, y); err != nil {
				return nil, err
			}
			if mode == "trunc" {
				dt := c.ResultType(x, y)
				if (dt == dtype.F16 || dt == dtype.BF16) && !oneElement(y) {
					// PyTorch's div_trunc_kernel: trunc(a / b) in the
					// reduced type, the quotient rounded before trunc
					// (with a one-element divisor it stays in float32).
					return one(pointwise(c, false, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
						q := c.Convert(c.Convert(c.Binary("divide", xs[0], xs[1]), dt), c.DType(xs[0]))
						return trunc(c, q)
					}, x, y)), nil
				}
				return one(pointwise(c, false, divTrunc, x, y)), nil
			}
			return one(pointwise(c, false, divFloor, x, y)), nil
		}
		return nil, c.Errorf("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode)
	}
	lower("aten::div.Tensor_mode", divMode)
	lower("aten::div.Scalar_mode", divMode)
	floorDiv := func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Operand("self"), a.Operand("other")
		if err := zeroDivisor(c, "floor_divide", x, y); err != nil {
			return nil, err
		}
		return one(pointwise(c, false, divFloor, x, y)), nil
	}
	lower("aten::floor_divide.default", floorDiv)
	lower("aten::floor_divide.Scalar", floorDiv)
	intBinaryOp("remainder", remainder)
	intBinaryOp("fmod", func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return c.Binary("remainder", xs[0], xs[1]) })
	lower("aten::remainder.Scalar_Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, false, remainder, scalarOperand(a, "self"), a.Operand("other"))), nil
	})
	powFn := func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		if c.DType(xs[0]) == dtype.Bool {
			return c.Binary("or", xs[0], c.Unary("not", xs[1])) // b**e: false only for 0**1
		}
		return c.Binary("power", xs[0], xs[1])
	}
	lower("aten::pow.Tensor_Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, false, powFn, a.Operand("self"), a.Operand("exponent"))), nil
	})
	lower("aten::pow.Tensor_Scalar", func(c *LowerCtx, a *Args) ([]Value, error) {
		e := a.Scalar("exponent")
		x := a.Operand("self")
		if dt := c.ResultType(x, ScalarOperand(e)); !dt.IsFloat() && !dt.IsComplex() && e.Kind == KInt && e.I < 0 {
			return nil, c.Errorf("integers to negative integer powers are not allowed")
		}
		if v, ok := powSpecial(c, x, e); ok {
			return one(v), nil
		}
		return one(pointwise(c, false, powFn, x, ScalarOperand(e))), nil
	})
	lower("aten::pow.Scalar", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, false, powFn, scalarOperand(a, "self"), a.Operand("exponent"))), nil
	})
	lower("aten::atan2.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return c.Binary("atan2", xs[0], xs[1]) }, a.Operand("self"), a.Operand("other"))), nil
	})
	lower("aten::hypot.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, false, wide2(hypot), a.Operand("self"), a.Operand("other"))), nil
	})
	binaryOp("copysign", true, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		x, y := c.Unary("abs", xs[0]), xs[1]
		neg := c.Binary("or", c.Compare("LT", y, c.Like(y, 0)),
			c.Compare("EQ", c.Binary("divide", c.Like(y, 1), y), c.Like(y, math.Inf(-1))))
		return c.Select(neg, c.Unary("negate", x), x)
	})
	binaryOp("xlogy", true, false, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		x, y := xs[0], xs[1]
		r := c.Binary("multiply", x, c.Unary("log", y))
		r = c.Select(c.Compare("EQ", x, c.Like(x, 0)), c.Like(x, 0), r)
		return c.Select(c.IsNaN(y), y, r)
	})
	xlogyScalar := func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::xlogy.Tensor", []Value{a.Value("self"), a.Value("other")}, nil)
	}
	decomp("aten::xlogy.Scalar_Self", xlogyScalar)
	decomp("aten::xlogy.Scalar_Other", xlogyScalar)
	lower("aten::logaddexp.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x, y := xs[0], xs[1]
			if c.DType(x).IsComplex() {
				return complexLogAddExp(c, x, y)
			}
			m := nanMax(c, x, y)
			r := c.Binary("add", m, c.Unary("log_plus_one", c.Unary("exponential", c.Unary("negate", c.Unary("abs", c.Binary("subtract", x, y))))))
			same := c.Binary("and", c.Compare("EQ", x, y), c.Compare("EQ", c.Unary("abs", x), c.Like(x, math.Inf(1))))
			return c.Select(same, x, r)
		}, a.Operand("self"), a.Operand("other"))), nil
	})
	lower("aten::logaddexp2.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x, y := xs[0], xs[1]
			m := nanMax(c, x, y)
			d := c.Unary("negate", c.Unary("abs", c.Binary("subtract", x, y)))
			r := c.Binary("add", m, scale(c, c.Unary("log_plus_one", c.Binary("power", c.Like(d, 2), d)), 1/math.Ln2))
			same := c.Binary("and", c.Compare("EQ", x, y), c.Compare("EQ", c.Unary("abs", x), c.Like(x, math.Inf(1))))
			return c.Select(same, x, r)
		}, a.Operand("self"), a.Operand("other"))), nil
	})
	minmax := func(nan bool, fn func(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			return one(pointwise(c, false, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return fn(c, xs[0], xs[1]) },
				a.Operand("self"), a.Operand("other"))), nil
		}
	}
	lower("aten::maximum.default", minmax(true, nanMax))
	lower("aten::minimum.default", minmax(true, nanMin))
	lower("aten::fmax.default", minmax(false, func(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value {
		if !c.DType(a).IsFloat() {
			return c.Binary("maximum", a, b)
		}
		return c.Select(c.IsNaN(a), b, c.Select(c.IsNaN(b), a, c.Binary("maximum", a, b)))
	}))
	lower("aten::fmin.default", minmax(false, func(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value {
		if !c.DType(a).IsFloat() {
			return c.Binary("minimum", a, b)
		}
		return c.Select(c.IsNaN(a), b, c.Select(c.IsNaN(b), a, c.Binary("minimum", a, b)))
	}))
}

// wide2 computes a binary fn in float64 when the op-math type is float32.
func wide2(fn mathFn) mathFn {
	return func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		d := c.DType(xs[0])
		if d != dtype.F32 || c.NoF64 {
			return fn(c, xs)
		}
		return c.Convert(fn(c, []*stablehlo.Value{c.Convert(xs[0], dtype.F64), c.Convert(xs[1], dtype.F64)}), d)
	}
}

// hypot is max * sqrt(1 + (min/max)^2), which neither overflows nor
// underflows where the result is finite and normal (as std::hypot); 0 when
// both are 0, +inf when either is infinite (even with a NaN), else NaN
// propagates.
func hypot(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
	a, b := c.Unary("abs", xs[0]), c.Unary("abs", xs[1])
	hi, lo := c.Binary("maximum", a, b), c.Binary("minimum", a, b)
	zero, one := c.Like(a, 0), c.Like(a, 1)
	isZero := c.Compare("EQ", hi, zero)
	q := c.Binary("divide", lo, c.Select(isZero, one, hi))
	r := c.Binary("multiply", hi, c.Unary("sqrt", c.Binary("add", one, c.Binary("multiply", q, q))))
	r = c.Select(isZero, zero, r)
	inf := c.Like(a, math.Inf(1))
	isInf := c.Binary("or", c.Compare("EQ", a, inf), c.Compare("EQ", b, inf))
	return c.Select(isInf, inf, r)
}

// divTrunc divides rounding toward zero.
func divTrunc(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
	q := c.Binary("divide", xs[0], xs[1])
	if !c.DType(q).IsFloat() {
		return q // integer division truncates
	}
	return trunc(c, q)
}

// divFloor divides rounding toward negative infinity, as PyTorch's
// div_floor kernels do (for floats: through fmod, so that the result is
// exact where the quotient is an integer).
func divFloor(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
	a, b := xs[0], xs[1]
	zero := c.Like(a, 0)
	if !c.DType(a).IsFloat() {
		if c.DType(a) == dtype.Bool || c.DType(a).IsUnsigned() {
			return c.Binary("divide", a, b)
		}
		q := c.Binary("divide", a, b)
		r := c.Binary("remainder", a, b)
		adjust := c.Binary("and", c.Compare("NE", r, zero),
			c.Compare("NE", c.Compare("LT", r, zero), c.Compare("LT", b, zero)))
		return c.Select(adjust, c.Binary("subtract", q, c.Like(q, 1)), q)
	}
	mod := c.Binary("remainder", a, b)
	div := c.Binary("divide", c.Binary("subtract", a, mod), b)
	adjust := c.Binary("and", c.Compare("NE", mod, zero),
		c.Compare("NE", c.Compare("LT", b, zero), c.Compare("LT", mod, zero)))
	div = c.Select(adjust, c.Binary("subtract", div, c.Like(div, 1)), div)
	fl := c.Unary("floor", div)
	fl = c.Select(c.Compare("GT", c.Binary("subtract", div, fl), c.Like(div, 0.5)), c.Binary("add", fl, c.Like(fl, 1)), fl)
	// A zero quotient keeps the sign of a/b.
	q := c.Binary("divide", a, b)
	signed := c.Select(c.Compare("LT", q, zero), c.Like(q, math.Copysign(0, -1)), c.Like(q, 0))
	res := c.Select(c.Compare("EQ", div, zero), signed, fl)
	// Division by zero gives a/b (±inf or NaN).
	return c.Select(c.Compare("EQ", b, zero), q, res)
}

// remainder is Python's %: the result has the divisor's sign.
func remainder(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
	a, b := xs[0], xs[1]
	r := c.Binary("remainder", a, b)
	if c.DType(a) == dtype.Bool || c.DType(a).IsUnsigned() {
		return r
	}
	zero := c.Like(a, 0)
	adjust := c.Binary("and", c.Compare("NE", r, zero),
		c.Compare("NE", c.Compare("LT", r, zero), c.Compare("LT", b, zero)))
	return c.Select(adjust, c.Binary("add", r, b), r)
}

// complexLogAddExp: max + log1p(exp(min - max)) with max and min by real
// part, and PyTorch's edge cases (equal infinite real parts, NaN).
func complexLogAddExp(c *LowerCtx, a, b *stablehlo.Value) *stablehlo.Value {
	ra, rb := c.Unary("real", a), c.Unary("real", b)
	mask := c.Compare("GE", ra, rb)
	mx, mn := c.Select(mask, a, b), c.Select(mask, b, a)
	rmn := c.Unary("real", mn)
	inf := c.Binary("and", c.Compare("EQ", c.Unary("abs", ra), c.Like(ra, math.Inf(1))), c.Compare("EQ", ra, rb))
	infVals := c.Select(c.Compare("LT", rmn, c.Like(rmn, 0)), mn,
		c.Unary("log", c.Binary("add", c.Unary("exponential", mn), c.Unary("exponential", mx))))
	r := c.Select(inf, infVals, c.Binary("add", mx, c.Unary("log_plus_one", c.Unary("exponential", c.Binary("subtract", mn, mx)))))
	nan := c.Binary("or", c.IsNaN(c.Unary("real", mn)), c.IsNaN(c.Unary("imag", mn)))
	return c.Select(nan, c.Like(r, math.NaN()), r)
}

// oneElement reports an operand that TensorIterator sees as a scalar: a
// wrapped number or a tensor of one element.
func oneElement(o Operand) bool {
	t := o.Type()
	if t == nil {
		return true
	}
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n == 1
}
