package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// bitcast_convert and reduce_precision work on the bit patterns of
// elements. A bitcast between types of different widths adds or removes a
// trailing dimension; the first element of that dimension holds the least
// significant bits.

func init() {
	register("stablehlo.bitcast_convert", evalBitcastConvert)
	register("stablehlo.reduce_precision", evalReducePrecision)
}

// rawBits reads element i's bit pattern (types of at most 64 bits).
func rawBits(l *literal.Literal, i int) uint64 {
	sz := l.DType.Size()
	var b uint64
	for k := sz - 1; k >= 0; k-- {
		b = b<<8 | uint64(l.Data[i*sz+k])
	}
	return b & widthMask(l.DType)
}

// setRawBits stores a bit pattern into element i (sign-extending sub-byte
// signed integers, as the host layout requires).
func setRawBits(l *literal.Literal, i int, b uint64) {
	d := l.DType
	b &= widthMask(d)
	if d.IsSigned() && d.Bits() < 8 {
		w := uint(d.Bits())
		b = uint64(int64(b<<(64-w)) >> (64 - w))
	}
	sz := d.Size()
	for k := 0; k < sz; k++ {
		l.Data[i*sz+k] = byte(b >> (8 * k))
	}
}

// byteAligned reports whether a dtype's host bytes are exactly its bits.
func byteAligned(d dtype.DType) bool { return d.Size()*8 == d.Bits() }

func evalBitcastConvert(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	t := resultType(op, 0)
	if t == nil {
		return nil, fmt.Errorf("result type must be a static tensor")
	}
	from, to := x.DType, t.DType()
	fb, tb := from.Bits(), to.Bits()
	var want []int64
	switch {
	case fb == tb:
		want = x.Shape
	case fb > tb:
		if fb%tb != 0 {
			return nil, fmt.Errorf("cannot bitcast %v to %v", from, to)
		}
		want = append(append([]int64{}, x.Shape...), int64(fb/tb))
	default:
		if tb%fb != 0 || len(x.Shape) == 0 || x.Shape[len(x.Shape)-1] != int64(tb/fb) {
			return nil, fmt.Errorf("cannot bitcast %v to %v", x, t)
		}
		want = x.Shape[:len(x.Shape)-1]
	}
	if !shapeEq(want, t.Shape) {
		return nil, fmt.Errorf("bitcast of %v gives shape %v, result type is %v", x, want, t)
	}
	out, err := literal.New(to, t.Shape)
	if err != nil {
		return nil, err
	}
	if byteAligned(from) && byteAligned(to) {
		copy(out.Data, x.Data)
		return []Value{out}, nil
	}
	if fb > 64 || tb > 64 {
		return nil, fmt.Errorf("bitcast %v to %v: %w", from, to, unsupportedType(to))
	}
	switch {
	case fb == tb:
		for i := 0; i < x.Len(); i++ {
			setRawBits(out, i, rawBits(x, i))
		}
	case fb > tb:
		k := fb / tb
		for i := 0; i < x.Len(); i++ {
			b := rawBits(x, i)
			for j := 0; j < k; j++ {
				setRawBits(out, i*k+j, b>>(j*tb))
			}
		}
	default:
		k := tb / fb
		for i := 0; i < out.Len(); i++ {
			var b uint64
			for j := k - 1; j >= 0; j-- {
				b = b<<fb | rawBits(x, i*k+j)
			}
			setRawBits(out, i, b)
		}
	}
	return []Value{out}, nil
}

// mantissaBits gives the explicit mantissa width of the IEEE-like types
// reduce_precision accepts.
var mantissaBits = map[dtype.DType]int{
	dtype.F64: 52, dtype.F32: 23, dtype.F16: 10, dtype.BF16: 7,
	dtype.F8E5M2: 2, dtype.F8E5M2FNUZ: 2, dtype.F8E4M3: 3, dtype.F8E4M3FN: 3,
	dtype.F8E4M3FNUZ: 3, dtype.F8E4M3B11FNUZ: 3, dtype.F8E3M4: 4,
}

func evalReducePrecision(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	eb, ok1 := op.Int("exponent_bits")
	mb, ok2 := op.Int("mantissa_bits")
	if !ok1 || !ok2 || eb < 1 || mb < 0 {
		return nil, fmt.Errorf("need exponent_bits >= 1 and mantissa_bits >= 0")
	}
	srcM, ok := mantissaBits[x.DType]
	if !ok {
		return nil, unsupportedType(x.DType)
	}
	out, err := outLiteral(op, x.DType, x.Shape)
	if err != nil {
		return nil, err
	}
	width := x.DType.Bits()
	srcE := width - srcM - 1
	for i := 0; i < x.Len(); i++ {
		v := rawBits(x, i)
		r := v
		if int(mb) < srcM {
			last := uint64(1) << (srcM - int(mb))
			bias := (last >> 1) - 1
			lastBit := (r & last) >> (srcM - int(mb))
			r = (r + lastBit + bias) & ^(last - 1) & widthMask(x.DType)
		}
		if int(eb) < srcE {
			sign := uint64(1) << (width - 1)
			expMask := (uint64(1)<<srcE - 1) << srcM
			expBias := uint64(1)<<(srcE-1) - 1
			redBias := uint64(1)<<(eb-1) - 1
			maxE, minE := expBias+redBias, expBias-redBias
			e := r & expMask
			switch {
			case e > maxE<<srcM:
				r = (r & sign) | expMask
			case e <= minE<<srcM:
				r &= sign
			}
		}
		f := x.Float64(i)
		if f != f { // NaN
			if mb > 0 {
				r = v
			} else {
				r = expMaskOf(srcE, srcM) // +inf
			}
		}
		setRawBits(out, i, r)
	}
	return []Value{out}, nil
}

func expMaskOf(e, m int) uint64 { return (uint64(1)<<e - 1) << m }
