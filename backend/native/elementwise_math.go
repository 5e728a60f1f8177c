package native

import (
	"fmt"
	"math"
	"math/cmplx"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Transcendental and rounding functions, for real floats (computed in
// float64, rounded once to the result type) and complex numbers.

func init() {
	register("stablehlo.abs", evalAbs)
	registerUnary("stablehlo.cbrt", unaryFns{f: math.Cbrt, c: func(z complex128) complex128 { return cmplx.Pow(z, 1.0/3) }})
	registerUnary("stablehlo.ceil", unaryFns{f: math.Ceil})
	registerUnary("stablehlo.floor", unaryFns{f: math.Floor})
	registerUnary("stablehlo.round_nearest_afz", unaryFns{f: math.Round})
	registerUnary("stablehlo.round_nearest_even", unaryFns{f: math.RoundToEven})
	registerUnary("stablehlo.cosine", unaryFns{f: math.Cos, c: cmplx.Cos})
	registerUnary("stablehlo.sine", unaryFns{f: math.Sin, c: cmplx.Sin})
	registerUnary("stablehlo.tan", unaryFns{f: math.Tan, c: cmplx.Tan})
	registerUnary("stablehlo.tanh", unaryFns{f: math.Tanh, c: ctanh})
	registerUnary("stablehlo.exponential", unaryFns{f: math.Exp, c: cexp})
	registerUnary("stablehlo.exponential_minus_one", unaryFns{f: math.Expm1, c: cexpm1})
	registerUnary("stablehlo.log", unaryFns{f: math.Log, c: clog})
	registerUnary("stablehlo.log_plus_one", unaryFns{f: math.Log1p, c: clog1p})
	registerUnary("stablehlo.logistic", unaryFns{f: logistic, c: func(z complex128) complex128 { return 1 / (1 + cexp(-z)) }})
	registerUnary("stablehlo.sqrt", unaryFns{f: math.Sqrt, c: cmplx.Sqrt})
	registerUnary("stablehlo.rsqrt", unaryFns{f: func(x float64) float64 { return 1 / math.Sqrt(x) }, c: func(z complex128) complex128 { return 1 / cmplx.Sqrt(z) }})
	registerBinary("stablehlo.atan2", binaryFns{f: math.Atan2, c: catan2})
	register("stablehlo.is_finite", evalIsFinite)
	register("stablehlo.real", complexPart(func(z complex128) float64 { return real(z) }, true))
	register("stablehlo.imag", complexPart(func(z complex128) float64 { return imag(z) }, false))
	register("stablehlo.complex", evalComplex)
}

func logistic(x float64) float64 {
	if x < 0 {
		e := math.Exp(x)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(-x))
}

func cmul(x, y complex128) complex128 { return x * y }
func cdiv(x, y complex128) complex128 { return x / y }
func cabs(x complex128) float64       { return cmplx.Abs(x) }
func cpow(x, y complex128) complex128 { return cmplx.Pow(x, y) }

func cexp(z complex128) complex128 {
	if imag(z) == 0 {
		return complex(math.Exp(real(z)), imag(z))
	}
	return cmplx.Exp(z)
}

// clog is the principal logarithm; near |z| = 1 the real part is
// log1p(x²+y²-1)/2 with x²-1 formed as (x-1)(x+1), avoiding the
// cancellation of log(hypot(x, y)).
func clog(z complex128) complex128 {
	x, y := real(z), imag(z)
	ax, ay := math.Abs(x), math.Abs(y)
	if ax >= 0.5 && ax <= 1.5 && ay < 1 && !math.IsNaN(y) {
		if h := math.Hypot(ax, ay); h > 0.7 && h < 1.4 {
			d := math.FMA(ax-1, ax+1, ay*ay)
			return complex(0.5*math.Log1p(d), math.Atan2(y, x))
		}
	}
	return cmplx.Log(z)
}

// ctanh avoids Go's Inf/Inf = NaN for a large real part, where
// tanh(x+iy) = ±1 + i·4·sin(y)cos(y)·e^(-2|x|) to double precision.
func ctanh(z complex128) complex128 {
	x, y := real(z), imag(z)
	if y == 0 {
		return complex(math.Tanh(x), y)
	}
	if math.Abs(x) > 20 && !math.IsInf(y, 0) && !math.IsNaN(y) {
		return complex(math.Copysign(1, x), 4*math.Sin(y)*math.Cos(y)*math.Exp(-2*math.Abs(x)))
	}
	return cmplx.Tanh(z)
}

// cexpm1 computes exp(z)-1 without cancellation for small z:
// re = expm1(x)*cos(y) - 2 sin²(y/2), im = exp(x) sin(y).
func cexpm1(z complex128) complex128 {
	x, y := real(z), imag(z)
	s := math.Sin(y / 2)
	re := math.Expm1(x)*math.Cos(y) - 2*s*s
	return complex(re, math.Exp(x)*math.Sin(y))
}

// clog1p computes log(1+z) accurately near 0:
// re = log1p(x) + log1p((y/(1+x))²)/2 style, via log|1+z| = ½ log1p(2x + x² + y²).
func clog1p(z complex128) complex128 {
	x, y := real(z), imag(z)
	if math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsNaN(x) || math.IsNaN(y) {
		return cmplx.Log(1 + z)
	}
	im := math.Atan2(y, 1+x)
	ax, ay := math.Abs(x), math.Abs(y)
	if ax < 0.5 && ay < 0.5 {
		return complex(0.5*math.Log1p(x*(2+x)+y*y), im)
	}
	return complex(math.Log(math.Hypot(1+x, y)), im)
}

func catan2(y, x complex128) complex128 {
	// atan2(y, x) = -i log((x + i y) / sqrt(x² + y²))
	return -1i * cmplx.Log((x+1i*y)/cmplx.Sqrt(x*x+y*y))
}

func evalAbs(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	if x.DType.IsComplex() {
		out, err := outLiteral(op, x.DType.ComplexPart(), x.Shape)
		if err != nil {
			return nil, err
		}
		if out.DType != x.DType.ComplexPart() {
			return nil, fmt.Errorf("result element type %v, want %v", out.DType, x.DType.ComplexPart())
		}
		for i := 0; i < x.Len(); i++ {
			out.SetFloat64(i, cabs(x.Complex128(i)))
		}
		return []Value{out}, nil
	}
	return unaryKernel(unaryFns{
		s: func(x int64, _ dtype.DType) int64 {
			if x < 0 {
				return -x
			}
			return x
		},
		f: math.Abs,
	})(nil, op, in)
}

func evalIsFinite(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	if !x.DType.IsFloat() {
		return nil, unsupportedType(x.DType)
	}
	out, err := literal.New(dtype.Bool, x.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < x.Len(); i++ {
		v := x.Float64(i)
		out.SetInt64(i, b2i(!math.IsInf(v, 0) && !math.IsNaN(v)))
	}
	return []Value{out}, nil
}

// complexPart implements real and imag; on a real float operand real is
// the identity and imag is zero.
func complexPart(part func(complex128) float64, isReal bool) Kernel {
	return func(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
		x, err := tensorArg(op, in, 0)
		if err != nil {
			return nil, err
		}
		d := x.DType
		if d.IsComplex() {
			d = d.ComplexPart()
		} else if !d.IsFloat() {
			return nil, unsupportedType(d)
		}
		out, err := literal.New(d, x.Shape)
		if err != nil {
			return nil, err
		}
		if !x.DType.IsComplex() {
			if isReal {
				copy(out.Data, x.Data)
			}
			return []Value{out}, nil
		}
		for i := 0; i < x.Len(); i++ {
			out.SetFloat64(i, part(x.Complex128(i)))
		}
		return []Value{out}, nil
	}
}

func evalComplex(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	re, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	im, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	if re.DType != im.DType || !shapeEq(re.Shape, im.Shape) {
		return nil, fmt.Errorf("operands %v and %v differ", re, im)
	}
	cd := dtype.ComplexOf(re.DType)
	if cd == dtype.Invalid {
		return nil, unsupportedType(re.DType)
	}
	out, err := literal.New(cd, re.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < re.Len(); i++ {
		out.SetComplex128(i, complex(re.Float64(i), im.Float64(i)))
	}
	return []Value{out}, nil
}
