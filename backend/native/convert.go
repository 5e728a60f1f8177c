package native

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// convert between any two element types, as the StableHLO reference does:
//   - to i1: value != 0 (a complex value converts its real part);
//   - integer to integer: two's-complement truncation or extension;
//   - integer to float: round to nearest even;
//   - float to integer: round toward zero, saturating at the type's range,
//     NaN gives 0;
//   - float to float: round to nearest even (overflow per the type: inf,
//     or NaN / saturation for the finite-only f8 types);
//   - complex to real: the real part; real to complex: imaginary part 0.

func init() {
	register("stablehlo.convert", evalConvert)
}

func evalConvert(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	t := resultType(op, 0)
	if t == nil {
		return nil, fmt.Errorf("result type must be a static tensor")
	}
	out, err := outLiteralEnv(env, op, t.DType(), x.Shape)
	if err != nil {
		return nil, err
	}
	if convertFast(x, out) {
		return []Value{out}, nil
	}
	if err := convertInto(x, out); err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// convertFast converts between float32/float64 and int32/int64 (the
// indices, counts and masks of lowered programs) with typed loops over
// the loop pool, as floatToInt and setFloatFromInt define each element;
// false when the pair is another or a buffer cannot be seen as its
// elements (elems).
func convertFast(x, out *literal.Literal) bool {
	var body func(lo, hi int)
	switch from, to := x.DType, out.DType; {
	case from == dtype.F32 && to == dtype.I64:
		body = floatsToInts(elems[float32](x.Data), elems[int64](out.Data), to)
	case from == dtype.F32 && to == dtype.I32:
		body = floatsToInts(elems[float32](x.Data), elems[int32](out.Data), to)
	case from == dtype.F64 && to == dtype.I64:
		body = floatsToInts(elems[float64](x.Data), elems[int64](out.Data), to)
	case from == dtype.I64 && to == dtype.F64:
		if src, dst := elems[int64](x.Data), elems[float64](out.Data); src != nil && dst != nil {
			body = func(lo, hi int) {
				for i := lo; i < hi; i++ {
					dst[i] = float64(src[i]) // Go rounds to nearest even, once
				}
			}
		}
	case from == dtype.I32 && to == dtype.F32:
		if src, dst := elems[int32](x.Data), elems[float32](out.Data); src != nil && dst != nil {
			body = func(lo, hi int) {
				for i := lo; i < hi; i++ {
					dst[i] = float32(src[i])
				}
			}
		}
	}
	if body == nil {
		return false
	}
	n := x.Len()
	parts := 1
	if n >= convertParMin {
		parts = min(Threads(), n/(convertParMin/2))
	}
	runParts(n, parts, body)
	return true
}

// convertParMin is the element count from which a conversion is split
// over the loop pool.
const convertParMin = 1 << 16

// floatsToInts returns the loop converting src[lo:hi] to the integer type
// to: truncation, NaN to 0, saturation at the type's bounds; nil without
// both views.
func floatsToInts[F float32 | float64, I int32 | int64](src []F, dst []I, to dtype.DType) func(lo, hi int) {
	if src == nil || dst == nil {
		return nil
	}
	lo, hi := -math.Ldexp(1, to.Bits()-1), math.Ldexp(1, to.Bits()-1)
	minI, maxI := I(-1)<<(to.Bits()-1), I(1)<<(to.Bits()-1)-1
	return func(a, b int) {
		for i := a; i < b; i++ {
			v := float64(src[i])
			switch {
			case v != v:
				dst[i] = 0
			case v < lo:
				dst[i] = minI
			case v >= hi:
				dst[i] = maxI
			default:
				dst[i] = I(v) // truncates toward zero
			}
		}
	}
}

// convertInto converts every element of x into out (same length).
func convertInto(x, out *literal.Literal) error {
	from, to := x.DType, out.DType
	n := x.Len()
	if from == to {
		copy(out.Data, x.Data)
		return nil
	}
	switch {
	case to.IsBool():
		for i := 0; i < n; i++ {
			var nz bool
			switch {
			case from.IsFloat() || from.IsComplex():
				nz = x.Float64(i) != 0
			default:
				nz = x.Int64(i) != 0
			}
			out.SetInt64(i, b2i(nz))
		}
	case to.IsInteger():
		for i := 0; i < n; i++ {
			switch {
			case from.IsFloat() || from.IsComplex():
				out.SetInt64(i, floatToInt(x.Float64(i), to))
			default:
				out.SetInt64(i, x.Int64(i)) // truncates to the width
			}
		}
	case to.IsFloat():
		for i := 0; i < n; i++ {
			switch {
			case from.IsFloat() || from.IsComplex():
				out.SetFloat64(i, x.Float64(i))
			case from.IsUnsigned():
				setFloatFromUint(out, i, x.Uint64(i))
			default:
				setFloatFromInt(out, i, x.Int64(i))
			}
		}
	case to.IsComplex():
		for i := 0; i < n; i++ {
			switch {
			case from.IsComplex():
				out.SetComplex128(i, x.Complex128(i))
			case from.IsFloat():
				out.SetComplex128(i, complex(x.Float64(i), 0))
			case from.IsUnsigned():
				out.SetComplex128(i, complex(float64(x.Uint64(i)), 0))
			default:
				out.SetComplex128(i, complex(float64(x.Int64(i)), 0))
			}
		}
	default:
		return fmt.Errorf("convert %v to %v: %w", from, to, unsupportedType(to))
	}
	return nil
}

// setFloatFromInt rounds an integer once to the float type of out.
func setFloatFromInt(out *literal.Literal, i int, v int64) {
	switch out.DType {
	case dtype.F32:
		out.SetFloat64(i, float64(float32(v)))
	case dtype.F64:
		out.SetFloat64(i, float64(v))
	default:
		out.SetFloat64(i, roundIntTo53(v < 0, absU64(v)))
	}
}

func setFloatFromUint(out *literal.Literal, i int, v uint64) {
	switch out.DType {
	case dtype.F32:
		out.SetFloat64(i, float64(float32(v)))
	case dtype.F64:
		out.SetFloat64(i, float64(v))
	default:
		out.SetFloat64(i, roundIntTo53(false, v))
	}
}

func absU64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// roundIntTo53 converts a magnitude to float64 with round-to-odd, so that
// a second rounding to a narrower type gives the correctly rounded result.
func roundIntTo53(neg bool, m uint64) float64 {
	if m >= 1<<53 {
		shift := 0
		for m>>shift >= 1<<53 {
			shift++
		}
		lost := m & (1<<shift - 1)
		m >>= shift
		if lost != 0 {
			m |= 1 // sticky: round to odd
		}
		f := math.Ldexp(float64(m), shift)
		if neg {
			return -f
		}
		return f
	}
	f := float64(m)
	if neg {
		return -f
	}
	return f
}

// floatToInt truncates toward zero and saturates; NaN gives 0.
func floatToInt(v float64, to dtype.DType) int64 {
	if math.IsNaN(v) {
		return 0
	}
	v = math.Trunc(v)
	w := to.Bits()
	if to.IsUnsigned() {
		if v <= 0 {
			return 0
		}
		maxU := math.Ldexp(1, w) // 2^w
		if v >= maxU {
			return int64(widthMask(to))
		}
		if w == 64 && v >= math.Ldexp(1, 63) {
			return int64(uint64(v))
		}
		return int64(v)
	}
	lo := -math.Ldexp(1, w-1)
	hi := math.Ldexp(1, w-1)
	switch {
	case v < lo:
		return -1 << (w - 1)
	case v >= hi:
		return 1<<(w-1) - 1
	}
	return int64(v)
}
