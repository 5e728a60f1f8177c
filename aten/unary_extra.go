package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Less common pointwise ops and the aliases a program may still hold:
// threshold, sinc, xlog1py, entr, ndtr, heaviside, float_power, deg2rad /
// rad2deg, angle of real tensors, log_sigmoid, ldexp; max/min.other,
// true_divide, negative, absolute, expit, ... as calls to their targets.

func init() {
	alias := func(name, target string) {
		decomp(name, func(c *LowerCtx, a *Args) ([]Value, error) {
			kw := map[string]Value{}
			for i, p := range a.Schema.Params {
				kw[p.Name] = a.Values[i]
			}
			return c.Call(target, nil, kw)
		})
	}
	alias("aten::negative.default", "aten::neg.default")
	alias("aten::absolute.default", "aten::abs.default")
	alias("aten::special_expit.default", "aten::sigmoid.default")
	alias("aten::special_logit.default", "aten::logit.default")
	alias("aten::special_sinc.default", "aten::sinc.default")
	alias("aten::true_divide.Tensor", "aten::div.Tensor")
	decomp("aten::max.other", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::maximum.default", []Value{a.Value("self"), a.Value("other")}, nil)
	})
	decomp("aten::min.other", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::minimum.default", []Value{a.Value("self"), a.Value("other")}, nil)
	})

	lower("aten::threshold.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dt := c.DType(x)
		th := c.ScalarFull(a.Scalar("threshold"), dt, c.Shape(x))
		v := c.ScalarFull(a.Scalar("value"), dt, c.Shape(x))
		// x <= threshold → value; NaN stays NaN.
		return one(c.Select(c.Compare("LE", x, th), v, x)), nil
	})
	unaryMath("aten::sinc.default", wide(func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
		px := scale(c, x, math.Pi)
		r := c.Binary("divide", c.Unary("sine", px), px)
		return c.Select(c.Compare("EQ", x, c.Like(x, 0)), c.Like(x, 1), r)
	}))
	lower("aten::special_ndtr.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Operand("self")
		dt := floatResult(c.ResultType(x))
		if dt == dtype.F16 || dt == dtype.BF16 {
			// The CPU kernel computes (1 + erf(x·√½))·½ in the half type,
			// each step rounded to it.
			v := c.Materialize(x, dt)
			t := c.Convert(c.Convert(scale(c, c.Convert(v, dtype.F32), 1/math.Sqrt2), dt), dtype.F32)
			e := c.Convert(c.Convert(c.Chlo("erf", t), dt), dtype.F32)
			s := c.Convert(c.Convert(c.Binary("add", e, c.Like(e, 1)), dt), dtype.F32)
			return one(c.Convert(scale(c, s, 0.5), dt)), nil
		}
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return wide(func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
				return scale(c, c.Chlo("erfc", scale(c, x, -1/math.Sqrt2)), 0.5)
			})(c, xs[0])
		}, x)), nil
	})
	unaryMath("aten::special_entr.default", func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
		r := c.Unary("negate", c.Binary("multiply", x, c.Unary("log", x)))
		r = c.Select(c.Compare("EQ", x, c.Like(x, 0)), c.Like(x, 0), r)
		return c.Select(c.Compare("LT", x, c.Like(x, 0)), c.Like(x, math.Inf(-1)), r)
	})
	unaryMath("aten::log_sigmoid.default", logSigmoid)
	lower("aten::log_sigmoid_forward.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Operand("self")
		out := pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return logSigmoid(c, xs[0]) }, x)
		// The buffer only serves the backward pass; the forward result
		// does not depend on it.
		return []Value{TensorValue(out), TensorValue(c.Splat(c.DType(out), []int64{0}, 0))}, nil
	})
	for name, k := range map[string]float64{"deg2rad": math.Pi / 180, "rad2deg": 180 / math.Pi} {
		k := k
		unaryMath("aten::"+name+".default", func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value { return scale(c, x, k) })
	}
	lower("aten::angle.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.DType(x).IsComplex() {
			return one(c.Binary("atan2", c.Unary("imag", x), c.Unary("real", x))), nil
		}
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x := xs[0]
			r := c.Select(c.Compare("LT", x, c.Like(x, 0)), c.Like(x, math.Pi), c.Like(x, 0))
			return c.Select(c.IsNaN(x), x, r)
		}, TensorOperand(x))), nil
	})
	lower("aten::isreal.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if c.DType(x).IsComplex() {
			im := c.Unary("imag", x)
			return one(c.Compare("EQ", im, c.Like(im, 0))), nil
		}
		return one(c.Splat(dtype.Bool, c.Shape(x), 1)), nil
	})
	lower("aten::heaviside.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, v := a.Operand("self"), a.Operand("values")
		return one(pointwise(c, false, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x, v := xs[0], xs[1]
			zero := c.Like(x, 0)
			r := c.Select(c.Compare("GT", x, zero), c.Like(x, 1), zero)
			r = c.Select(c.Compare("EQ", x, zero), v, r)
			if c.DType(x).IsFloat() {
				r = c.Select(c.IsNaN(x), x, r)
			}
			return r
		}, x, v)), nil
	})
	lower("aten::special_xlog1py.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x, y := xs[0], xs[1]
			r := c.Binary("multiply", x, c.Unary("log_plus_one", y))
			r = c.Select(c.Compare("EQ", x, c.Like(x, 0)), c.Like(x, 0), r)
			return c.Select(c.IsNaN(y), y, r)
		}, a.Operand("self"), a.Operand("other"))), nil
	})
	floatPower := func(base, exp string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Operand(base), a.Operand(exp)
			dt := dtype.F64
			if c.ResultType(x, y).IsComplex() {
				dt = dtype.C128
			}
			vs := c.Broadcast(dt, x, y)
			return one(c.Binary("power", vs[0], vs[1])), nil
		}
	}
	lower("aten::float_power.Tensor_Tensor", floatPower("self", "exponent"))
	lower("aten::float_power.Tensor_Scalar", floatPower("self", "exponent"))
	lower("aten::float_power.Scalar", floatPower("self", "exponent"))
	lower("aten::ldexp.Tensor", func(c *LowerCtx, a *Args) ([]Value, error) {
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return c.Binary("multiply", xs[0], c.Binary("power", c.Like(xs[1], 2), xs[1]))
		}, a.Operand("self"), a.Operand("other"))), nil
	})
}

// logSigmoid is log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)).
func logSigmoid(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	m := c.Binary("minimum", x, c.Like(x, 0))
	r := c.Binary("subtract", m, c.Unary("log_plus_one", c.Unary("exponential", c.Unary("negate", c.Unary("abs", x)))))
	return c.Select(c.IsNaN(x), x, r)
}
