package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Unary pointwise ops. Int-to-float ops (exp, sin, sqrt, ...) return the
// default float dtype for integer and bool inputs; float16 and bfloat16
// compute in float32. Functions StableHLO lacks (asin, sinh, log2, ...) are
// computed from its primitives in float64, which keeps float32 results
// correctly rounded in practice.

func init() {
	for name, op := range map[string]string{
		"exp": "stablehlo.exponential", "expm1": "stablehlo.exponential_minus_one",
		"log": "stablehlo.log", "log1p": "stablehlo.log_plus_one", "sqrt": "stablehlo.sqrt",
		"rsqrt": "stablehlo.rsqrt", "sin": "stablehlo.sine", "cos": "stablehlo.cosine",
		"tan": "stablehlo.tan", "tanh": "stablehlo.tanh", "sigmoid": "stablehlo.logistic",
		"erf": "chlo.erf", "erfc": "chlo.erfc", "erfinv": "chlo.erf_inv",
		"lgamma": "chlo.lgamma",
	} {
		unaryMath("aten::"+name+".default", op1(op))
	}
	for name, fn := range map[string]func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value{
		"exp2": func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { return c.Binary("power", c.Like(x, 2), x) },
		"log2": wide(func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { return scale(c, c.Unary("log", x), 1/math.Ln2) }),
		"log10": wide(func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
			return scale(c, c.Unary("log", x), 1/math.Ln10)
		}),
		"reciprocal": func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { return c.Binary("divide", c.Like(x, 1), x) },
		"asin":       wide(asin),
		"acos":       wide(acos),
		"atan":       wide(func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { return c.Binary("atan2", x, c.Like(x, 1)) }),
		"sinh":       wide(sinh),
		"cosh":       wide(cosh),
		"asinh":      wide(asinh),
		"acosh":      wide(acosh),
		"atanh":      wide(atanh),
		"digamma":    digamma,
	} {
		unaryMath("aten::"+name+".default", fn)
	}
	lower("aten::abs.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.DType(x) == dtype.Bool {
			return nil, c.Errorf("abs is not implemented for bool tensors")
		}
		if c.DType(x).IsUnsigned() {
			return one(x), nil
		}
		return one(c.Unary("abs", x)), nil
	})
	lower("aten::neg.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.DType(x) == dtype.Bool {
			return nil, c.Errorf("negation, the `-` operator, on a bool tensor is not supported; use `~` or logical_not() instead")
		}
		return one(c.Unary("negate", x)), nil
	})
	sign := func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if d := c.DType(x); d == dtype.Bool {
			return one(x), nil
		} else if !d.IsFloat() {
			return one(c.Unary("sign", x)), nil
		}
		// sign(NaN) is 0 on PyTorch's CPU.
		return one(c.Select(c.IsNaN(x), c.Like(x, 0), c.Unary("sign", x))), nil
	}
	lower("aten::sign.default", sign)
	lower("aten::sgn.default", sign)
	for name, op := range map[string]string{"floor": "floor", "ceil": "ceil", "round": "round_nearest_even"} {
		op := op
		lower("aten::"+name+".default", func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if !c.DType(x).IsFloat() {
				return one(x), nil // integers round to themselves
			}
			return one(c.Unary(op, x)), nil
		})
	}
	lower("aten::trunc.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsFloat() {
			return one(x), nil
		}
		return one(trunc(c, x)), nil
	})
	decomp("aten::fix.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::trunc.default", []Value{a.Value("self")}, nil)
	})
	lower("aten::frac.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		requireFloat(c, "frac", c.DType(x))
		return one(pointwiseAs(c, c.DType(x), func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return c.Binary("subtract", xs[0], trunc(c, xs[0]))
		}, TensorOperand(x))), nil
	})
	lower("aten::round.decimals", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, d := a.Tensor("self"), a.Int("decimals")
		if !c.DType(x).IsFloat() {
			return one(x), nil
		}
		return one(pointwiseAs(c, c.DType(x), func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			p := c.Like(xs[0], math.Pow(10, float64(abs64(d))))
			if d >= 0 {
				return c.Binary("divide", c.Unary("round_nearest_even", c.Binary("multiply", xs[0], p)), p)
			}
			return c.Binary("multiply", c.Unary("round_nearest_even", c.Binary("divide", xs[0], p)), p)
		}, TensorOperand(x))), nil
	})
	lower("aten::square.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Operand("self")
		return one(pointwise(c, false, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return c.Binary("multiply", xs[0], xs[0])
		}, x, ScalarOperand(Scalar{Kind: KInt, I: 2}))), nil
	})
	lower("aten::positive.default", func(c *LowerCtx, a *Args) ([]Value, error) { return one(a.Tensor("self")), nil })
	lower("aten::isnan.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsFloat() {
			return one(c.Splat(dtype.Bool, c.Shape(x), 0)), nil
		}
		return one(c.IsNaN(x)), nil
	})
	isInf := func(sign int) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x := a.Tensor("self")
			if !c.DType(x).IsFloat() {
				return one(c.Splat(dtype.Bool, c.Shape(x), 0)), nil
			}
			switch sign {
			case 1:
				return one(c.Compare("EQ", x, c.Like(x, math.Inf(1)))), nil
			case -1:
				return one(c.Compare("EQ", x, c.Like(x, math.Inf(-1)))), nil
			}
			return one(c.Compare("EQ", c.Unary("abs", x), c.Like(x, math.Inf(1)))), nil
		}
	}
	lower("aten::isinf.default", isInf(0))
	lower("aten::isposinf.default", isInf(1))
	lower("aten::isneginf.default", isInf(-1))
	lower("aten::isfinite.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if !c.DType(x).IsFloat() {
			return one(c.Splat(dtype.Bool, c.Shape(x), 1)), nil
		}
		return one(c.Op1("stablehlo.is_finite", []*stablehlo.Value{x}, nil)), nil
	})
	lower("aten::signbit.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		d := c.DType(x)
		switch {
		case d == dtype.Bool || d.IsUnsigned():
			return one(c.Splat(dtype.Bool, c.Shape(x), 0)), nil
		case !d.IsFloat():
			return one(c.Compare("LT", x, c.Like(x, 0))), nil
		}
		// The sign bit: negative, or -0.0 (1/x == -inf), or a negative NaN is not distinguishable here.
		neg := c.Compare("LT", x, c.Like(x, 0))
		negZero := c.Compare("EQ", c.Binary("divide", c.Like(x, 1), x), c.Like(x, math.Inf(-1)))
		return one(c.Binary("or", neg, negZero)), nil
	})
	lower("aten::bitwise_not.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		requireIntegral(c, "bitwise_not", c.DType(x))
		return one(c.Unary("not", x)), nil
	})
	lower("aten::logical_not.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		return one(c.Compare("EQ", x, c.Like(x, 0))), nil
	})
}

// wide computes fn in float64 when the op-math type is narrower.
func wide(fn func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value) func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
		d := c.DType(x)
		if d != dtype.F32 || c.NoF64 {
			return fn(c, x)
		}
		return c.Convert(fn(c, c.Convert(x, dtype.F64)), d)
	}
}

func scale(c *LowerCtx, x *stablehlo.Value, k float64) *stablehlo.Value {
	return c.Binary("multiply", x, c.Like(x, k))
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// trunc rounds toward zero.
func trunc(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return c.Select(c.Compare("LT", x, c.Like(x, 0)), c.Unary("ceil", x), c.Unary("floor", x))
}

func sqrt1m(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { // sqrt(1 - x²) = sqrt((1-x)(1+x))
	one := c.Like(x, 1)
	return c.Unary("sqrt", c.Binary("multiply", c.Binary("subtract", one, x), c.Binary("add", one, x)))
}

func asin(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return c.Binary("atan2", x, sqrt1m(c, x))
}

func acos(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return c.Binary("atan2", sqrt1m(c, x), x)
}

func sinh(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Op1("chlo.sinh", []*stablehlo.Value{x}, nil)
	}
	e := c.Unary("exponential_minus_one", x)
	en := c.Unary("exponential_minus_one", c.Unary("negate", x))
	return scale(c, c.Binary("subtract", e, en), 0.5)
}

func cosh(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Op1("chlo.cosh", []*stablehlo.Value{x}, nil)
	}
	a := c.Unary("abs", x)
	// exp(|x|-ln2) + exp(-|x|)/2 avoids overflowing before the halving.
	e := c.Unary("exponential", c.Binary("subtract", a, c.Like(x, math.Ln2)))
	return c.Binary("add", e, scale(c, c.Unary("exponential", c.Unary("negate", a)), 0.5))
}

func asinh(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Op1("chlo.asinh", []*stablehlo.Value{x}, nil)
	}
	// sign(x) * log1p(|x| + x²/(1 + sqrt(1 + x²))); large |x|: log(2|x|).
	a := c.Unary("abs", x)
	one := c.Like(x, 1)
	x2 := c.Binary("multiply", a, a)
	small := c.Unary("log_plus_one", c.Binary("add", a, c.Binary("divide", x2, c.Binary("add", one, c.Unary("sqrt", c.Binary("add", one, x2))))))
	big := c.Binary("add", c.Unary("log", a), c.Like(x, math.Ln2))
	r := c.Select(c.Compare("GT", a, c.Like(x, 1e150)), big, small)
	return c.Select(c.Compare("LT", x, c.Like(x, 0)), c.Unary("negate", r), r)
}

func acosh(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Op1("chlo.acosh", []*stablehlo.Value{x}, nil)
	}
	// log1p(t + sqrt(2t + t²)) with t = x - 1; large x: log(2x).
	one := c.Like(x, 1)
	t := c.Binary("subtract", x, one)
	r := c.Unary("log_plus_one", c.Binary("add", t, c.Unary("sqrt", c.Binary("multiply", t, c.Binary("add", t, c.Like(x, 2))))))
	big := c.Binary("add", c.Unary("log", x), c.Like(x, math.Ln2))
	return c.Select(c.Compare("GT", x, c.Like(x, 1e150)), big, r)
}

func atanh(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	if c.DType(x).IsComplex() {
		return c.Op1("chlo.atanh", []*stablehlo.Value{x}, nil)
	}
	// 0.5 * log1p(2x / (1 - x))
	one := c.Like(x, 1)
	return scale(c, c.Unary("log_plus_one", c.Binary("divide", scale(c, x, 2), c.Binary("subtract", one, x))), 0.5)
}

// digamma is chlo.digamma with PyTorch's value at zero: -inf at +0, +inf
// at -0 (copysign(inf, -x)).
func digamma(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	r := c.Op1("chlo.digamma", []*stablehlo.Value{x}, nil)
	negZero := c.Compare("EQ", c.Binary("divide", c.Like(x, 1), x), c.Like(x, math.Inf(-1)))
	atZero := c.Select(negZero, c.Like(x, math.Inf(1)), c.Like(x, math.Inf(-1)))
	return c.Select(c.Compare("EQ", x, c.Like(x, 0)), atZero, r)
}
