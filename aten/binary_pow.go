package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// powSpecial lowers pow(tensor, scalar) for the exponents ATen's CPU kernel
// (PowKernel.cpp, pow_tensor_scalar_kernel) computes without std::pow, and
// reports false for the others. For a float32, float64 or bfloat16 result:
// 0.5, -0.5 and -1 run the sqrt, rsqrt (1/sqrt(x), rounded twice) and
// reciprocal kernels (so pow(-0.0, 0.5) is -0.0 and pow(-inf, 0.5) is NaN,
// as sqrt gives); 2, 3
// and -2 are base*base, base*base*base and 1/(base*base) in the result
// type, rounding after each product (a bfloat16 product is computed in
// float32 and rounded to bfloat16). Half keeps std::pow, as ATen does.
func powSpecial(c *LowerCtx, x Operand, e Scalar) (*stablehlo.Value, bool) {
	if x.V == nil || (e.Kind != KInt && e.Kind != KFloat) {
		return nil, false
	}
	dt := c.ResultType(x, ScalarOperand(e))
	if dt != dtype.F32 && dt != dtype.F64 && dt != dtype.BF16 {
		return nil, false
	}
	switch ef := e.Float(); ef {
	case 0.5, -1:
		name := map[float64]string{0.5: "aten::sqrt", -1: "aten::reciprocal"}[ef]
		return c.Call1(name, TensorValue(c.Convert(x.V, dt))), true
	case -0.5:
		// rsqrt_kernel is 1 / sqrt(x), two roundings in op math
		return pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			return c.Binary("divide", c.Like(xs[0], 1), c.Unary("sqrt", xs[0]))
		}, x), true
	case 2, 3, -2:
		if dt == dtype.BF16 {
			xv := TensorValue(x.V)
			sq := c.Call1("aten::mul.Tensor", xv, xv)
			switch ef {
			case 2:
				return sq, true
			case 3:
				return c.Call1("aten::mul.Tensor", TensorValue(sq), xv), true
			}
			return c.Call1("aten::reciprocal", TensorValue(sq)), true
		}
		return pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			b := xs[0]
			sq := c.Binary("multiply", b, b)
			switch ef {
			case 2:
				return sq
			case 3:
				return c.Binary("multiply", sq, b)
			}
			return c.Binary("divide", c.Like(sq, 1), sq)
		}, x), true
	}
	return nil, false
}
