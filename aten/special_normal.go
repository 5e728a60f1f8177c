package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// The normal distribution's special functions: ndtri (Cephes' inverse by
// rational approximations in three ranges), erfcx = exp(x²)·erfc(x) and
// log_ndtr (log of the CDF, through erfcx in the lower tail, as
// PyTorch's CPU kernels compute it).

func init() {
	specialUnary("aten::special_ndtri", ndtri)
	specialUnary("aten::special_erfcx", erfcx)
	specialUnary("aten::special_log_ndtr", func(s sp, x hv) hv {
		t := s.mulk(x, 1/math.Sqrt2)
		lower := s.sub(s.log(s.mulk(erfcx(s, s.neg(t)), 0.5)), s.mul(t, t))
		upper := s.fn("log_plus_one", s.neg(s.mulk(s.c.Chlo("erfc", t), 0.5)))
		return s.sel(s.lt(x, s.k(-1)), lower, upper)
	})
}

func ndtri(s sp, y0 hv) hv {
	const expm2 = 0.13533528323661269189 // exp(-2)
	flip := s.gt(y0, s.k(1-expm2))
	y := s.sel(flip, s.sub(s.k(1), y0), y0)
	// Middle: |y - 0.5| <= 3/8.
	ym := s.addk(y, -0.5)
	y2 := s.mul(ym, ym)
	mid := s.mulk(s.add(ym, s.mul(ym, s.div(s.mul(y2, s.horner(y2, ndtriP0)), s.horner(y2, ndtriQ0)))), 2.50662827463100050242)
	// Tails in z = 1/sqrt(-2 log y).
	x := s.sqrt(s.mulk(s.log(y), -2))
	x0 := s.sub(x, s.div(s.log(x), x))
	z := s.div(s.k(1), x)
	x1 := s.sel(s.lt(x, s.k(8)),
		s.div(s.mul(z, s.horner(z, ndtriP1)), s.horner(z, ndtriQ1)),
		s.div(s.mul(z, s.horner(z, ndtriP2)), s.horner(z, ndtriQ2)))
	tail := s.sub(x0, x1)
	tail = s.sel(flip, tail, s.neg(tail))
	r := s.sel(s.gt(y, s.k(expm2)), mid, tail)
	r = s.sel(s.or(s.lt(y0, s.k(0)), s.gt(y0, s.k(1))), s.k(math.NaN()), r)
	r = s.sel(s.eq(y0, s.k(0)), s.k(math.Inf(-1)), r)
	return s.sel(s.eq(y0, s.k(1)), s.k(math.Inf(1)), r)
}

// erfcx: exp(x²)·erfc(x) while exp(x²) is finite, the continued fraction
// of the Faddeeva function beyond; for x < 0, 2·exp(x²) - erfcx(-x).
func erfcx(s sp, x hv) hv {
	limit := 26.0
	if s.dt != dtype.F64 {
		limit = 9
	}
	pos := func(a hv) hv {
		direct := s.mul(s.exp(s.mul(a, a)), s.c.Chlo("erfc", a))
		a2 := s.mul(a, a)
		const ispi = 0.56418958354775628694807945156 // 1/sqrt(pi)
		cf := s.div(s.mulk(s.addk(s.mul(a2, s.addk(a2, 4.5)), 2), ispi), s.mul(a, s.addk(s.mul(a2, s.addk(a2, 5)), 3.75)))
		cf = s.sel(s.gt(a, s.k(5e7)), s.div(s.k(ispi), a), cf)
		return s.sel(s.lt(a, s.k(limit)), direct, cf)
	}
	ax := s.abs(x)
	e2 := s.mulk(s.exp(s.mul(x, x)), 2)
	neg := s.sub(e2, pos(ax))
	neg = s.sel(s.lt(x, s.k(-6.1)), e2, neg)
	neg = s.sel(s.lt(x, s.k(-26.7)), s.k(math.Inf(1)), neg)
	r := s.sel(s.lt(x, s.k(0)), neg, pos(x))
	return s.sel(s.isnan(x), x, r)
}
