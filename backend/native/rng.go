package native

// rng_bit_generator, bit for bit as XLA's RngBitGeneratorExpander defines
// it: the state is ui64 (or i64), state[0] is the key; THREE_FRY keeps a
// 64-bit counter in state[1], PHILOX a 128-bit counter in state[1:3] (or,
// for a 2-element state, the pair [state[1], state[0]]); DEFAULT is PHILOX,
// as on XLA's CPU and GPU backends.

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.rng_bit_generator", evalRngBitGenerator)
}

func evalRngBitGenerator(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	st, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	sz := st.DType.Size()
	if st.Rank() != 1 || !st.DType.IsInteger() || !(sz == 8 || sz == 4 && st.Len()%2 == 0) {
		return nil, fmt.Errorf("%s: state %v must be a 1-d tensor of 64-bit integers (or an even number of 32-bit ones)", op.Name, st)
	}
	alg, ok := op.Enum("rng_algorithm")
	if !ok {
		return nil, fmt.Errorf("%s: missing rng_algorithm", op.Name)
	}
	if len(op.Results) != 2 {
		return nil, fmt.Errorf("%s: want 2 results", op.Name)
	}
	ot := resultType(op, 1)
	if ot == nil {
		return nil, fmt.Errorf("%s: output type must be a static tensor", op.Name)
	}
	out, err := literal.New(ot.DType(), ot.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	width := out.DType.Bits()
	if out.DType.IsBool() || out.DType.IsComplex() || width > 64 {
		return nil, fmt.Errorf("%s: unsupported output element type %v", op.Name, out.DType)
	}
	// 32-bit states are read as little-endian pairs, as a bitcast to ui64
	state := make([]uint64, len(st.Data)/8)
	for i := range state {
		state[i] = binary.LittleEndian.Uint64(st.Data[8*i:])
	}
	newState := append([]uint64(nil), state...)
	n := out.Len()
	var words []uint64 // one per output element, low bits used
	switch alg {
	case "THREE_FRY":
		if len(state) != 2 {
			return nil, fmt.Errorf("%s: THREE_FRY needs a 2-element state, got %v", op.Name, st)
		}
		var next uint64
		words, next = threeFryBits(state[0], state[1], ot.Shape, width)
		newState[1] = next
	case "PHILOX", "DEFAULT":
		var lo, hi uint64
		switch {
		case len(state) >= 3:
			lo, hi = state[1], state[2]
		case len(state) == 2:
			lo, hi = state[1], state[0]
		default:
			return nil, fmt.Errorf("%s: PHILOX needs a state of 2 or 3 elements, got %v", op.Name, st)
		}
		var nlo, nhi uint64
		words, nlo, nhi = philoxBits(state[0], lo, hi, n, width)
		newState[1] = nlo
		if len(state) >= 3 {
			newState[2] = nhi
		}
	default:
		return nil, fmt.Errorf("%s: unknown rng_algorithm %q", op.Name, alg)
	}
	osz := out.DType.Size()
	for i, w := range words[:n] {
		switch osz {
		case 1:
			out.Data[i] = byte(w)
			if width < 8 { // sub-byte types hold the value in the low bits
				out.SetInt64(i, int64(w&(1<<width-1)))
			}
		case 2:
			binary.LittleEndian.PutUint16(out.Data[2*i:], uint16(w))
		case 4:
			binary.LittleEndian.PutUint32(out.Data[4*i:], uint32(w))
		case 8:
			binary.LittleEndian.PutUint64(out.Data[8*i:], w)
		}
	}
	ns, err := literal.New(st.DType, st.Shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	for i, v := range newState {
		binary.LittleEndian.PutUint64(ns.Data[8*i:], v)
	}
	return []Value{ns, out}, nil
}

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

// threeFryBits returns one word per element of shape (for width ≤ 32
// only the low 32 bits are random) and the advanced counter.
func threeFryBits(key, counter uint64, shape []int64, width int) ([]uint64, uint64) {
	k0, k1 := uint32(key), uint32(key>>32)
	gen := func(c uint64) (uint32, uint32) { return threeFry2x32(uint32(c), uint32(c>>32), k0, k1) }
	n := elemCount(shape)
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
	nh := elemCount(half)
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

// philoxBits returns n words and the advanced 128-bit counter.
func philoxBits(key, lo, hi uint64, n, width int) ([]uint64, uint64, uint64) {
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
