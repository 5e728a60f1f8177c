package native

import (
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
)

// Bitwise ops on i1 and integers: and, or, xor, not, the shifts, popcnt
// and count_leading_zeros. A shift by the type's width or more (the
// amount read as unsigned) gives 0, or all sign bits for an arithmetic
// right shift.

func init() {
	registerBinary("stablehlo.and", binaryFns{
		b: func(x, y bool) bool { return x && y },
		s: func(x, y int64, _ dtype.DType) int64 { return x & y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x & y },
	})
	registerBinary("stablehlo.or", binaryFns{
		b: func(x, y bool) bool { return x || y },
		s: func(x, y int64, _ dtype.DType) int64 { return x | y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x | y },
	})
	registerBinary("stablehlo.xor", binaryFns{
		b: func(x, y bool) bool { return x != y },
		s: func(x, y int64, _ dtype.DType) int64 { return x ^ y },
		u: func(x, y uint64, _ dtype.DType) uint64 { return x ^ y },
	})
	registerUnary("stablehlo.not", unaryFns{
		b: func(x bool) bool { return !x },
		s: func(x int64, _ dtype.DType) int64 { return ^x },
		u: func(x uint64, _ dtype.DType) uint64 { return ^x },
	})
	registerBinary("stablehlo.shift_left", binaryFns{
		s: func(x, y int64, d dtype.DType) int64 { return int64(shl(uint64(x), shiftAmount(uint64(y), d), d)) },
		u: func(x, y uint64, d dtype.DType) uint64 { return shl(x, shiftAmount(y, d), d) },
	})
	registerBinary("stablehlo.shift_right_logical", binaryFns{
		s: func(x, y int64, d dtype.DType) int64 { return int64(shrl(uint64(x), shiftAmount(uint64(y), d), d)) },
		u: func(x, y uint64, d dtype.DType) uint64 { return shrl(x, shiftAmount(y, d), d) },
	})
	registerBinary("stablehlo.shift_right_arithmetic", binaryFns{
		s: func(x, y int64, d dtype.DType) int64 {
			n := shiftAmount(uint64(y), d)
			if n >= uint64(d.Bits()) {
				n = 63
			}
			return x >> n // x is sign-extended to 64 bits
		},
		u: func(x, y uint64, d dtype.DType) uint64 {
			// Sign-extend from the type's width, shift, truncate on store.
			w := uint(d.Bits())
			sx := int64(x<<(64-w)) >> (64 - w)
			n := shiftAmount(y, d)
			if n >= uint64(w) {
				n = 63
			}
			return uint64(sx >> n)
		},
	})
	registerUnary("stablehlo.popcnt", unaryFns{
		s: func(x int64, d dtype.DType) int64 { return int64(bits.OnesCount64(uint64(x) & widthMask(d))) },
		u: func(x uint64, d dtype.DType) uint64 { return uint64(bits.OnesCount64(x & widthMask(d))) },
	})
	registerUnary("stablehlo.count_leading_zeros", unaryFns{
		s: func(x int64, d dtype.DType) int64 { return int64(clz(uint64(x), d)) },
		u: func(x uint64, d dtype.DType) uint64 { return uint64(clz(x, d)) },
	})
}

// shiftAmount reads a shift amount of type d as an unsigned number.
func shiftAmount(y uint64, d dtype.DType) uint64 { return y & widthMask(d) }

func shl(x, n uint64, d dtype.DType) uint64 {
	if n >= uint64(d.Bits()) {
		return 0
	}
	return x << n
}

func shrl(x, n uint64, d dtype.DType) uint64 {
	if n >= uint64(d.Bits()) {
		return 0
	}
	return (x & widthMask(d)) >> n
}

func clz(x uint64, d dtype.DType) int {
	return bits.LeadingZeros64(x&widthMask(d)) - (64 - d.Bits())
}
