package main

import (
	"fmt"
	"io"
	"math"
)

// A constant of the kernels: a float32 (or raw bits), stored replicated
// to 32 bytes (the AVX2 loops read it as a vector operand; the AVX-512
// loops broadcast its first element).
type constant struct {
	name string
	val  float32
	bits uint32 // when isBits
	// isBits: val is not a number (masks, integers)
	isBits bool
	// scalar: also a Go constant (vm<Name>); polys are Go arrays instead
	scalar bool
}

// Polynomial coefficients, lowest degree first (tools/vmathfit/fit.py).
var polys = []struct {
	name string
	c    []float32
}{
	// exp(r) = 1 + r + r^2 P(r), |r| <= ln2/2
	{"ExpP", []float32{0.5, 0.1666666567325592, 0.041666269302368164, 0.00833342969417572, 0.0013946021208539605, 0.00019826495554298162}},
	// tanh(x) = x + x^3 P(x^2), |x| < tanhCut
	{"TanhP", []float32{-0.33333325386047363, 0.13333077728748322, -0.05393807962536812, 0.021699208766222, -0.008337622508406639, 0.0026561066042631865, -0.0004842269408982247}},
	// erf(x) = x P(x^2), |x| < erfCut
	{"ErfP", []float32{1.128379225730896, -0.37612637877464294, 0.11283791065216064, -0.026866136118769646, 0.0052237920463085175, -0.0008542797295376658, 0.00011958227696595713, -1.3918567674409132e-05, 1.061043917616189e-06}},
	// erfc(x) = exp(-x^2) R(1/x), erfCut <= x <= 4
	{"ErfcR", []float32{3.0888462788425386e-05, 0.5636186003684998, 0.003914452623575926, -0.28981611132621765, -0.05404456704854965, 0.8660649061203003, -1.474402904510498, 1.3746620416641235, -0.7791740298271179, 0.2530610263347626, -0.03633073717355728}},
}

var scalars = []constant{
	{name: "Log2e", val: float32(math.Log2E), scalar: true},
	// ln2 = Ln2Hi + Ln2Lo; Ln2Hi has 16 significant bits, so n*Ln2Hi is
	// exact for |n| <= 256
	{name: "Ln2Hi", val: 0.693145751953125, scalar: true},
	{name: "Ln2Lo", val: float32(math.Ln2 - 0.693145751953125), scalar: true},
	// exp's argument is clamped to [ExpLo, ExpHi]: exp(-104) rounds to
	// 0 and exp(89) overflows
	{name: "ExpLo", val: -104, scalar: true},
	{name: "ExpHi", val: 89, scalar: true},
	// exp(x) is normal from ExpNorm up (2^n (1 + q) with n >= -126), so
	// that no step of it makes a subnormal
	{name: "ExpNorm", val: -87, scalar: true},
	{name: "TanhCut", val: 0.875, scalar: true},
	// tanh(10) rounds to 1; 2^n (1 + q) stays finite below it
	{name: "TanhMax", val: 10, scalar: true},
	{name: "ErfCut", val: 1, scalar: true},
	{name: "ErfMax", val: 4, scalar: true},
	// GELU's constants as aten's lowering rounds them to float32
	{name: "Rsqrt2", val: float32(1 / math.Sqrt2), scalar: true},
	// the tanh-approximate GELU's, as aten's decomposition and
	// HuggingFace's gelu_new round them: 0.044715 and sqrt(2/pi)
	{name: "GeluK1", val: float32(0.044715), scalar: true},
	{name: "GeluK2", val: float32(math.Sqrt(2 / math.Pi)), scalar: true},
	// the exact GELU's backward: the pdf's 1/√(2π) as PyTorch's formula
	// computes it in double (M_2_SQRTPI · M_SQRT1_2 · 0.5), rounded
	{name: "GeluKB", val: geluKB(), scalar: true},
	{name: "Half", val: 0.5},
	{name: "NegHalf", val: -0.5},
	{name: "Zero", val: 0},
	{name: "One", val: 1},
	{name: "Two", val: 2},
	// hardswish's constants
	{name: "Three", val: 3},
	{name: "Six", val: 6},
	{name: "SignMask", bits: 0x80000000, isBits: true},
	{name: "AbsMask", bits: 0x7fffffff, isBits: true},
	{name: "Bias", bits: 127, isBits: true},
}

// allConsts lists every constant of the data section.
func allConsts() []constant {
	out := append([]constant(nil), scalars...)
	for _, p := range polys {
		for i, v := range p.c {
			out = append(out, constant{name: fmt.Sprintf("%s%d", p.name, i), val: v})
		}
	}
	return out
}

func (c constant) word() uint32 {
	if c.isBits {
		return c.bits
	}
	return math.Float32bits(c.val)
}

func writeConstData(w io.Writer) {
	for _, c := range allConsts() {
		for k := 0; k < 8; k++ {
			fmt.Fprintf(w, "DATA vm%s<>+%d(SB)/4, $0x%08x\n", c.name, 4*k, c.word())
		}
		fmt.Fprintf(w, "GLOBL vm%s<>(SB), RODATA|NOPTR, $32\n\n", c.name)
	}
}

func writeGoConsts(w io.Writer) {
	fmt.Fprintln(w, "// The constants of the float32 vector math, shared by its pure-Go form")
	fmt.Fprintln(w, "// (vmath.go) and the assembly loops (gen_vmath_amd64.s).")
	fmt.Fprintln(w, "const (")
	for _, c := range scalars {
		if c.scalar {
			fmt.Fprintf(w, "\tvm%s = float32(%v)\n", c.name, c.val)
		}
	}
	fmt.Fprintln(w, ")")
	fmt.Fprintln(w)
	for _, p := range polys {
		fmt.Fprintf(w, "var vm%s = [...]float32{", p.name)
		for i, v := range p.c {
			if i > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "%v", v)
		}
		fmt.Fprintln(w, "}")
	}
}

// geluKB is M_2_SQRTPI · M_SQRT1_2 · 0.5 in float64 steps, rounded to
// float32 (the constant of PyTorch's GELU backward and its decomposition).
func geluKB() float32 {
	twoSqrtPi, sqrtHalf := 1.12837916709551257390, 0.70710678118654752440
	return float32(twoSqrtPi * sqrtHalf * 0.5)
}
