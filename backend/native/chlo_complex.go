package native

// Complex forms of the CHLO inverse trigonometric and hyperbolic
// functions. asin, acos, asinh and acosh share one kernel, after Hull,
// Fairgrieve and Tang ("Implementing the complex arcsine and arccosine
// functions using exception handling", 1997) with the reduced set of
// regions CHLO's decomposition uses, so that the results agree with XLA's
// to the last bits; the others use math/cmplx.

import (
	"math"
	"math/cmplx"
)

// asinAcosKernel returns w with real part sqrt(a² - x²) and imaginary part
// log(a + sqrt(a² - 1)), where x, y = |Re z|, |Im z| and
// a = (hypot(x+1, y) + hypot(x-1, y)) / 2, evaluated without overflow or
// cancellation.
func asinAcosKernel(z complex128) complex128 {
	x, y := math.Abs(real(z)), math.Abs(imag(z))
	safeMax := math.Sqrt(math.MaxFloat64) / 8
	xp1, xm1 := x+1, x-1
	// hyp returns hypot(p, y) for p ≥ 0 as CHLO computes it.
	hyp := func(p float64) float64 {
		mx, mn := math.Max(p, y), math.Min(p, y)
		if mx == mn {
			return math.Sqrt2 * mx
		}
		q := mn / mx
		r0 := q * q
		sqa := math.Sqrt(1 + r0)
		if sqa == 1 && r0 > 0 {
			return mx + mx*r0/2
		}
		return mx * sqa
	}
	r := hyp(math.Abs(xp1))
	s := hyp(math.Abs(xm1))
	a := 0.5 * (r + s)
	halfApx := 0.5 * (a + x)
	yy := y * y
	rpxp1 := r + xp1
	smxm1 := s - xm1
	spxm1 := s + xm1

	var wr float64
	switch {
	case math.Max(x, y) >= safeMax:
		wr = y
	case x <= 1:
		wr = math.Sqrt(halfApx * (yy/rpxp1 + smxm1))
	default:
		wr = y * math.Sqrt(halfApx/rpxp1+halfApx/spxm1)
	}

	safeMaxOpt := safeMax * 100
	if x < safeMax*1e12 {
		safeMaxOpt = safeMax * 1e-6
	}
	yBig := y >= safeMaxOpt
	mx1, lim := x, safeMax
	if yBig {
		mx1, lim = y, safeMaxOpt
	}
	var wi float64
	if mx1 >= lim {
		xoy := 0.0
		if yBig && !math.IsInf(y, 1) {
			xoy = x / y
		}
		wi = math.Ln2 + math.Log(mx1) + 0.5*math.Log1p(xoy*xoy)
	} else {
		tiny := y < math.Sqrt(0x1p-1022)*4 && x < 1
		ap1 := a + 1
		halfYY := 0.5 * yy
		var am1 float64
		switch {
		case tiny:
			am1 = -(xp1 * xm1) / ap1
		case x >= 1:
			am1 = halfYY/rpxp1 + 0.5*spxm1
		case a <= 1.5:
			am1 = halfYY/rpxp1 + halfYY/smxm1
		default:
			am1 = a - 1
		}
		sq := math.Sqrt(am1 * ap1)
		if tiny {
			wi = y / sq
		} else {
			wi = math.Log1p(am1 + sq)
		}
	}
	return complex(wr, wi)
}

func cAsin(z complex128) complex128 {
	w := asinAcosKernel(z)
	im := imag(w)
	if imag(z) < 0 {
		im = -im
	}
	return complex(math.Atan2(real(z), real(w)), im)
}

func cAcos(z complex128) complex128 {
	w := asinAcosKernel(z)
	im := -imag(w)
	if imag(z) < 0 {
		im = imag(w)
	}
	return complex(math.Atan2(real(w), real(z)), im)
}

func cAsinh(z complex128) complex128 {
	w := asinAcosKernel(complex(-imag(z), real(z)))
	re := imag(w)
	if real(z) < 0 {
		re = -re
	}
	return complex(re, math.Atan2(imag(z), real(w)))
}

func cAcosh(z complex128) complex128 {
	w := asinAcosKernel(z)
	im := math.Atan2(real(w), real(z))
	if imag(z) < 0 {
		im = -im
	}
	return complex(imag(w), im)
}

func cAtan(z complex128) complex128  { return cmplx.Atan(z) }
func cAtanh(z complex128) complex128 { return cmplx.Atanh(z) }
func cSinh(z complex128) complex128  { return cmplx.Sinh(z) }
func cCosh(z complex128) complex128  { return cmplx.Cosh(z) }
func cTan(z complex128) complex128 {
	if math.IsInf(imag(z), 0) {
		return complex(0, math.Copysign(1, imag(z)))
	}
	return cmplx.Tan(z)
}
