// Package vmath is the float32 vector math of package native: exp,
// logistic, tanh and erf (and the exact negate and abs, square root and
// reciprocal square root, and the one-loop SiLU, hardswish, GELU,
// tanh-approximate GELU and its backward) over rows of float32 and as
// single values. Its callers are backend/native's elementwise kernels and
// fused loops (the float32 forms of their unary ops and of the chains
// they fold) and the convolution epilogue's activation; it knows nothing
// of tensors or ops.
//
// Each function F has a scalar form F(x) and a row form FRow(d, x),
// d[i] = F(x[i]) for d and x of equal length (d may be x), or, of two
// inputs, F(a, b) and FRow(d, a, b); the rows run the AVX-512 or AVX2
// loops of gen_vmath_amd64.s where the CPU has them (Lanes) and the
// scalar form for their tails, so both give the same bits.
package vmath

import "math"

//go:generate go run ../internal/vmathgen

// Float32 vector math: exp, logistic, tanh and erf (and the exact negate
// and abs) over rows of float32,
// computed in float32 with fused multiply-adds (AVX-512 or AVX2 loops
// from backend/native/internal/vmathgen, gen_vmath_amd64.s; these scalar
// forms elsewhere and for the rows' tails). The f32 kernels of the fused loops
// and of the unfused elementwise ops use them, so both give the same
// bits. Measured error against the exact value over every 101st float32
// bit pattern (vmath_test.go), in units of the result's last place:
//
//	exp       < 1 ulp      (PyTorch's vectorised exp: 1 ulp)
//	logistic  < 2.5 ulp    (PyTorch: 1 / (1 + exp(-x)) in float32)
//	tanh      < 1.1 ulp    (PyTorch: 1 ulp)
//	erf       < 2.5 ulp    (PyTorch: an absolute error near 1e-7)
//
// Special values are exact: NaN gives NaN, exp(±Inf) = +Inf and 0,
// logistic(±Inf) = 1 and 0, tanh(±Inf) = ±1, erf(±Inf) = ±1, and -0
// keeps its sign in tanh and erf; results below the normal range are
// rounded to the subnormal (or zero) they are nearest to, and exp
// overflows to +Inf from ln(MaxFloat32) on.
//
// exp: n = round(x log2 e), r = x - n ln2 (Cody-Waite, the first step
// exact), exp(r) = 1 + q with q = r + r² P(r), and 2^n (1 + q) formed as
// 2^h (2^l + 2^l q) (one fused rounding, then an exact scaling in the
// normal range). The polynomials are tools/vmathfit/fit.py's.

// fma32 is a float32 fused multiply-add (the float64 FMA of float32
// operands, rounded to float32: the product is exact in float64, so this
// differs from a single float32 rounding only in rare double-rounding
// cases).
func fma32(a, b, c float32) float32 { return float32(math.FMA(float64(a), float64(b), float64(c))) }

func horner32(c []float32, x float32) float32 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = fma32(p, x, c[i])
	}
	return p
}

// expQ returns q and n with exp(x) = 2^n (1 + q), x clamped to [vmExpLo,
// vmExpHi]; NaN stays NaN.
func expQ(x float32) (q, n float32) {
	x = clamp32(x, vmExpLo, vmExpHi)
	n = float32(math.RoundToEven(float64(x * vmLog2e)))
	r := fma32(n, -vmLn2Hi, x)
	r = fma32(n, -vmLn2Lo, r)
	return fma32(horner32(vmExpP[:], r), r*r, r), n
}

func clamp32(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// pow2Split returns 2^h and 2^l, h = floor(n/2), l = n - h.
func pow2Split(n float32) (float32, float32) {
	i := int(n)
	h := i >> 1
	return float32(math.Ldexp(1, h)), float32(math.Ldexp(1, i-h))
}

func pow2f(n float32) float32 {
	a, b := pow2Split(n)
	return a * b
}

// Exp is e^x (under 1 ulp).
func Exp(x float32) float32 {
	if x != x {
		return x
	}
	q, n := expQ(x)
	s1, s2 := pow2Split(n)
	return fma32(q, s2, s2) * s1
}

// Logistic is 1 / (1 + e^-x) (under 2.5 ulp).
func Logistic(x float32) float32 {
	if x != x {
		return x
	}
	q, n := expQ(-Abs(x))
	s := pow2f(n)
	den := fma32(q, s, 1+s)
	num := float32(1)
	if !(x >= 0) {
		num = fma32(q, s, s)
	}
	return num / den
}

// Tanh is the hyperbolic tangent of x (under 1.1 ulp).
func Tanh(x float32) float32 {
	if x != x {
		return x
	}
	a := Abs(x)
	if a < vmTanhCut {
		a2 := a * a
		return copysign32(fma32(horner32(vmTanhP[:], a2), a2*a, a), x)
	}
	a = min(a, vmTanhMax)
	q, n := expQ(a + a)
	s := pow2f(n)
	return copysign32(1-2/fma32(q, s, 1+s), x)
}

// Erf is the error function of x (under 2.5 ulp).
func Erf(x float32) float32 {
	if x != x {
		return x
	}
	a := Abs(x)
	if a < vmErfCut {
		return copysign32(horner32(vmErfP[:], a*a)*a, x)
	}
	a = min(a, vmErfMax)
	t := 1 / a
	q, n := expQ(-(a * a))
	sr := pow2f(n) * horner32(vmErfcR[:], t)
	return copysign32(1-fma32(q, sr, sr), x)
}

// Neg is -x (the sign bit flipped, as the float64 form does).
func Neg(x float32) float32 { return -x }

// SiLU is x / (1 + exp(-x)) with each op rounding as it does alone.
func SiLU(x float32) float32 {
	d := 1 + Exp(-x)
	return x / d
}

// SiLURow is SiLU over a row (one vector loop for the four ops).
func SiLURow(d, x []float32) { vrow(vkSiLU, SiLU, d, x) }

// Hardswish is x * min(max(x+3, 0), 6) / 6 with each op rounding as it
// does alone (aten's decomposition; a NaN x stays itself).
func Hardswish(x float32) float32 {
	if x != x {
		return x
	}
	t := x + 3
	t = max(t, 0)
	t = min(t, 6)
	m := x * t
	return m / 6
}

// HardswishRow is Hardswish over a row (one vector loop for the five ops).
func HardswishRow(d, x []float32) { vrow(vkHardswish, Hardswish, d, x) }

// GELU is (x * 0.5) * (1 + erf(x * vmRsqrt2)) with each op rounding as
// it does alone (aten's exact GELU).
func GELU(x float32) float32 {
	t := x * vmRsqrt2
	p := 1 + Erf(t)
	h := x * 0.5
	return h * p
}

// GELURow is GELU over a row (one vector loop for the five ops).
func GELURow(d, x []float32) { vrow(vkGELU, GELU, d, x) }

// GELUTanhIn is tanh(((x·x)·x·K1 + x)·K2), K1 = 0.044715 and K2 =
// sqrt(2/π) in float32, each op rounding as it does alone (the explicit
// conversions keep a compiler from fusing a multiply into an add): the
// inner chain of the tanh-approximate GELU, as aten and HuggingFace's
// gelu_new lower it.
func GELUTanhIn(x float32) float32 {
	c := float32(float32(x*x) * x)
	c = float32(c * vmGeluK1)
	t := float32(x + c)
	return Tanh(float32(t * vmGeluK2))
}

// GELUTanh is (x·0.5)·(GELUTanhIn(x) + 1), each op rounding alone.
func GELUTanh(x float32) float32 {
	p := float32(GELUTanhIn(x) + 1)
	h := float32(x * 0.5)
	return h * p
}

// GELUTanhRow is GELUTanh over a row (one vector loop for the nine ops).
func GELUTanhRow(d, x []float32) { vrow(vkGELUTanh, GELUTanh, d, x) }

// GELUTanhInRow is GELUTanhIn over a row (one vector loop for the six ops).
func GELUTanhInRow(d, x []float32) { vrow(vkGELUTanhIn, GELUTanhIn, d, x) }

// GELUTanhBackward is the tanh-approximate GELU's backward of the
// gradient g at the input x, as AOTAutograd decomposes it with the
// forward's tanh t = GELUTanhIn(x) recomputed:
//
//	w = ((g·(x·0.5))·(1 - t·t))·K2
//	w + (w·K1)·((x·x)·3) + (g·(t + 1))·0.5
//
// each op rounding as it does alone (the explicit conversions keep a
// compiler from fusing a multiply into an add), the operands in the
// graph's order. Where g is NaN the result is g's NaN (quieted): the ops
// one by one keep it, g being the first operand wherever it meets x's
// values (x86 returns the first source's NaN of two), and so on to the
// result; returning it first keeps a compiler's choice of operand order
// for the commutative ops below from deciding it. Otherwise a NaN comes
// from x alone, or is the machine's default NaN: either way the one NaN
// any order gives.
func GELUTanhBackward(g, x float32) float32 {
	if g != g {
		return math.Float32frombits(math.Float32bits(g) | 1<<22)
	}
	t := GELUTanhIn(x)
	a := float32(g * float32(x*0.5))
	q := float32(g * float32(t+1))
	u := float32(1 - float32(t*t))
	w := float32(float32(a*u) * vmGeluK2)
	r := float32(float32(w*vmGeluK1) * float32(float32(x*x)*3))
	return float32(w+r) + float32(q*0.5)
}

// GELUTanhBackwardRow is GELUTanhBackward over rows: d[i] =
// GELUTanhBackward(g[i], x[i]) (one vector loop for the 21 ops; d
// may be g or x).
func GELUTanhBackwardRow(d, g, x []float32) {
	vrow2(vkGELUTanhBackward, GELUTanhBackward, d, g, x)
}

// GELUBackward is the exact GELU's backward of the gradient g at x,
// g·(cdf + x·pdf) with cdf = (1 + erf(x·Rsqrt2))·0.5 and pdf =
// exp((x·x)·-0.5)·KB, each op rounding as it does alone (PyTorch's
// decomposition and aten's lowering of gelu_backward). A NaN g gives
// its own NaN, quieted (g is the last multiply's first source); any
// other NaN comes from x alone.
func GELUBackward(g, x float32) float32 {
	if g != g {
		return math.Float32frombits(math.Float32bits(g) | 1<<22)
	}
	cdf := float32(float32(Erf(float32(x*vmRsqrt2))+1) * 0.5)
	pdf := float32(Exp(float32(float32(x*x)*-0.5)) * vmGeluKB)
	return g * float32(cdf+float32(x*pdf))
}

// GELUBackwardRow is GELUBackward over rows: d[i] = GELUBackward(g[i],
// x[i]) (one vector loop for the 11 ops; d may be g or x).
func GELUBackwardRow(d, g, x []float32) { vrow2(vkGELUBackward, GELUBackward, d, g, x) }

// Abs is |x| (the sign bit cleared, as the float64 form does).
func Abs(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func copysign32(x, s float32) float32 {
	return math.Float32frombits(math.Float32bits(x)&^(1<<31) | math.Float32bits(s)&(1<<31))
}

// NegRow is Neg over a row.
func NegRow(d, x []float32) { vrow(vkNeg, Neg, d, x) }

// AbsRow is Abs over a row.
func AbsRow(d, x []float32) { vrow(vkAbs, Abs, d, x) }

// ExpRow is Exp over a row.
func ExpRow(d, x []float32) { vrow(vkExp, Exp, d, x) }

// LogisticRow is Logistic over a row.
func LogisticRow(d, x []float32) { vrow(vkLogistic, Logistic, d, x) }

// TanhRow is Tanh over a row.
func TanhRow(d, x []float32) { vrow(vkTanh, Tanh, d, x) }

// ErfRow is Erf over a row.
func ErfRow(d, x []float32) { vrow(vkErf, Erf, d, x) }

// Sqrt, Rsqrt and their rows are the float64 forms rounded, the rows in
// loops the compiler inlines (a square root instruction per element, not
// a call).

// Sqrt is √x, computed in float64 and rounded.
func Sqrt(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// Rsqrt is 1/√x, computed in float64 and rounded.
func Rsqrt(x float32) float32 { return float32(1 / math.Sqrt(float64(x))) }

// SqrtRow is Sqrt over a row.
func SqrtRow(d, x []float32) { vrow(vkSqrt, Sqrt, d, x) }

// RsqrtRow is Rsqrt over a row.
func RsqrtRow(d, x []float32) {
	x = x[:len(d)]
	for i, v := range x {
		d[i] = float32(1 / math.Sqrt(float64(v)))
	}
}

// The constants of GELU and the tanh-approximate GELU (GELUTanhIn), for
// callers that recognise those functions' chains of ops.
const (
	Rsqrt2 = vmRsqrt2 // 1/√2, the scale of GELU's erf argument
	GELUK1 = vmGeluK1 // 0.044715, the cube's factor in GELUTanhIn
	GELUK2 = vmGeluK2 // √(2/π), the scale of GELUTanhIn's tanh argument
	GELUKB = vmGeluKB // 1/√(2π), the scale of the exact GELU backward's pdf
)

// Lanes is the width of the vector loops the rows run: 16 (AVX-512), 8
// (AVX2 with FMA), or 0 where there are none (other CPUs, purego builds)
// and the rows run the scalar forms.
func Lanes() int { return vmathLanes }

// Kernels of vrow (indexes of the assembly loops).
const (
	vkNeg = iota
	vkAbs
	vkSiLU
	vkGELU
	vkExp
	vkLogistic
	vkTanh
	vkErf
	vkHardswish
	vkGELUTanh
	vkGELUTanhIn
	vkSqrt
	vkGELUTanhBackward // of two inputs (vrow2)
	vkGELUBackward     // of two inputs (vrow2)
)

// vrow runs kernel k over the whole vectors of x, and f over the rest.
func vrow(k int, f func(float32) float32, d, x []float32) {
	x = x[:len(d)]
	n := vloops(k, d, x)
	for i := n; i < len(d); i++ {
		d[i] = f(x[i])
	}
}

// vrow2 runs kernel k, of two inputs, over the whole vectors of a and b,
// and f over the rest.
func vrow2(k int, f func(float32, float32) float32, d, a, b []float32) {
	a, b = a[:len(d)], b[:len(d)]
	n := vloops2(k, d, a, b)
	for i := n; i < len(d); i++ {
		d[i] = f(a[i], b[i])
	}
}
