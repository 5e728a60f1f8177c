package aten

import "math"

// Bessel functions as PyTorch's CPU kernels compute them (Cephes): J0, J1,
// Y0, Y1 by rational approximations below 5 and the asymptotic form
// above; I0, I1 (and the exp-scaled I0e, I1e) and K0, K1 (and the scaled
// forms) by Chebyshev series; the Airy function Ai; the spherical J0.
// Tables: gen_special_tables.go. Every branch is computed and the right
// one selected.

func init() {
	specialUnary("aten::special_bessel_j0", besselJ0)
	specialUnary("aten::special_bessel_j1", besselJ1)
	specialUnary("aten::special_bessel_y0", besselY0)
	specialUnary("aten::special_bessel_y1", besselY1)
	for _, name := range []string{"aten::i0", "aten::special_modified_bessel_i0"} {
		specialUnary(name, func(s sp, x hv) hv { return besselI(s, x, false, false) })
	}
	specialUnary("aten::special_i0e", func(s sp, x hv) hv { return besselI(s, x, false, true) })
	for _, name := range []string{"aten::special_i1", "aten::special_modified_bessel_i1"} {
		specialUnary(name, func(s sp, x hv) hv { return besselI(s, x, true, false) })
	}
	specialUnary("aten::special_i1e", func(s sp, x hv) hv { return besselI(s, x, true, true) })
	specialUnary("aten::special_modified_bessel_k0", func(s sp, x hv) hv { return besselK(s, x, false, false) })
	specialUnary("aten::special_modified_bessel_k1", func(s sp, x hv) hv { return besselK(s, x, true, false) })
	specialUnary("aten::special_scaled_modified_bessel_k0", func(s sp, x hv) hv { return besselK(s, x, false, true) })
	specialUnary("aten::special_scaled_modified_bessel_k1", func(s sp, x hv) hv { return besselK(s, x, true, true) })
	specialUnary("aten::special_airy_ai", airyAi)
	specialUnary("aten::special_spherical_bessel_j0", func(s sp, x hv) hv {
		z := s.mul(x, x)
		series := s.addk(s.mul(z, s.horner(z, []float64{1.0 / 6227020800, -1.0 / 39916800, 1.0 / 362880, -1.0 / 5040, 1.0 / 120, -1.0 / 6})), 1)
		r := s.sel(s.lt(s.abs(x), s.k(0.5)), series, s.div(s.sin(x), x))
		return s.sel(s.eq(s.abs(x), s.k(math.Inf(1))), s.k(0), r)
	})
}

// besselAsym is the large-argument form shared by J and Y: with
// w = 25/x², P = pp(w)/pq(w), Q = 5/x·qp(w)/qq(w) and θ = x - phase,
// J = (P cos θ - Q sin θ)·√(2/π)/√x and Y = (P sin θ + Q cos θ)·√(2/π)/√x.
func besselAsym(s sp, x hv, pp, pq, qp, qq []float64, phase float64, y bool) hv {
	w := s.div(s.k(25), s.mul(x, x))
	p := s.div(s.horner(w, pp), s.horner(w, pq))
	q := s.mul(s.div(s.k(5), x), s.div(s.horner(w, qp), s.horner(w, qq)))
	th := s.addk(x, -phase)
	var r hv
	if y {
		r = s.add(s.mul(p, s.sin(th)), s.mul(q, s.cos(th)))
	} else {
		r = s.sub(s.mul(p, s.cos(th)), s.mul(q, s.sin(th)))
	}
	return s.div(s.mulk(r, math.Sqrt(2/math.Pi)), s.sqrt(x))
}

func besselJ0(s sp, x hv) hv {
	ax := s.abs(x)
	z := s.mul(ax, ax)
	small := s.sub(s.k(1), s.div(z, s.k(4)))
	mid := s.mul(s.mul(s.addk(z, -5.78318596294678452118), s.addk(z, -3.04712623436620863991e+01)),
		s.div(s.horner(z, besselJ0RP), s.horner(z, besselJ0RQ)))
	big := besselAsym(s, ax, besselJ0PP, besselJ0PQ, besselJ0QP, besselJ0QQ, math.Pi/4, false)
	r := s.sel(s.le(ax, s.k(5)), s.sel(s.lt(ax, s.k(1e-5)), small, mid), big)
	return r
}

func besselJ1(s sp, x hv) hv {
	ax := s.abs(x)
	z := s.mul(ax, ax)
	mid := s.mul(s.mul(s.mul(s.div(s.horner(z, besselJ1RP), s.horner(z, besselJ1RQ)), ax),
		s.addk(z, -1.46819706421238932572e+01)), s.addk(z, -4.92184563216946036703e+01))
	big := besselAsym(s, ax, besselJ1PP, besselJ1PQ, besselJ1QP, besselJ1QQ, 3*math.Pi/4, false)
	r := s.sel(s.le(ax, s.k(5)), mid, big)
	return s.sel(s.lt(x, s.k(0)), s.neg(r), r)
}

func besselY0(s sp, x hv) hv {
	z := s.mul(x, x)
	mid := s.add(s.div(s.horner(z, besselY0YP), s.horner(z, besselY0YQ)),
		s.mul(s.mulk(s.log(x), 2/math.Pi), besselJ0(s, x)))
	big := besselAsym(s, x, besselJ0PP, besselJ0PQ, besselJ0QP, besselJ0QQ, math.Pi/4, true)
	r := s.sel(s.le(x, s.k(5)), mid, big)
	r = s.sel(s.lt(x, s.k(0)), s.k(math.NaN()), r)
	return s.sel(s.eq(x, s.k(0)), s.k(math.Inf(-1)), r)
}

func besselY1(s sp, x hv) hv {
	z := s.mul(x, x)
	mid := s.add(s.mul(x, s.div(s.horner(z, besselY1YP), s.horner(z, besselY1YQ))),
		s.mulk(s.sub(s.mul(besselJ1(s, x), s.log(x)), s.div(s.k(1), x)), 2/math.Pi))
	big := besselAsym(s, x, besselJ1PP, besselJ1PQ, besselJ1QP, besselJ1QQ, 3*math.Pi/4, true)
	r := s.sel(s.le(x, s.k(5)), mid, big)
	r = s.sel(s.lt(x, s.k(0)), s.k(math.NaN()), r)
	return s.sel(s.eq(x, s.k(0)), s.k(math.Inf(-1)), r)
}

// besselI is I0 or I1 (odd), exp-scaled with scaled: exp(|x|)·A(|x|/2 - 2)
// up to 8 (times |x| for I1), exp(|x|)·B(32/|x| - 2)/√|x| beyond.
func besselI(s sp, x hv, one, scaled bool) hv {
	a, b := besselI0A, besselI0B
	if one {
		a, b = besselI1A, besselI1B
	}
	ax := s.abs(x)
	lo := s.chbevl(s.addk(s.div(ax, s.k(2)), -2), a)
	if one {
		lo = s.mul(lo, ax)
	}
	hi := s.div(s.chbevl(s.addk(s.div(s.k(32), ax), -2), b), s.sqrt(ax))
	r := s.sel(s.le(ax, s.k(8)), lo, hi)
	if !scaled {
		r = s.mul(s.exp(ax), r)
	}
	if one {
		r = s.sel(s.lt(x, s.k(0)), s.neg(r), r)
	}
	return r
}

// besselK is K0 or K1 (scaled: times exp(x)): up to 2 the series in x² - 2
// with the log(x/2)·I term, beyond exp(-x)·B(8/x - 2)/√x.
func besselK(s sp, x hv, one, scaled bool) hv {
	a, b := besselK0A, besselK0B
	if one {
		a, b = besselK1A, besselK1B
	}
	lg := s.log(s.mulk(x, 0.5))
	cheb := s.chbevl(s.addk(s.mul(x, x), -2), a)
	var lo hv
	if one {
		lo = s.add(s.mul(lg, besselI(s, x, true, false)), s.div(cheb, x))
	} else {
		lo = s.sub(cheb, s.mul(lg, besselI(s, x, false, false)))
	}
	hi := s.div(s.chbevl(s.addk(s.div(s.k(8), x), -2), b), s.sqrt(x))
	if scaled {
		lo = s.mul(lo, s.exp(x))
	} else {
		hi = s.mul(s.exp(s.neg(x)), hi)
	}
	r := s.sel(s.le(x, s.k(2)), lo, hi)
	r = s.sel(s.lt(x, s.k(0)), s.k(math.NaN()), r)
	return s.sel(s.eq(x, s.k(0)), s.k(math.Inf(1)), r)
}

// airyAi: the oscillating asymptotic form below -2.09, the power series
// up to 2.09, the decaying rational form beyond (0 past 103.892).
func airyAi(s sp, x hv) hv {
	const c1, c2, sqpii = 0.355028053887817239260, 0.258819403792806798405, 5.64189583547756286948e-01
	// x < -2.09
	nx := s.neg(x)
	zeta := s.mulk(s.mul(nx, s.sqrt(nx)), 2.0/3)
	z := s.div(s.k(1), zeta)
	zz := s.mul(z, z)
	afn, afd := s.horner(zz, airyAFN), s.horner(zz, airyAFD)
	agn, agd := s.horner(zz, airyAGN), s.horner(zz, airyAGD)
	t := s.addk(zeta, math.Pi/4)
	neg := s.mul(s.div(s.k(sqpii), s.sqrt(s.sqrt(nx))),
		s.sub(s.mul(s.sin(t), s.addk(s.mul(zz, s.div(afn, afd)), 1)), s.mul(s.cos(t), s.mul(z, s.div(agn, agd)))))
	// x >= 2.09
	zp := s.mulk(s.mul(x, s.sqrt(x)), 2.0/3)
	iz := s.div(s.k(1), zp)
	pos := s.div(s.mulk(s.div(s.horner(iz, airyAN), s.horner(iz, airyAD)), sqpii),
		s.mul(s.mulk(s.sqrt(s.sqrt(x)), 2), s.exp(zp)))
	// |x| < 2.09: f and g, the two series in x³ (converged after 20 terms).
	f, g, k, m, n := s.k(1), x, 1.0, s.k(1), x
	z3 := s.mul(s.mul(x, x), x)
	for i := 0; i < 20; i++ {
		m = s.mul(m, z3)
		k++
		m = s.div(m, s.k(k))
		n = s.mul(n, z3)
		k++
		n = s.div(n, s.k(k))
		m = s.div(m, s.k(k))
		f = s.add(f, m)
		k++
		n = s.div(n, s.k(k))
		g = s.add(g, n)
	}
	series := s.sub(s.mulk(f, c1), s.mulk(g, c2))
	r := s.sel(s.lt(x, s.k(-2.09)), neg, s.sel(s.lt(x, s.k(2.09)), series, pos))
	r = s.sel(s.gt(x, s.k(103.892)), s.k(0), r)
	return s.sel(s.eq(s.abs(x), s.k(math.Inf(1))), s.k(math.NaN()), r)
}
