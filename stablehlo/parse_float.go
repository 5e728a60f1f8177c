package stablehlo

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// parseFloatBits converts a float literal to the bit pattern of d: a hex
// literal (0x7FC00000) is taken as the bits; a decimal is rounded once,
// to nearest even, directly to d (no double rounding through float64).
// Integer text (no '.', no exponent) is accepted as a decimal value.
func parseFloatBits(txt string, d dtype.DType) (uint64, error) {
	if !d.IsFloat() {
		return 0, fmt.Errorf("float literal %s for non-float type %v", txt, d)
	}
	if isHexText(txt) {
		if txt[0] == '-' || txt[0] == '+' {
			return 0, fmt.Errorf("signed hexadecimal float literal %s", txt)
		}
		u, err := strconv.ParseUint(txt[2:], 16, 64)
		if err != nil || (d.Bits() < 64 && u>>uint(d.Bits()) != 0) {
			return 0, fmt.Errorf("hexadecimal float literal %s does not fit %v", txt, d)
		}
		return u, nil
	}
	switch d {
	case dtype.F64:
		v, err := strconv.ParseFloat(txt, 64)
		if err != nil && !math.IsInf(v, 0) {
			return 0, fmt.Errorf("bad float literal %q", txt)
		}
		return math.Float64bits(v), nil
	case dtype.F32:
		v, err := strconv.ParseFloat(txt, 32)
		if err != nil && !math.IsInf(v, 0) {
			return 0, fmt.Errorf("bad float literal %q", txt)
		}
		return uint64(math.Float32bits(float32(v))), nil
	}
	v, err := strconv.ParseFloat(txt, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad float literal %q", txt)
	}
	return roundNarrow(d, txt, v), nil
}

// roundNarrow encodes v (txt rounded to float64) in the narrow format d,
// fixing the one case where rounding twice differs from rounding once: v
// landing exactly on the midpoint between two values of d while txt is not.
func roundNarrow(d dtype.DType, txt string, v float64) uint64 {
	b := encodeNarrow(d, v)
	r1 := decodeNarrow(d, b)
	if r1 == v || math.IsNaN(r1) || math.IsInf(r1, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
		return b
	}
	sign := uint64(0)
	if d != dtype.F8E8M0FNU {
		sign = 1 << uint(d.Bits()-1)
	}
	var b2 uint64
	switch {
	case r1 == 0:
		b2 = 1
		if v < 0 {
			b2 |= sign
		}
	case math.Abs(v) > math.Abs(r1):
		b2 = b + 1
	case b&^sign == 0:
		return b
	default:
		b2 = b - 1
	}
	r2 := decodeNarrow(d, b2)
	if math.IsNaN(r2) || math.IsInf(r2, 0) {
		return b
	}
	m := r1/2 + r2/2
	if v != m {
		return b
	}
	exact, ok := new(big.Rat).SetString(strings.TrimPrefix(txt, "+"))
	if !ok {
		return b
	}
	mid := new(big.Rat)
	if mid.SetFloat64(m) == nil {
		return b
	}
	switch c := exact.Cmp(mid); {
	case c == 0:
		return b
	case (c > 0) == (r2 > m):
		return b2
	default:
		return b
	}
}

func encodeNarrow(d dtype.DType, v float64) uint64 {
	switch d {
	case dtype.F16:
		return uint64(dtype.Float64ToF16(v))
	case dtype.BF16:
		return uint64(dtype.Float64ToBF16(v))
	}
	return uint64(dtype.Float64ToMiniFloat(d, v))
}

func decodeNarrow(d dtype.DType, b uint64) float64 {
	switch d {
	case dtype.F16:
		return dtype.F16ToFloat64(uint16(b))
	case dtype.BF16:
		return float64(dtype.BF16ToFloat32(uint16(b)))
	}
	return dtype.MiniFloatToFloat64(d, byte(b))
}

// bitsToFloat64 decodes the bits of a float dtype.
func bitsToFloat64(d dtype.DType, b uint64) float64 {
	switch d {
	case dtype.F64:
		return math.Float64frombits(b)
	case dtype.F32:
		return float64(math.Float32frombits(uint32(b)))
	}
	return decodeNarrow(d, b)
}
