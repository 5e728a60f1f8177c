package native

import "math"

// powAccurate is x**y within about one or two ULP: log(x) is computed in
// double-double precision, multiplied by y exactly (FMA), and exponentiated.
// Go's math.Pow loses up to tens of ULP for large exponents (it multiplies
// out the integer part of y), where C libraries and XLA are close to
// correctly rounded.
func powAccurate(x, y float64) float64 {
	switch {
	case x == 1 || y == 0:
		return 1
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0:
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		yi, yf := math.Modf(y)
		if yf != 0 {
			return math.NaN()
		}
		x = -x
		// An odd integer exponent keeps the sign (|y| < 2^53 here, or y is
		// even).
		neg = math.Abs(yi) < 1<<53 && int64(yi)%2 != 0
	}
	lh, ll := logDD(x)
	th := y * lh
	tl := math.FMA(y, lh, -th) + y*ll
	if th > 709.8 {
		r := math.Inf(1)
		if neg {
			r = -r
		}
		return r
	}
	r := expDD(th, tl)
	if neg {
		r = -r
	}
	return r
}

// expDD returns exp(hi+lo) for a double-double argument: with
// hi+lo = k ln2 + r, |r| <= ln2/2, exp = 2^k (1 + expm1(r)), the small
// part summed before the 1 so that it is rounded once.
func expDD(hi, lo float64) float64 {
	if hi < -746 {
		return 0
	}
	k := math.Round(hi / math.Ln2)
	rh := math.FMA(-k, ln2Hi, hi)
	rl := lo - k*ln2Lo
	em := math.Expm1(rh)
	return math.Ldexp(1+(em+rl*(1+em)), int(k))
}

// ln2 split in two doubles.
const (
	ln2Hi = 6.93147180559945286227e-01
	ln2Lo = 2.31904681384629955842e-17
)

// twoSum returns a+b as an unevaluated sum s+e.
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// logDD returns log(x) for a finite x > 0 as hi+lo, with a relative error
// near 2^-100: x = m * 2^k with m in [sqrt(1/2), sqrt(2)), and
// log(m) = 2 atanh(s), s = (m-1)/(m+1), summed as s + s³/3 + s⁵/5 + ...
func logDD(x float64) (hi, lo float64) {
	m, k := math.Frexp(x) // m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		k--
	}
	num := m - 1 // exact (Sterbenz)
	dh, dl := twoSum(m, 1)
	sh := num / dh
	// s = num / (dh + dl): correct the quotient with its residual.
	r := math.FMA(-sh, dh, num) - sh*dl
	sl := r / dh
	s2 := sh * sh
	// Tail s³/3 + s⁵/5 + ... relative to s, in float64 (it is at most 1%
	// of s, so float64 suffices).
	var p float64
	for n := 41; n >= 3; n -= 2 {
		p = p*s2 + 1/float64(n)
	}
	tail := sh * s2 * p
	// log(m) = 2 (sh + sl + tail).
	lh, ll := twoSum(2*sh, 2*tail)
	ll += 2 * sl
	// k ln2 in double-double.
	kf := float64(k)
	kh := kf * ln2Hi
	kl := math.FMA(kf, ln2Hi, -kh) + kf*ln2Lo
	hi, e := twoSum(kh, lh)
	lo = e + kl + ll
	hi, lo = twoSum(hi, lo)
	return hi, lo
}
