package native

// Real special functions of CHLO not in the math package, in float64.

import "math"

// lgammaReal is log|Γ(x)|, +Inf at the poles and at ±Inf.
func lgammaReal(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.Inf(1)
	}
	v, _ := math.Lgamma(x)
	return v
}

// digamma is ψ(x) = Γ'(x)/Γ(x): reflection below 1/2, the recurrence
// ψ(x) = ψ(x+1) - 1/x up to x ≥ 10, then the asymptotic series.
func digamma(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, -1):
		return math.NaN()
	case math.IsInf(x, 1):
		return x
	case x <= 0 && x == math.Floor(x):
		return math.NaN()
	}
	if x < 0.5 {
		// ψ(1-x) - ψ(x) = π cot(πx)
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	acc := 0.0
	for x < 10 {
		acc -= 1 / x
		x++
	}
	x2 := 1 / (x * x)
	// Σ B_2k / (2k x^2k), k = 1..7
	series := x2 * (1.0/12 - x2*(1.0/120-x2*(1.0/252-x2*(1.0/240-x2*(1.0/132-x2*(691.0/32760-x2/12))))))
	return acc + math.Log(x) - 0.5/x - series
}

// besselI1e is exp(-|x|)·I₁(x): the power series below 20, the
// asymptotic expansion above.
func besselI1e(x float64) float64 {
	ax := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return x
	case ax == 0:
		return x
	case math.IsInf(x, 0):
		return math.Copysign(0, x)
	}
	var v float64
	if ax <= 20 {
		// I₁(x) = Σ (x/2)^(2k+1) / (k! (k+1)!)
		h := ax / 2
		term := h
		sum := term
		q := h * h
		for k := 1; k < 500; k++ {
			term *= q / (float64(k) * float64(k+1))
			sum += term
			if term < sum*1e-17 {
				break
			}
		}
		v = sum * math.Exp(-ax)
	} else {
		// I₁(x) e^{-x} ~ 1/√(2πx) Σ (-1)^k a_k(1) / x^k,
		// a_k = Π_{j=1..k} (4 - (2j-1)²) / (8 j)
		sum := 1.0
		term := 1.0
		for k := 1; k < 60; k++ {
			f := float64(2*k - 1)
			next := term * -(4 - f*f) / (8 * float64(k) * ax)
			if math.Abs(next) > math.Abs(term) {
				break
			}
			term = next
			sum += term
			if math.Abs(term) < 1e-17 {
				break
			}
		}
		v = sum / math.Sqrt(2*math.Pi*ax)
	}
	return math.Copysign(v, x)
}

// hurwitzZeta is ζ(s, q) = Σ_{k≥0} (k+q)^-s for s > 1, by Euler–Maclaurin
// summation.
func hurwitzZeta(s, q float64) float64 {
	switch {
	case math.IsNaN(s) || math.IsNaN(q):
		return math.NaN()
	case s == 1:
		return math.Inf(1)
	case s < 1:
		return math.NaN()
	case q <= 0:
		if q == math.Floor(q) {
			return math.Inf(1)
		}
		if s != math.Floor(s) {
			return math.NaN()
		}
	}
	const n = 12
	sum := 0.0
	for k := 0; k < n; k++ {
		sum += math.Pow(q+float64(k), -s)
	}
	a := q + n
	sum += math.Pow(a, 1-s)/(s-1) + 0.5*math.Pow(a, -s)
	// Σ_j B_2j/(2j)! · s(s+1)…(s+2j-2) · a^(-s-2j+1)
	b2j := []float64{1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510}
	fact := 1.0 // (2j)!
	rising := s // s(s+1)…(s+2j-2)
	pow := math.Pow(a, -s-1)
	for j := 1; j <= len(b2j); j++ {
		fact *= float64(2*j-1) * float64(2*j)
		term := b2j[j-1] / fact * rising * pow
		sum += term
		rising *= (s + float64(2*j-1)) * (s + float64(2*j))
		pow /= a * a
	}
	return sum
}

// polygamma is ψ⁽ⁿ⁾(x) for integer n ≥ 0: digamma for n = 0, else
// (-1)^(n+1) n! ζ(n+1, x).
func polygamma(n, x float64) float64 {
	if math.IsNaN(n) || math.IsNaN(x) || n < 0 || n != math.Floor(n) {
		return math.NaN()
	}
	if n == 0 {
		return digamma(x)
	}
	f, _ := math.Lgamma(n + 1)
	sign := -1.0
	if int64(n)%2 == 1 {
		sign = 1
	}
	return sign * math.Exp(f) * hurwitzZeta(n+1, x)
}

// coshDecomposed is CHLO's cosh: e^(x + log ½) + e^(log ½ - x), each step
// rounded by r.
func coshDecomposed(x float64, r func(float64) float64) float64 {
	l := r(math.Log(0.5))
	return r(r(math.Exp(r(x+l))) + r(math.Exp(r(l-x))))
}

// sinhDecomposed is CHLO's sinh: for |x| < 1, (expm1(x) + expm1(x) /
// (expm1(x) + 1)) / 2, else e^(x + log ½) - e^(log ½ - x); each step
// rounded by r.
func sinhDecomposed(x float64, r func(float64) float64) float64 {
	if math.Abs(x) < 1 {
		e := r(math.Expm1(x))
		return r(0.5 * r(e+r(e/r(e+1))))
	}
	l := r(math.Log(0.5))
	return r(r(math.Exp(r(x+l))) - r(math.Exp(r(l-x))))
}
