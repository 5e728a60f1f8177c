// Package bitgen is the counter-based bit generators of
// stablehlo.rng_bit_generator, bit for bit as XLA's RngBitGeneratorExpander
// defines them: Threefry-2x32 with 20 rounds and Philox-4x32 with 10, and
// how their counters cover an output. Package native's rng_bit_generator
// kernel (rng.go) and its stablehlo.rng distributions (rng_dist.go) call
// it; it knows nothing of tensors or ops.
package bitgen

import (
	"math/bits"

	"github.com/torchtpu/torchtpu/literal"
)

// threeFry2x32 is Threefry-2x32 with 20 rounds.
func threeFry2x32(x0, x1, k0, k1 uint32) (uint32, uint32) {
	rot := [8]int{13, 15, 26, 6, 17, 29, 16, 24}
	k2 := uint32(0x1BD11BDA) ^ k0 ^ k1
	ks := [3]uint32{k0, k1, k2}
	x0 += k0
	x1 += k1
	for blk := 0; blk < 5; blk++ {
		base := (blk % 2) * 4
		for r := 0; r < 4; r++ {
			x0 += x1
			x1 = bits.RotateLeft32(x1, rot[base+r])
			x1 ^= x0
		}
		x0 += ks[(blk+1)%3]
		x1 += ks[(blk+2)%3] + uint32(blk+1)
	}
	return x0, x1
}

// ThreeFryBits returns one word per element of shape (for width ≤ 32
// only the low 32 bits are random) and the advanced counter, for the key
// and 64-bit counter of a THREE_FRY state.
func ThreeFryBits(key, counter uint64, shape []int64, width int) ([]uint64, uint64) {
	k0, k1 := uint32(key), uint32(key>>32)
	gen := func(c uint64) (uint32, uint32) { return threeFry2x32(uint32(c), uint32(c>>32), k0, k1) }
	n := count(shape)
	out := make([]uint64, n)
	if width == 64 {
		for i := range out {
			a, b := gen(counter + uint64(i))
			out[i] = uint64(a) | uint64(b)<<32
		}
		return out, counter + uint64(n)
	}
	// 32 bits and narrower: one counter per pair of elements along a split
	// dim (the first even dim, else the largest), the two outputs
	// interleaved along it.
	if len(shape) == 0 {
		a, _ := gen(counter)
		out[0] = uint64(a)
		return out, counter + 1
	}
	split := -1
	for i, d := range shape {
		if d%2 == 0 {
			split = i
			break
		}
	}
	if split < 0 {
		for i, d := range shape {
			if split < 0 || d > shape[split] {
				split = i
			}
		}
	}
	half := append([]int64(nil), shape...)
	half[split] = (shape[split] + 1) / 2
	nh := count(half)
	hs := literal.Strides(half)
	os := literal.Strides(shape)
	idx := make([]int64, len(shape))
	for h := 0; h < nh; h++ {
		rem := int64(h)
		for d := range half {
			idx[d] = rem / hs[d]
			rem %= hs[d]
		}
		a, b := gen(counter + uint64(h))
		for t, v := range [2]uint32{a, b} {
			pos := idx[split]*2 + int64(t)
			if pos >= shape[split] {
				continue
			}
			at := int64(0)
			for d := range shape {
				x := idx[d]
				if d == split {
					x = pos
				}
				at += x * os[d]
			}
			out[at] = uint64(v)
		}
	}
	return out, counter + uint64(nh)
}

// philox4x32 is Philox-4x32 with 10 rounds.
func philox4x32(x [4]uint32, k0, k1 uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(x[0], 0xD2511F53)
		hi1, lo1 := bits.Mul32(x[2], 0xCD9E8D57)
		x = [4]uint32{hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0}
		k0 += 0x9E3779B9
		k1 += 0xBB67AE85
	}
	return x
}

// PhiloxBits returns n words, rounded up to whole counters (four 32-bit
// words per counter for width ≤ 32, two 64-bit ones for width 64), and the
// advanced 128-bit counter (lo, hi), for the key and counter of a PHILOX
// state.
func PhiloxBits(key, lo, hi uint64, n, width int) ([]uint64, uint64, uint64) {
	k0, k1 := uint32(key), uint32(key>>32)
	per := 4 // 32-bit words per counter
	if width == 64 {
		per = 2
	}
	nc := (n + per - 1) / per
	out := make([]uint64, nc*per)
	for i := 0; i < nc; i++ {
		clo, carry := bits.Add64(lo, uint64(i), 0)
		chi := hi + carry
		r := philox4x32([4]uint32{uint32(clo), uint32(clo >> 32), uint32(chi), uint32(chi >> 32)}, k0, k1)
		if width == 64 {
			out[2*i] = uint64(r[0]) | uint64(r[1])<<32
			out[2*i+1] = uint64(r[2]) | uint64(r[3])<<32
		} else {
			for w := 0; w < 4; w++ {
				out[4*i+w] = uint64(r[w])
			}
		}
	}
	nlo, carry := bits.Add64(lo, uint64(nc), 0)
	return out, nlo, hi + carry
}

// count is the number of elements of shape.
func count(shape []int64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}
