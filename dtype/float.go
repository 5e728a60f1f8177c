package dtype

import (
	"math"
)

// miniFormat describes a narrow binary floating-point format.
type miniFormat struct {
	ebits, mbits int
	bias         int
	ieee         bool // has infinities; NaN is all-ones exponent
	fnuz         bool // no inf, no -0; NaN is the sign bit alone
	fn           bool // no inf; NaN is all ones (exponent and mantissa)
	unsigned     bool // no sign bit (E8M0)
	noNaN        bool // every encoding is finite (f4/f6)
}

var miniFormats = map[DType]miniFormat{
	F16:           {ebits: 5, mbits: 10, bias: 15, ieee: true},
	BF16:          {ebits: 8, mbits: 7, bias: 127, ieee: true},
	F8E5M2:        {ebits: 5, mbits: 2, bias: 15, ieee: true},
	F8E4M3:        {ebits: 4, mbits: 3, bias: 7, ieee: true},
	F8E3M4:        {ebits: 3, mbits: 4, bias: 3, ieee: true},
	F8E4M3FN:      {ebits: 4, mbits: 3, bias: 7, fn: true},
	F8E4M3FNUZ:    {ebits: 4, mbits: 3, bias: 8, fnuz: true},
	F8E5M2FNUZ:    {ebits: 5, mbits: 2, bias: 16, fnuz: true},
	F8E4M3B11FNUZ: {ebits: 4, mbits: 3, bias: 11, fnuz: true},
	F8E8M0FNU:     {ebits: 8, mbits: 0, bias: 127, unsigned: true},
	F4E2M1FN:      {ebits: 2, mbits: 1, bias: 1, noNaN: true},
	F6E2M3FN:      {ebits: 2, mbits: 3, bias: 1, noNaN: true},
	F6E3M2FN:      {ebits: 3, mbits: 2, bias: 3, noNaN: true},
}

func (f miniFormat) signShift() uint { return uint(f.ebits + f.mbits) }

func (f miniFormat) nan() uint32 {
	switch {
	case f.fnuz:
		return 1 << f.signShift()
	case f.fn, f.unsigned:
		return 1<<f.signShift() - 1
	case f.noNaN:
		return 0
	}
	// quiet NaN: all-ones exponent, top mantissa bit
	return (1<<f.ebits-1)<<f.mbits | 1<<(f.mbits-1)
}

func (f miniFormat) maxExpField() int {
	if f.ieee {
		return 1<<f.ebits - 2
	}
	if f.unsigned {
		return 1<<f.ebits - 2
	}
	return 1<<f.ebits - 1
}

func (f miniFormat) maxFinite() float64 {
	mant := 1<<f.mbits - 1
	if f.fn {
		mant-- // all-ones mantissa at the top exponent is NaN
	}
	return math.Ldexp(1+float64(mant)/float64(uint(1)<<f.mbits), f.maxExpField()-f.bias)
}

func (f miniFormat) decode(bitsv uint32) float64 {
	sign := 1.0
	if !f.unsigned && bitsv>>f.signShift()&1 == 1 {
		sign = -1
	}
	exp := int(bitsv>>f.mbits) & (1<<f.ebits - 1)
	mant := bitsv & (1<<f.mbits - 1)
	switch {
	case f.ieee && exp == 1<<f.ebits-1:
		if mant == 0 {
			return math.Inf(int(sign))
		}
		return math.NaN()
	case f.fnuz && bitsv == f.nan():
		return math.NaN()
	case f.fn && bitsv&(1<<f.signShift()-1) == 1<<f.signShift()-1:
		return math.NaN()
	case f.unsigned && bitsv == f.nan():
		return math.NaN()
	}
	if f.unsigned {
		return math.Ldexp(1, exp-f.bias)
	}
	if exp == 0 {
		return sign * math.Ldexp(float64(mant), 1-f.bias-f.mbits)
	}
	return sign * math.Ldexp(float64(uint32(1)<<f.mbits|mant), exp-f.bias-f.mbits)
}

func (f miniFormat) encode(v float64) uint32 {
	if math.IsNaN(v) {
		return f.nan()
	}
	var sign uint32
	if math.Signbit(v) && !f.unsigned {
		sign = 1 << f.signShift()
	}
	a := math.Abs(v)
	if f.unsigned {
		if v == 0 { // no zero: the smallest power, 2^-bias, as MLIR rounds it
			return 0
		}
		if v < 0 || math.IsInf(a, 0) {
			return f.nan()
		}
		_, e := math.Frexp(a)
		// round to nearest power of two in the log domain is not what RNE
		// does; E8M0 rounds the significand, so values >= 1.5*2^k go up.
		exp := e - 1
		if a/math.Ldexp(1, exp) >= 1.5 {
			exp++
		}
		field := exp + f.bias
		if field < 0 {
			field = 0
		}
		if field > f.maxExpField() {
			return f.nan()
		}
		return uint32(field)
	}
	if a == 0 {
		if f.fnuz {
			return 0
		}
		return sign
	}
	if math.IsInf(a, 0) {
		return f.overflow(sign)
	}
	emin := 1 - f.bias
	_, e := math.Frexp(a)
	E := e - 1
	if E < emin {
		E = emin
	}
	quantum := math.Ldexp(1, E-f.mbits)
	r := math.RoundToEven(a / quantum)
	val := r * quantum
	if val > f.maxFinite() {
		return f.overflow(sign)
	}
	if val == 0 {
		if f.fnuz {
			return 0
		}
		return sign
	}
	_, e2 := math.Frexp(val)
	E2 := e2 - 1
	if E2 < emin { // subnormal
		mant := uint32(val / math.Ldexp(1, emin-f.mbits))
		return sign | mant
	}
	mant := uint32(val/math.Ldexp(1, E2-f.mbits)) - 1<<f.mbits
	return sign | uint32(E2+f.bias)<<f.mbits | mant
}

func (f miniFormat) overflow(sign uint32) uint32 {
	switch {
	case f.ieee:
		return sign | (1<<f.ebits-1)<<f.mbits
	case f.noNaN: // saturate
		return sign | f.encode(f.maxFinite())
	}
	// FN: NaN keeps the sign; FNUZ: the NaN pattern is the sign bit itself.
	return f.nan() | sign
}

// The formats of the per-element conversions below, looked up once.
var f16Format, bf16Format = miniFormats[F16], miniFormats[BF16]

// F16ToFloat64 decodes IEEE half precision bits.
func F16ToFloat64(b uint16) float64 { return f16Format.decode(uint32(b)) }

// Float64ToF16 rounds v to the nearest half (ties to even).
func Float64ToF16(v float64) uint16 { return uint16(f16Format.encode(v)) }

// BF16ToFloat32 decodes bfloat16 bits.
func BF16ToFloat32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// Float64ToBF16 rounds v to the nearest bfloat16 (ties to even), directly
// from float64 (no double rounding through float32).
func Float64ToBF16(v float64) uint16 { return uint16(bf16Format.encode(v)) }

// Float32ToBF16 rounds v to the nearest bfloat16 (ties to even).
func Float32ToBF16(v float32) uint16 {
	b := math.Float32bits(v)
	if v != v {
		return uint16(b>>16) | 0x40
	}
	b += 0x7FFF + (b>>16)&1
	return uint16(b >> 16)
}

// MiniFloatToFloat64 decodes a one-byte float (f8, f6, f4 families).
func MiniFloatToFloat64(d DType, b byte) float64 {
	f, ok := miniFormats[d]
	if !ok {
		return math.NaN()
	}
	return f.decode(uint32(b))
}

// Float64ToMiniFloat rounds v (ties to even) into a one-byte float format.
func Float64ToMiniFloat(d DType, v float64) byte {
	f, ok := miniFormats[d]
	if !ok {
		return 0
	}
	return byte(f.encode(v))
}
