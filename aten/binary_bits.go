package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Bitwise, shift and logical binary ops. Bitwise ops take integers and
// bools only; shifts by a negative amount or by the bit width or more give
// 0 (left) or the sign fill (right), which is StableHLO's own rule for
// amounts read as unsigned.

func init() {
	bitwise := func(what, op string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Operand("self"), a.Operand("other")
			dt := c.ResultType(x, y)
			requireIntegral(c, what, dt)
			vs := c.Broadcast(dt, x, y)
			return one(c.Binary(op, vs[0], vs[1])), nil
		}
	}
	for name, op := range map[string]string{"and": "and", "or": "or", "xor": "xor"} {
		f := bitwise("bitwise_"+name, op)
		lower("aten::bitwise_"+name+".Tensor", f)
		lower("aten::bitwise_"+name+".Scalar", f)
		lower("aten::__"+name+"__.Tensor", f)
		lower("aten::__"+name+"__.Scalar", f)
	}
	shift := func(left bool) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Operand("self"), a.Operand("other")
			dt := c.ResultType(x, y)
			requireIntegral(c, "bitwise shift", dt)
			vs := c.Broadcast(dt, x, y)
			switch {
			case left:
				return one(c.Binary("shift_left", vs[0], vs[1])), nil
			case dt.IsUnsigned() || dt == dtype.Bool:
				return one(c.Binary("shift_right_logical", vs[0], vs[1])), nil
			}
			return one(c.Binary("shift_right_arithmetic", vs[0], vs[1])), nil
		}
	}
	for _, ov := range []string{"Tensor", "Tensor_Scalar"} {
		lower("aten::bitwise_left_shift."+ov, shift(true))
		lower("aten::bitwise_right_shift."+ov, shift(false))
	}
	lower("aten::__lshift__.Tensor", shift(true))
	lower("aten::__lshift__.Scalar", shift(true))
	lower("aten::__rshift__.Tensor", shift(false))
	lower("aten::__rshift__.Scalar", shift(false))
	logical := func(op string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Tensor("self"), a.Tensor("other")
			bx, by := c.Convert(x, dtype.Bool), c.Convert(y, dtype.Bool)
			shape := c.BroadcastShapes(c.Shape(bx), c.Shape(by))
			return one(c.Binary(op, c.BroadcastTo(bx, shape), c.BroadcastTo(by, shape))), nil
		}
	}
	lower("aten::logical_and.default", logical("and"))
	lower("aten::logical_or.default", logical("or"))
	lower("aten::logical_xor.default", logical("xor"))
}

// boolOf converts any tensor to bool (nonzero → true, NaN → true).
func boolOf(c *LowerCtx, v *stablehlo.Value) *stablehlo.Value { return c.Convert(v, dtype.Bool) }
