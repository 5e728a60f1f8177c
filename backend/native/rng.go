package native

// rng_bit_generator, bit for bit as XLA's RngBitGeneratorExpander defines
// it: the state is ui64 (or i64), state[0] is the key; THREE_FRY keeps a
// 64-bit counter in state[1], PHILOX a 128-bit counter in state[1:3] (or,
// for a 2-element state, the pair [state[1], state[0]]); DEFAULT is PHILOX,
// as on XLA's CPU and GPU backends.

import (
	"encoding/binary"
	"fmt"

	"github.com/torchtpu/torchtpu/backend/native/bitgen"
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
		words, next = bitgen.ThreeFryBits(state[0], state[1], ot.Shape, width)
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
		words, nlo, nhi = bitgen.PhiloxBits(state[0], lo, hi, n, width)
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
