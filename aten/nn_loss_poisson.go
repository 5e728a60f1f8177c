package aten

import "math"

// poisson_nll_loss, written with aten calls as PyTorch's composite is:
// exp(input) - target·input for log inputs, input - target·log(input +
// eps) otherwise, plus Stirling's term target·log(target) - target +
// ½·log(2π·target) where target > 1 when full.

func init() {
	decomp("aten::poisson_nll_loss", func(c *LowerCtx, a *Args) ([]Value, error) {
		in, tg := a.Value("input"), a.Value("target")
		logIn, full := a.Bool("log_input"), a.Bool("full")
		eps, red := a.Float("eps"), a.Int("reduction")
		if a.Err() != nil {
			return nil, a.Err()
		}
		var loss Value
		if logIn {
			loss = c.call("aten::sub.Tensor", c.call("aten::exp", in), c.call("aten::mul.Tensor", tg, in))
		} else {
			lg := c.call("aten::log", c.call("aten::add.Scalar", in, FloatValue(eps)))
			loss = c.call("aten::sub.Tensor", in, c.call("aten::mul.Tensor", tg, lg))
		}
		if full {
			st := c.call("aten::add.Tensor",
				c.call("aten::sub.Tensor", c.call("aten::mul.Tensor", tg, c.call("aten::log", tg)), tg),
				c.call("aten::mul.Scalar", c.call("aten::log", c.call("aten::mul.Scalar", tg, FloatValue(2*math.Pi))), FloatValue(0.5)))
			st = c.call("aten::masked_fill.Scalar", st, c.call("aten::le.Scalar", tg, IntValue(1)), IntValue(0))
			loss = c.call("aten::add.Tensor", loss, st)
		}
		switch red {
		case 0:
			return []Value{loss}, nil
		case 1:
			return c.Call("aten::mean.default", []Value{loss}, nil)
		case 2:
			return c.Call("aten::sum.default", []Value{loss}, nil)
		}
		return nil, c.Errorf("%d is not a valid value for reduction", red)
	})
}
