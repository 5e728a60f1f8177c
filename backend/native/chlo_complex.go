package native

// Complex forms of the CHLO trigonometric and hyperbolic functions, in
// complex128 (rounded to complex64 by the caller).

import (
	"math"
	"math/cmplx"
)

func cAsin(z complex128) complex128  { return cmplx.Asin(z) }
func cAcos(z complex128) complex128  { return cmplx.Acos(z) }
func cAsinh(z complex128) complex128 { return cmplx.Asinh(z) }
func cAcosh(z complex128) complex128 { return cmplx.Acosh(z) }
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
