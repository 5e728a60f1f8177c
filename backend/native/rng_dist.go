package native

// stablehlo.rng (UNIFORM in [a, b), NORMAL with mean a and deviation b).
// The spec leaves the generator to the implementation: this one draws
// Philox-4x32 bits from a process-wide counter, so successive calls differ
// and a run is reproducible given the order of calls.

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend/native/bitgen"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.rng", evalRng)
}

// rngCounter is the 64-bit counter of stablehlo.rng's Philox stream.
var rngCounter atomic.Uint64

const rngKey = 0x5eed_7075_0f00_d5eb

func evalRng(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	a, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	b, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	sh, err := tensorArg(op, in, 2)
	if err != nil {
		return nil, err
	}
	if a.Rank() != 0 || b.Rank() != 0 || a.DType != b.DType || sh.Rank() != 1 {
		return nil, fmt.Errorf("%s: want scalar a and b of one type and a 1-d shape, got %v, %v, %v", op.Name, a, b, sh)
	}
	dist, ok := op.Enum("rng_distribution")
	if !ok {
		return nil, fmt.Errorf("%s: missing rng_distribution", op.Name)
	}
	shape := decodeInts(sh)
	if err := checkComputedShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := literal.New(a.DType, shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	n := out.Len()
	// two 32-bit words per element
	nc := (2*n + 3) / 4
	start := rngCounter.Add(uint64(nc)) - uint64(nc)
	words, _, _ := bitgen.PhiloxBits(rngKey, start, 0, 2*n, 32)
	unit := func(i int) float64 { // [0, 1) with 53 random bits
		v := words[2*i]<<32 | words[2*i+1]
		return float64(v>>11) * 0x1p-53
	}
	switch dist {
	case "UNIFORM":
		switch {
		case a.DType.IsFloat():
			lo, hi := a.Float64(0), b.Float64(0)
			v := make([]float64, n)
			for i := range v {
				x := lo + (hi-lo)*unit(i)
				if r := roundToDType(a.DType, x); r >= hi && hi > lo {
					x = math.Nextafter(hi, lo) // keep rounding inside [a, b)
				}
				v[i] = x
			}
			encodeFloats(out, v)
		case a.DType.IsInteger() || a.DType.IsBool():
			lo, hi := a.Int64(0), b.Int64(0)
			span := uint64(hi - lo)
			v := make([]int64, n)
			for i := range v {
				v[i] = lo
				if hi > lo {
					v[i] = lo + int64((words[2*i]<<32|words[2*i+1])%span)
				}
			}
			encodeInts(out, v)
		default:
			return nil, fmt.Errorf("%s: UNIFORM of %v is not supported", op.Name, a.DType)
		}
	case "NORMAL":
		if !a.DType.IsFloat() {
			return nil, fmt.Errorf("%s: NORMAL needs a float type, got %v", op.Name, a.DType)
		}
		mu, sigma := a.Float64(0), b.Float64(0)
		v := make([]float64, n)
		for i := range v {
			// Box–Muller on two 32-bit uniforms
			u1 := (float64(words[2*i]) + 0.5) * 0x1p-32
			u2 := float64(words[2*i+1]) * 0x1p-32
			v[i] = mu + sigma*math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)
		}
		encodeFloats(out, v)
	default:
		return nil, fmt.Errorf("%s: unknown rng_distribution %q", op.Name, dist)
	}
	return []Value{out}, nil
}
