package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// polygamma and mvlgamma (over chlo.digamma / chlo.polygamma /
// chlo.lgamma), the Hurwitz zeta function (chlo.zeta), nextafter
// (chlo.next_after), gcd / lcm (Euclid's algorithm in a while loop) and
// frexp (the float's bits).

func init() {
	lower("aten::polygamma", func(c *LowerCtx, a *Args) ([]Value, error) {
		n := a.Int("n")
		x := a.Operand("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if n < 0 {
			return nil, c.Errorf("polygamma(n, x) does not support negative n.")
		}
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			x := xs[0]
			switch n {
			case 0:
				return digamma(c, x)
			case 1:
				return trigamma(spOf(c, x), x)
			}
			d := c.DType(x)
			w := c.Wide()
			if d == dtype.F64 {
				w = d
			}
			y := c.Convert(x, w)
			r := c.Op1("chlo.polygamma", []*stablehlo.Value{c.Splat(w, c.Shape(y), float64(n)), y}, nil)
			return c.Convert(r, d)
		}, x)), nil
	})
	decomp("aten::special_polygamma", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::polygamma", []Value{a.Value("n"), a.Value("self")}, nil)
	})
	lower("aten::mvlgamma", lowerMvlgamma)
	decomp("aten::special_multigammaln", func(c *LowerCtx, a *Args) ([]Value, error) {
		return c.Call("aten::mvlgamma", []Value{a.Value("self"), a.Value("p")}, nil)
	})
	zeta := func(c *LowerCtx, a *Args) ([]Value, error) {
		x, q := a.Operand("self"), a.Operand("other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
			d := c.DType(xs[0])
			// The CPU kernel accumulates float in double.
			w := c.Wide()
			if d == dtype.F64 {
				w = d
			}
			r := c.Op1("chlo.zeta", []*stablehlo.Value{c.Convert(xs[0], w), c.Convert(xs[1], w)}, nil)
			return c.Convert(r, d)
		}, x, q)), nil
	}
	lower("aten::special_zeta", zeta)
	lower("aten::special_zeta.self_scalar", zeta)
	lower("aten::special_zeta.other_scalar", zeta)
	lower("aten::nextafter", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.ResultType(TensorOperand(x), TensorOperand(y))
		if !dt.IsFloat() {
			return nil, c.Errorf("\"nextafter_cpu\" not implemented for '%s'", dt.Torch())
		}
		vs := c.Broadcast(dt, TensorOperand(x), TensorOperand(y))
		return one(c.Op1("chlo.next_after", vs, nil)), nil
	})
	lower("aten::gcd", lowerGcdLcm(false))
	lower("aten::lcm", lowerGcdLcm(true))
	lower("aten::frexp.Tensor", lowerFrexp)
}

// lowerMvlgamma: Σ_{j<p} lgamma(x - j/2) + p(p-1)/4·log π, in x's dtype,
// the terms added from j = p-1 down as PyTorch's arange orders them.
func lowerMvlgamma(c *LowerCtx, a *Args) ([]Value, error) {
	p := a.Int("p")
	x := a.Operand("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if p < 1 {
		return nil, c.Errorf("p has to be greater than or equal to 1")
	}
	return one(pointwise(c, true, func(c *LowerCtx, xs []*stablehlo.Value) *stablehlo.Value {
		x := xs[0]
		s := spOf(c, x)
		var sum hv
		for j := p - 1; j >= 0; j-- {
			t := c.Chlo("lgamma", s.addk(x, -float64(j)/2))
			if sum == nil {
				sum = t
			} else {
				sum = s.add(sum, t)
			}
		}
		return s.addk(sum, float64(p*(p-1))*math.Log(math.Pi)/4)
	}, x)), nil
}

// lowerGcdLcm: gcd by b, a ← a mod b, b until every a is 0 (with |a|,
// |b|); lcm = |a / gcd · b| (0 when the gcd is).
func lowerGcdLcm(lcm bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, y := a.Tensor("self"), a.Tensor("other")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.ResultType(TensorOperand(x), TensorOperand(y))
		if !dt.IsInteger() || dt == dtype.Bool {
			return nil, c.Errorf("\"gcd_cpu\" not implemented for '%s'", dt.Torch())
		}
		vs := c.Broadcast(dt, TensorOperand(x), TensorOperand(y))
		shape := c.Shape(vs[0])
		zero := c.SplatInt(dt, shape, 0)
		anyNZ := func(b *LowerCtx, v hv) hv {
			nz := b.Convert(b.Compare("NE", v, b.SplatInt(dt, shape, 0)), dtype.I32)
			return b.Compare("GT", b.ReduceWith(nz, seqI64(len(shape)), "maximum", b.SplatInt(dtype.I32, nil, 0)), b.SplatInt(dtype.I32, nil, 0))
		}
		abs := func(v hv) hv {
			if dt.IsUnsigned() {
				return v
			}
			return c.Unary("abs", v)
		}
		out := c.whileLoop([]hv{abs(vs[0]), abs(vs[1])}, func(b *LowerCtx, xs []hv) hv {
			return anyNZ(b, xs[0])
		}, func(b *LowerCtx, xs []hv) []hv {
			av, bv := xs[0], xs[1]
			nz := b.Compare("NE", av, b.SplatInt(dt, shape, 0))
			safe := b.Select(nz, av, b.SplatInt(dt, shape, 1))
			rem := b.Binary("remainder", bv, safe)
			return []hv{b.Select(nz, rem, av), b.Select(nz, av, bv)}
		})
		g := out[1]
		if !lcm {
			return one(g), nil
		}
		gz := c.Compare("EQ", g, zero)
		safe := c.Select(gz, c.SplatInt(dt, shape, 1), g)
		l := abs(c.Binary("multiply", c.Binary("divide", vs[0], safe), vs[1]))
		return one(c.Select(gz, zero, l)), nil
	}
}

// lowerFrexp splits x into a mantissa in [0.5, 1) (signed) and an int32
// exponent from its bits (subnormals scaled up first); 0, infinities and
// NaN give themselves and 0.
func lowerFrexp(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	var ebits, mbits int
	var it dtype.DType
	switch dt {
	case dtype.F16:
		ebits, mbits, it = 5, 10, dtype.I16
	case dtype.BF16:
		ebits, mbits, it = 8, 7, dtype.I16
	case dtype.F32:
		ebits, mbits, it = 8, 23, dtype.I32
	case dtype.F64:
		ebits, mbits, it = 11, 52, dtype.I64
	default:
		return nil, c.Errorf("torch.frexp() only supports floating-point dtypes")
	}
	shape := c.Shape(x)
	bias := int64(1)<<(ebits-1) - 1
	sub := c.Compare("LT", c.Unary("abs", x), c.Splat(dt, shape, math.Ldexp(1, int(1-bias))))
	scaled := c.Select(sub, c.Binary("multiply", x, c.Splat(dt, shape, math.Ldexp(1, mbits+1))), x)
	bits := c.Op1("stablehlo.bitcast_convert", []*stablehlo.Value{scaled}, nil, stablehlo.Tensor(it, shape...))
	bits64 := c.Convert(bits, dtype.I64)
	field := c.Binary("and", c.Binary("shift_right_logical", bits64, c.SplatInt(dtype.I64, shape, int64(mbits))), c.SplatInt(dtype.I64, shape, int64(1)<<ebits-1))
	exp := c.Binary("subtract", field, c.SplatInt(dtype.I64, shape, bias-1))
	exp = c.Select(sub, c.Binary("subtract", exp, c.SplatInt(dtype.I64, shape, int64(mbits+1))), exp)
	// Mantissa: the same bits with the exponent field of 0.5.
	clear := ^((int64(1)<<ebits - 1) << mbits)
	mb := c.Binary("or", c.Binary("and", bits64, c.SplatInt(dtype.I64, shape, clear)), c.SplatInt(dtype.I64, shape, (bias-1)<<mbits))
	mant := c.Op1("stablehlo.bitcast_convert", []*stablehlo.Value{c.Convert(mb, it)}, nil, stablehlo.Tensor(dt, shape...))
	special := c.Binary("or", c.Compare("EQ", x, c.Splat(dt, shape, 0)),
		c.Binary("or", c.IsNaN(x), c.Compare("EQ", c.Unary("abs", x), c.Splat(dt, shape, math.Inf(1)))))
	mant = c.Select(special, x, mant)
	exp = c.Select(special, c.SplatInt(dtype.I64, shape, 0), exp)
	return []Value{TensorValue(mant), TensorValue(c.Convert(exp, dtype.I32))}, nil
}

// trigamma as the CPU kernel computes it, in x's own precision: the
// reflection sin(πx) below ½, six steps of the recurrence, then the
// asymptotic series.
func trigamma(s sp, x hv) hv {
	refl := s.lt(x, s.k(0.5))
	sn := s.sin(s.mulk(x, math.Pi))
	result := s.sel(refl, s.neg(s.div(s.mul(s.k(math.Pi), s.k(math.Pi)), s.mul(sn, sn))), s.k(0))
	x = s.sel(refl, s.sub(s.k(1), x), x)
	for i := 0; i < 6; i++ {
		result = s.add(result, s.div(s.k(1), s.mul(x, x)))
		x = s.addk(x, 1)
	}
	ixx := s.div(s.k(1), s.mul(x, x))
	inner := s.sub(s.k(1.0/30), s.mul(ixx, s.k(1.0/42)))
	inner = s.sub(s.k(1.0/6), s.mul(ixx, inner))
	series := s.add(s.add(s.k(1), s.div(s.k(1), s.mulk(x, 2))), s.mul(ixx, inner))
	result = s.add(result, s.div(series, x))
	return s.sel(refl, s.neg(result), result)
}
