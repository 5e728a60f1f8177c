package native

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
)

// Arithmetic: add, subtract, multiply, divide, remainder, power, maximum,
// minimum, negate, abs, sign. Integers wrap around; integer division by
// zero gives -1 (all bits set) and remainder by zero gives the dividend,
// as XLA does; the most negative value divided by -1 is itself.

func init() {
	registerBinary("stablehlo.add", binaryFns{
		i64: func(d, x, y []int64) {
			x, y = x[:len(d)], y[:len(d)]
			for k := range d {
				d[k] = x[k] + y[k]
			}
		},
		b: func(x, y bool) bool { return x || y },
		s: func(x, y int64, _ dtype.DType) int64 { return x + y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x + y },
		f: func(x, y float64) float64 { return x + y },
		c: func(x, y complex128) complex128 { return x + y },
	})
	registerBinary("stablehlo.subtract", binaryFns{
		i64: func(d, x, y []int64) {
			x, y = x[:len(d)], y[:len(d)]
			for k := range d {
				d[k] = x[k] - y[k]
			}
		},
		s: func(x, y int64, _ dtype.DType) int64 { return x - y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x - y },
		f: func(x, y float64) float64 { return x - y },
		c: func(x, y complex128) complex128 { return x - y },
	})
	registerBinary("stablehlo.multiply", binaryFns{
		i64: func(d, x, y []int64) {
			x, y = x[:len(d)], y[:len(d)]
			for k := range d {
				d[k] = x[k] * y[k]
			}
		},
		b: func(x, y bool) bool { return x && y },
		s: func(x, y int64, _ dtype.DType) int64 { return x * y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x * y },
		f: func(x, y float64) float64 { return x * y },
		c: cmul,
	})
	registerBinary("stablehlo.divide", binaryFns{
		s: func(x, y int64, d dtype.DType) int64 {
			if y == 0 {
				return -1
			}
			if y == -1 {
				return -x // wraps for the most negative value
			}
			return x / y
		},
		u: func(x, y uint64, d dtype.DType) uint64 {
			if y == 0 {
				return widthMask(d)
			}
			return x / y
		},
		f: func(x, y float64) float64 { return x / y },
		c: cdiv,
	})
	registerBinary("stablehlo.remainder", binaryFns{
		s: func(x, y int64, _ dtype.DType) int64 {
			if y == 0 {
				return x
			}
			if y == -1 {
				return 0
			}
			return x % y
		},
		u: func(x, y uint64, _ dtype.DType) uint64 {
			if y == 0 {
				return x
			}
			return x % y
		},
		f: math.Mod,
	})
	registerBinary("stablehlo.power", binaryFns{
		s: ipowSigned,
		u: func(x, y uint64, _ dtype.DType) uint64 { return ipow(x, y) },
		f: powAccurate,
		c: cpow,
	})
	registerBinary("stablehlo.maximum", binaryFns{
		b: func(x, y bool) bool { return x || y },
		s: func(x, y int64, _ dtype.DType) int64 { return max(x, y) },
		u: func(x, y uint64, _ dtype.DType) uint64 { return max(x, y) },
		f: fmaximum,
		c: func(x, y complex128) complex128 {
			if real(x) > real(y) || real(x) == real(y) && imag(x) > imag(y) {
				return x
			}
			return y
		},
	})
	registerBinary("stablehlo.minimum", binaryFns{
		b: func(x, y bool) bool { return x && y },
		s: func(x, y int64, _ dtype.DType) int64 { return min(x, y) },
		u: func(x, y uint64, _ dtype.DType) uint64 { return min(x, y) },
		f: fminimum,
		c: func(x, y complex128) complex128 {
			if real(x) < real(y) || real(x) == real(y) && imag(x) < imag(y) {
				return x
			}
			return y
		},
	})
	registerUnary("stablehlo.negate", unaryFns{
		s: func(x int64, _ dtype.DType) int64 { return -x },
		u: func(x uint64, _ dtype.DType) uint64 { return -x },
		f: func(x float64) float64 { return -x },
		c: func(x complex128) complex128 { return -x },
	})
	registerUnary("stablehlo.sign", unaryFns{
		s: func(x int64, _ dtype.DType) int64 {
			switch {
			case x < 0:
				return -1
			case x > 0:
				return 1
			}
			return 0
		},
		u: func(x uint64, _ dtype.DType) uint64 {
			if x > 0 {
				return 1
			}
			return 0
		},
		f: func(x float64) float64 {
			switch {
			case math.IsNaN(x) || x == 0:
				return x
			case x < 0:
				return -1
			}
			return 1
		},
		c: func(x complex128) complex128 {
			if math.IsNaN(real(x)) || math.IsNaN(imag(x)) {
				return complex(math.NaN(), math.NaN())
			}
			if x == 0 {
				return 0
			}
			return cdiv(x, complex(cabs(x), 0))
		},
	})
}

// fmaximum and fminimum propagate NaN and order -0 below +0.
func fmaximum(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsNaN(y):
		return y
	case x == 0 && y == 0:
		if math.Signbit(x) {
			return y
		}
		return x
	}
	return math.Max(x, y)
}

func fminimum(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case math.IsNaN(y):
		return y
	case x == 0 && y == 0:
		if math.Signbit(x) {
			return x
		}
		return y
	}
	return math.Min(x, y)
}

func ipow(base, exp uint64) uint64 {
	r := uint64(1)
	for exp != 0 {
		if exp&1 != 0 {
			r *= base
		}
		base *= base
		exp >>= 1
	}
	return r
}

// ipowSigned: a negative exponent gives 0 unless |base| is 1.
func ipowSigned(x, y int64, _ dtype.DType) int64 {
	if y < 0 {
		switch x {
		case 1:
			return 1
		case -1:
			if y%2 == 0 {
				return 1
			}
			return -1
		}
		return 0
	}
	return int64(ipow(uint64(x), uint64(y)))
}
