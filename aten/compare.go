package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Comparisons (computed in the promoted dtype, result bool), where,
// clamp, masked_fill, nan_to_num, lerp, addcmul / addcdiv.

func init() {
	for name, dir := range map[string]string{"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"} {
		dir := dir
		f := func(c *LowerCtx, a *Args) ([]Value, error) {
			x, y := a.Operand("self"), a.Operand("other")
			vs := c.Broadcast(c.ResultType(x, y), x, y)
			return one(c.Compare(dir, vs[0], vs[1])), nil
		}
		lower("aten::"+name+".Tensor", f)
		lower("aten::"+name+".Scalar", f)
	}
	where := func(c *LowerCtx, a *Args) ([]Value, error) {
		cond := boolOf(c, a.Tensor("condition"))
		x, y := a.Operand("self"), a.Operand("other")
		dt := c.ResultType(x, y)
		vx, vy := c.Materialize(x, dt), c.Materialize(y, dt)
		shape := c.BroadcastShapes(c.Shape(cond), c.Shape(vx), c.Shape(vy))
		return one(c.Select(c.BroadcastTo(cond, shape), c.BroadcastTo(vx, shape), c.BroadcastTo(vy, shape))), nil
	}
	for _, ov := range []string{"self", "ScalarSelf", "ScalarOther", "Scalar"} {
		lower("aten::where."+ov, where)
	}
	clamp := func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Operand("self")
		ops := []Operand{x}
		var lo, hi *Operand
		if a.Has("min") {
			o := a.Operand("min")
			lo = &o
			ops = append(ops, o)
		}
		if a.Has("max") {
			o := a.Operand("max")
			hi = &o
			ops = append(ops, o)
		}
		if lo == nil && hi == nil {
			return nil, c.Errorf("torch.clamp: at least one of 'min' or 'max' must not be None")
		}
		dt := c.ResultType(ops...)
		vs := c.Broadcast(dt, ops...)
		r := vs[0]
		i := 1
		// a bound given as a number that is not NaN needs no NaN test
		// (see nanMaxConst)
		constBound := func(o *Operand) (isConst, isNaN bool) {
			if o.Scalar == nil {
				return false, false
			}
			return true, math.IsNaN(o.Scalar.Float())
		}
		if lo != nil {
			if k, nan := constBound(lo); k {
				r = nanMaxConst(c, r, vs[i], nan)
			} else {
				r = nanMax(c, r, vs[i])
			}
			i++
		}
		if hi != nil {
			if k, nan := constBound(hi); k {
				r = nanMinConst(c, r, vs[i], nan)
			} else {
				r = nanMin(c, r, vs[i])
			}
		}
		return one(r), nil
	}
	for _, n := range []string{"clamp.default", "clamp.Tensor", "clip.default", "clip.Tensor"} {
		lower("aten::"+n, clamp)
	}
	clampSide := func(param string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			return c.Call("aten::clamp.Tensor", []Value{a.Value("self")}, map[string]Value{param: a.Value(param)})
		}
	}
	decomp("aten::clamp_min.default", clampSide("min"))
	decomp("aten::clamp_min.Tensor", clampSide("min"))
	decomp("aten::clamp_max.default", clampSide("max"))
	decomp("aten::clamp_max.Tensor", clampSide("max"))
	maskedFill := func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		mask := boolOf(c, a.Tensor("mask"))
		dt := c.DType(x)
		val := a.Operand("value")
		if val.V != nil && c.Rank(val.V) != 0 {
			return nil, c.Errorf("masked_fill only supports a 0-dimensional value tensor, but got tensor with %d dimension(s)", c.Rank(val.V))
		}
		v := c.Materialize(val, dt)
		// self and mask broadcast together (the in-place form then
		// requires the result to keep self's shape).
		shape := c.BroadcastShapes(c.Shape(x), c.Shape(mask))
		if c.Err() != nil {
			return nil, c.Err()
		}
		return one(c.Select(c.BroadcastTo(mask, shape), c.BroadcastTo(v, shape), c.BroadcastTo(x, shape))), nil
	}
	lower("aten::masked_fill.Scalar", maskedFill)
	lower("aten::masked_fill.Tensor", maskedFill)
	lower("aten::nan_to_num.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dt := c.DType(x)
		if !dt.IsFloat() {
			return one(x), nil
		}
		nan, _ := a.OptFloat("nan")
		posinf, ok := a.OptFloat("posinf")
		if !ok {
			posinf = maxFinite(dt)
		}
		neginf, ok := a.OptFloat("neginf")
		if !ok {
			neginf = -maxFinite(dt)
		}
		r := c.Select(c.IsNaN(x), c.Like(x, nan), x)
		r = c.Select(c.Compare("EQ", x, c.Like(x, math.Inf(1))), c.Like(x, posinf), r)
		r = c.Select(c.Compare("EQ", x, c.Like(x, math.Inf(-1))), c.Like(x, neginf), r)
		return one(r), nil
	})
	lerp := func(c *LowerCtx, a *Args) ([]Value, error) {
		ops := []Operand{a.Operand("self"), a.Operand("end"), a.Operand("weight")}
		dt := c.ResultType(ops[0], ops[1])
		requireFloat(c, "lerp", dt)
		return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			s, e, w := xs[0], xs[1], xs[2]
			d := c.Binary("subtract", e, s)
			small := c.Binary("add", s, c.Binary("multiply", w, d))
			big := c.Binary("subtract", e, c.Binary("multiply", d, c.Binary("subtract", c.Like(w, 1), w)))
			aw := c.Unary("abs", w)
			return c.Select(c.Compare("LT", aw, c.Like(aw, 0.5)), small, big)
		}, ops...)), nil
	}
	lower("aten::lerp.Scalar", lerp)
	lower("aten::lerp.Tensor", lerp)
	addc := func(op string) LowerFunc {
		return func(c *LowerCtx, a *Args) ([]Value, error) {
			ops := []Operand{a.Operand("self"), a.Operand("tensor1"), a.Operand("tensor2")}
			value := a.Scalar("value")
			dt := c.ResultType(ops...)
			if op == "divide" && !dt.IsFloat() && !dt.IsComplex() {
				return nil, c.Errorf("integer division with addcdiv is no longer supported")
			}
			return one(pointwiseAs(c, dt, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
				t := c.Binary(op, xs[1], xs[2])
				if value.Float() != 1 {
					t = c.Binary("multiply", c.ScalarFull(value, c.DType(t), c.Shape(t)), t)
				}
				return c.Binary("add", xs[0], t)
			}, ops...)), nil
		}
	}
	lower("aten::addcmul.default", addc("multiply"))
	lower("aten::addcdiv.default", addc("divide"))
}

// maxFinite is the largest finite value of a float dtype.
func maxFinite(d dtype.DType) float64 {
	switch d {
	case dtype.F16:
		return 65504
	case dtype.BF16:
		return 3.3895313892515355e38
	case dtype.F32:
		return math.MaxFloat32
	}
	return math.MaxFloat64
}
