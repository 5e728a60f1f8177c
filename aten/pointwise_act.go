package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Elementwise activations, with PyTorch's CPU formulas.

// act registers an activation computed in op-math precision with the
// input's dtype as result; floatOnly rejects integer inputs.
func act(name string, floatOnly bool, fn func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value) {
	lower(name, func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dt := c.DType(x)
		if floatOnly {
			requireFloat(c, name, dt)
		}
		return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value { return fn(c, a, xs[0]) }, TensorOperand(x))), nil
	})
}

func init() {
	act("aten::relu.default", false, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		if c.DType(x).IsUnsigned() || c.DType(x).IsBool() {
			return x
		}
		return c.Select(c.Compare("LT", x, c.Like(x, 0)), c.Like(x, 0), x) // relu(NaN) = NaN
	})
	act("aten::relu6.default", false, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		return nanMinConst(c, nanMaxConst(c, x, c.Like(x, 0), false), c.Like(x, 6), false)
	})
	act("aten::gelu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		half := c.Like(x, 0.5)
		if approx, _ := a.OptStr("approximate"); approx == "tanh" {
			// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
			x3 := c.Binary("multiply", c.Binary("multiply", x, x), x)
			inner := scale(c, c.Binary("add", x, scale(c, x3, 0.044715)), math.Sqrt(2/math.Pi))
			return c.Binary("multiply", c.Binary("multiply", half, x), c.Binary("add", c.Like(x, 1), c.Unary("tanh", inner)))
		} else if approx != "none" && approx != "" {
			c.Errorf("gelu: approximate must be 'none' or 'tanh', not %q", approx)
		}
		erf := c.Chlo("erf", scale(c, x, 1/math.Sqrt2))
		return c.Binary("multiply", c.Binary("multiply", x, half), c.Binary("add", c.Like(x, 1), erf))
	})
	act("aten::silu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		return c.Binary("divide", x, c.Binary("add", c.Like(x, 1), c.Unary("exponential", c.Unary("negate", x))))
	})
	act("aten::mish.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		return c.Binary("multiply", x, c.Unary("tanh", c.Unary("log_plus_one", c.Unary("exponential", x))))
	})
	act("aten::elu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		alpha, sc, in := a.Float("alpha"), a.Float("scale"), a.Float("input_scale")
		neg := scale(c, c.Unary("exponential_minus_one", scale(c, x, in)), alpha*sc)
		return c.Select(c.Compare("GT", x, c.Like(x, 0)), scale(c, x, sc), neg)
	})
	act("aten::celu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		alpha := a.Float("alpha")
		neg := scale(c, c.Unary("exponential_minus_one", scale(c, x, 1/alpha)), alpha)
		return c.Select(c.Compare("GT", x, c.Like(x, 0)), x, neg)
	})
	act("aten::selu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		const alpha, sc = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
		neg := scale(c, c.Unary("exponential_minus_one", x), alpha*sc)
		return c.Select(c.Compare("GT", x, c.Like(x, 0)), scale(c, x, sc), neg)
	})
	act("aten::leaky_relu.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		slope := a.Scalar("negative_slope")
		return c.Select(c.Compare("GT", x, c.Like(x, 0)), x, c.Binary("multiply", x, c.ScalarFull(slope, c.DType(x), c.Shape(x))))
	})
	act("aten::hardtanh.default", false, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		lo, hi := a.Scalar("min_val"), a.Scalar("max_val")
		loV, hiV := c.ScalarFull(lo, c.DType(x), c.Shape(x)), c.ScalarFull(hi, c.DType(x), c.Shape(x))
		return nanMinConst(c, nanMaxConst(c, x, loV, math.IsNaN(lo.Float())), hiV, math.IsNaN(hi.Float()))
	})
	relu6 := func(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
		return nanMinConst(c, nanMaxConst(c, c.Binary("add", x, c.Like(x, 3)), c.Like(x, 0), false), c.Like(x, 6), false)
	}
	act("aten::hardsigmoid.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		return c.Binary("divide", relu6(c, x), c.Like(x, 6))
	})
	act("aten::hardswish.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		return c.Binary("divide", c.Binary("multiply", x, relu6(c, x)), c.Like(x, 6))
	})
	act("aten::softplus.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		beta, th := a.Float("beta"), a.Float("threshold")
		bx := scale(c, x, beta)
		soft := scale(c, c.Unary("log_plus_one", c.Unary("exponential", bx)), 1/beta)
		return c.Select(c.Compare("GT", bx, c.Like(x, th)), x, soft)
	})
	lower("aten::logit.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dt := floatResult(c.DType(x))
		x = c.Convert(x, dt)
		// PyTorch's kernel runs in the tensor's own dtype: for float16 and
		// bfloat16 each step (1 - x, the division) rounds to that dtype.
		step := func(v *stablehlo.Value) *stablehlo.Value { return c.Convert(c.Convert(v, dt), OpMath(dt)) }
		z := c.Convert(x, OpMath(dt))
		if eps, ok := a.OptFloat("eps"); ok {
			lo := c.Convert(c.Splat(dt, c.Shape(x), eps), OpMath(dt))
			hi := c.Convert(c.Splat(dt, c.Shape(x), 1-eps), OpMath(dt))
			// x < lo ? lo : (x > hi ? hi : x), as the kernel tests it (lo
			// wins when eps > 0.5 makes lo > hi; NaN passes).
			z = c.Select(c.Compare("LT", z, lo), lo, c.Select(c.Compare("GT", z, hi), hi, z))
		}
		q := step(c.Binary("divide", z, step(c.Binary("subtract", c.Like(z, 1), z))))
		return one(c.Convert(c.Unary("log", q), dt)), nil
	})
	act("aten::hardshrink.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		l := c.Like(x, a.Float("lambd"))
		keep := c.Compare("GT", c.Unary("abs", x), l)
		return c.Select(c.Binary("or", keep, c.IsNaN(x)), x, c.Like(x, 0))
	})
	act("aten::softshrink.default", true, func(c *LowerCtx, a *Args, x *stablehlo.Value) *stablehlo.Value {
		l := c.Like(x, a.Float("lambd"))
		r := c.Select(c.Compare("GT", x, l), c.Binary("subtract", x, l), c.Like(x, 0))
		return c.Select(c.Compare("LT", x, c.Unary("negate", l)), c.Binary("add", x, l), r)
	})
}
