package stablehlo

import (
	"fmt"
	"math"
	"strconv"

	"github.com/torchtpu/torchtpu/dtype"
)

// parseFloatBits converts a float literal to the bit pattern of d: a hex
// literal (0x7FC00000) is taken as the bits; a decimal is read as the
// nearest float64 and then rounded (to nearest, ties to even) to d.
//
// Rounding through float64 is what MLIR does (its lexer reads a float
// token as a double; mlir-opt 22 turns 1.000488281250000001 into f16 1.0,
// not the nearer 1.0009765625), so a constant means the same here as on a
// PJRT device that compiles the same text. TestLiteralsAgreeWithMLIR
// checks this against mlir-opt. Integer text (no '.') is accepted as a
// decimal value.
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
	v, err := strconv.ParseFloat(txt, 64)
	if err != nil && !math.IsInf(v, 0) {
		return 0, fmt.Errorf("bad float literal %q", txt)
	}
	switch d {
	case dtype.F64:
		return math.Float64bits(v), nil
	case dtype.F32:
		return uint64(math.Float32bits(float32(v))), nil
	}
	return encodeNarrow(d, v), nil
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
