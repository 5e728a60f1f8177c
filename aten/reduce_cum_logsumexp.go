package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// logcumsumexp as a prefix window (see prefixWindow) whose body is
// PyTorch's log_add_exp_helper: log1p(exp(min - max)) + max, except that
// two equal infinities give the first one back (so -inf stays -inf and
// inf stays inf instead of becoming NaN), and a NaN on either side gives
// NaN. -inf is the identity. Complex inputs follow PyTorch's complex
// helper (see logcumsumexpComplex). float32, float16 and bfloat16 accumulate in
// float64 as the CPU kernel does (acc_type), complex64 in complex128.

func init() {
	lower("aten::logcumsumexp", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		if a.Err() != nil {
			return nil, a.Err()
		}
		out := c.DType(x)
		if out == dtype.C64 || out == dtype.C128 {
			return logcumsumexpComplex(c, a, x)
		}
		if !out.IsFloat() {
			return nil, c.Errorf("logcumsumexp: %v is not supported (floating point and complex inputs only, as in PyTorch)", out.Torch())
		}
		v := c.Convert(x, accType(c, out))
		dim, ok := cumDim(c, a, v)
		if !ok {
			return one(x), c.Err()
		}
		dt := c.DType(v)
		scalar := stablehlo.Tensor(dt)
		reg := c.Region([]stablehlo.Type{scalar, scalar}, func(s *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
			acc, y := p[0], p[1]
			lo, hi := s.Binary("minimum", acc, y), s.Binary("maximum", acc, y)
			sum := s.Binary("add", s.Unary("log_plus_one", s.Unary("exponential", s.Binary("subtract", lo, hi))), hi)
			inf := s.Compare("EQ", s.Unary("abs", lo), s.Splat(dt, nil, math.Inf(1)))
			same := s.Binary("and", s.Compare("EQ", lo, hi), inf)
			return []*stablehlo.Value{s.Select(same, acc, sum)}
		})
		res := prefixWindow(c, []*stablehlo.Value{v}, []*stablehlo.Value{c.Splat(dt, nil, math.Inf(-1))}, dim, reg)
		if len(res) != 1 {
			return nil, c.Errorf("logcumsumexp: reduce_window produced %d results", len(res))
		}
		return one(c.Convert(res[0], out)), nil
	})
}

// logcumsumexpComplex carries (real, imag) pairs in float64 through the
// prefix window. Its body is PyTorch's complex _log_add_exp_helper: min
// and max by real part (a NaN anywhere wins, y before x; ties take y as
// min and x as max), NaN if min has one, min itself for a -inf tie,
// log(exp(min) + exp(max)) for a +inf tie, else log1p(exp(min - max)) +
// max, with log1p(w) = (log1p(2·re w + |w|²)/2, atan2(im w, 1 + re w)).
func logcumsumexpComplex(c *LowerCtx, a *Args, x *stablehlo.Value) ([]Value, error) {
	out := c.DType(x)
	re, im := c.Convert(c.Unary("real", x), dtype.F64), c.Convert(c.Unary("imag", x), dtype.F64)
	dim, ok := cumDim(c, a, re)
	if !ok {
		return one(x), c.Err()
	}
	s := stablehlo.Tensor(dtype.F64)
	reg := c.Region([]stablehlo.Type{s, s, s, s}, func(b *LowerCtx, p []*stablehlo.Value) []*stablehlo.Value {
		ar, ai, br, bi := p[0], p[1], p[2], p[3]
		k := func(v float64) *stablehlo.Value { return b.Splat(dtype.F64, nil, v) }
		or, and := func(x, y *stablehlo.Value) *stablehlo.Value { return b.Binary("or", x, y) },
			func(x, y *stablehlo.Value) *stablehlo.Value { return b.Binary("and", x, y) }
		not := func(x *stablehlo.Value) *stablehlo.Value { return b.Unary("not", x) }
		xNaN, yNaN := or(b.IsNaN(ar), b.IsNaN(ai)), or(b.IsNaN(br), b.IsNaN(bi))
		xLess := b.Compare("LT", ar, br)
		minX := and(not(yNaN), or(xNaN, xLess))
		maxX := and(not(yNaN), or(xNaN, not(xLess)))
		mr, mi := b.Select(minX, ar, br), b.Select(minX, ai, bi)
		Mr, Mi := b.Select(maxX, ar, br), b.Select(maxX, ai, bi)
		mul, add, sub := func(x, y *stablehlo.Value) *stablehlo.Value { return b.Binary("multiply", x, y) },
			func(x, y *stablehlo.Value) *stablehlo.Value { return b.Binary("add", x, y) },
			func(x, y *stablehlo.Value) *stablehlo.Value { return b.Binary("subtract", x, y) }
		// General case.
		e := b.Unary("exponential", sub(mr, Mr))
		di := sub(mi, Mi)
		wr, wi := mul(e, b.Unary("cosine", di)), mul(e, b.Unary("sine", di))
		lr := mul(k(0.5), b.Unary("log_plus_one", add(add(mul(k(2), wr), mul(wr, wr)), mul(wi, wi))))
		li := b.Op1("stablehlo.atan2", []*stablehlo.Value{wi, add(k(1), wr)}, nil)
		gr, gi := add(lr, Mr), add(li, Mi)
		// +inf tie: log(exp(min) + exp(max)).
		em, eM := b.Unary("exponential", mr), b.Unary("exponential", Mr)
		sr := add(mul(em, b.Unary("cosine", mi)), mul(eM, b.Unary("cosine", Mi)))
		si := add(mul(em, b.Unary("sine", mi)), mul(eM, b.Unary("sine", Mi)))
		pr := mul(k(0.5), b.Unary("log", add(mul(sr, sr), mul(si, si))))
		pi := b.Op1("stablehlo.atan2", []*stablehlo.Value{si, sr}, nil)
		inf := b.Compare("EQ", b.Unary("abs", mr), k(math.Inf(1)))
		tie := and(inf, b.Compare("EQ", mr, Mr))
		neg := b.Compare("LT", mr, k(0))
		rr := b.Select(tie, b.Select(neg, mr, pr), gr)
		ri := b.Select(tie, b.Select(neg, mi, pi), gi)
		nan := or(b.IsNaN(mr), b.IsNaN(mi))
		return []*stablehlo.Value{b.Select(nan, k(math.NaN()), rr), b.Select(nan, k(math.NaN()), ri)}
	})
	res := prefixWindow(c, []*stablehlo.Value{re, im}, []*stablehlo.Value{c.Splat(dtype.F64, nil, math.Inf(-1)), c.Splat(dtype.F64, nil, 0)}, dim, reg)
	if len(res) != 2 {
		return nil, c.Errorf("logcumsumexp: reduce_window produced %d results", len(res))
	}
	part := dtype.F64
	if out == dtype.C64 {
		part = dtype.F32
	}
	return one(c.Binary("complex", c.Convert(res[0], part), c.Convert(res[1], part))), nil
}
