package native

import "math"

//go:generate go run ./internal/vmathgen

// Float32 vector math: exp, logistic, tanh and erf (and the exact negate
// and abs) over rows of float32,
// computed in float32 with fused multiply-adds (AVX-512 or AVX2 loops
// from internal/vmathgen, gen_vmath_amd64.s; these scalar forms
// elsewhere and for the rows' tails). The f32 kernels of the fused loops
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

func exp32(x float32) float32 {
	if x != x {
		return x
	}
	q, n := expQ(x)
	s1, s2 := pow2Split(n)
	return fma32(q, s2, s2) * s1
}

func logistic32(x float32) float32 {
	if x != x {
		return x
	}
	q, n := expQ(-abs32(x))
	s := pow2f(n)
	den := fma32(q, s, 1+s)
	num := float32(1)
	if !(x >= 0) {
		num = fma32(q, s, s)
	}
	return num / den
}

func tanh32(x float32) float32 {
	if x != x {
		return x
	}
	a := abs32(x)
	if a < vmTanhCut {
		a2 := a * a
		return copysign32(fma32(horner32(vmTanhP[:], a2), a2*a, a), x)
	}
	a = min(a, vmTanhMax)
	q, n := expQ(a + a)
	s := pow2f(n)
	return copysign32(1-2/fma32(q, s, 1+s), x)
}

func erf32(x float32) float32 {
	if x != x {
		return x
	}
	a := abs32(x)
	if a < vmErfCut {
		return copysign32(horner32(vmErfP[:], a*a)*a, x)
	}
	a = min(a, vmErfMax)
	t := 1 / a
	q, n := expQ(-(a * a))
	sr := pow2f(n) * horner32(vmErfcR[:], t)
	return copysign32(1-fma32(q, sr, sr), x)
}

func neg32(x float32) float32 { return -x }

// silu32 is x / (1 + exp(-x)) with each op rounding as it does alone.
func silu32(x float32) float32 {
	d := 1 + exp32(-x)
	return x / d
}

// siluRow is silu32 over a row (one vector loop for the four ops).
func siluRow(d, x []float32) { vrow(vkSiLU, silu32, d, x) }

// hardswish32 is x * min(max(x+3, 0), 6) / 6 with each op rounding as it
// does alone (aten's decomposition; a NaN x stays itself).
func hardswish32(x float32) float32 {
	if x != x {
		return x
	}
	t := x + 3
	t = max(t, 0)
	t = min(t, 6)
	m := x * t
	return m / 6
}

// hardswishRow is hardswish32 over a row (one vector loop for the five ops).
func hardswishRow(d, x []float32) { vrow(vkHardswish, hardswish32, d, x) }

// gelu32 is (x * 0.5) * (1 + erf(x * vmRsqrt2)) with each op rounding as
// it does alone (aten's exact GELU).
func gelu32(x float32) float32 {
	t := x * vmRsqrt2
	p := 1 + erf32(t)
	h := x * 0.5
	return h * p
}

// geluRow is gelu32 over a row (one vector loop for the five ops).
func geluRow(d, x []float32) { vrow(vkGELU, gelu32, d, x) }

// geluTanhIn32 is tanh(((x·x)·x·K1 + x)·K2), K1 = 0.044715 and K2 =
// sqrt(2/π) in float32, each op rounding as it does alone (the explicit
// conversions keep a compiler from fusing a multiply into an add): the
// inner chain of the tanh-approximate GELU, as aten and HuggingFace's
// gelu_new lower it.
func geluTanhIn32(x float32) float32 {
	c := float32(float32(x*x) * x)
	c = float32(c * vmGeluK1)
	t := float32(x + c)
	return tanh32(float32(t * vmGeluK2))
}

// geluTanh32 is (x·0.5)·(geluTanhIn32(x) + 1), each op rounding alone.
func geluTanh32(x float32) float32 {
	p := float32(geluTanhIn32(x) + 1)
	h := float32(x * 0.5)
	return h * p
}

// geluTanhRow and geluTanhInRow are their functions over a row (one
// vector loop for the nine and the six ops).
func geluTanhRow(d, x []float32)   { vrow(vkGELUTanh, geluTanh32, d, x) }
func geluTanhInRow(d, x []float32) { vrow(vkGELUTanhIn, geluTanhIn32, d, x) }

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func copysign32(x, s float32) float32 {
	return math.Float32frombits(math.Float32bits(x)&^(1<<31) | math.Float32bits(s)&(1<<31))
}

// A vmathFn computes one function over a row: d[i] = f(x[i]), d and x of
// equal length (d may be x).
type vmathFn func(d, x []float32)

// vmathOps maps the ops with float32 forms to their rows and scalars
// (registerUnary puts them into the ops' unaryFns).
var vmathOps = map[string]struct {
	row    vmathFn
	scalar func(float32) float32
}{
	// exact: the sign bit flipped or cleared, as the float64 forms do
	"stablehlo.negate":      {func(d, x []float32) { vrow(vkNeg, neg32, d, x) }, neg32},
	"stablehlo.abs":         {func(d, x []float32) { vrow(vkAbs, abs32, d, x) }, abs32},
	"stablehlo.exponential": {func(d, x []float32) { vrow(vkExp, exp32, d, x) }, exp32},
	"stablehlo.logistic":    {func(d, x []float32) { vrow(vkLogistic, logistic32, d, x) }, logistic32},
	"stablehlo.tanh":        {func(d, x []float32) { vrow(vkTanh, tanh32, d, x) }, tanh32},
	"chlo.erf":              {func(d, x []float32) { vrow(vkErf, erf32, d, x) }, erf32},
	// the float64 forms rounded, in loops the compiler inlines (a square
	// root instruction per element, not a call)
	"stablehlo.sqrt":  {sqrtRow, sqrt32},
	"stablehlo.rsqrt": {rsqrtRow, rsqrt32},
}

func sqrt32(x float32) float32  { return float32(math.Sqrt(float64(x))) }
func rsqrt32(x float32) float32 { return float32(1 / math.Sqrt(float64(x))) }

func sqrtRow(d, x []float32) {
	x = x[:len(d)]
	for i, v := range x {
		d[i] = float32(math.Sqrt(float64(v)))
	}
}

func rsqrtRow(d, x []float32) {
	x = x[:len(d)]
	for i, v := range x {
		d[i] = float32(1 / math.Sqrt(float64(v)))
	}
}

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
)

// vrow runs kernel k over the whole vectors of x, and f over the rest.
func vrow(k int, f func(float32) float32, d, x []float32) {
	x = x[:len(d)]
	n := vloops(k, d, x)
	for i := n; i < len(d); i++ {
		d[i] = f(x[i])
	}
}
