package native

// uniform_quantize and uniform_dequantize, with the arithmetic of
// StableHLO's quant-to-math lowering (which the reference interpreter and
// XLA run): f32 math, round-half-to-even, clamping to the storage range.
//
//	dequantize:  f32(i32(q) - zp) * f32(scale)
//	quantize:    round_even(clamp(f32(x) / f32(scale) + f32(zp), min, max))
//	requantize:  round_even(clamp(f32(q) * f32(s_in/s_out) + f32(zp_out - zp_in*s_in/s_out)))
//	             (clamped only for storage narrower than 32 bits; identity
//	             when the two types are equal)

import (
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func init() {
	register("stablehlo.uniform_quantize", evalUniformQuantize)
	register("stablehlo.uniform_dequantize", evalUniformDequantize)
}

// quantOfType returns the quantization of a tensor type, or nil.
func quantOfType(t stablehlo.Type) *stablehlo.Quant {
	tt := stablehlo.AsTensor(t)
	if tt == nil {
		return nil
	}
	return tt.Elem.Quant
}

// quantChannel returns a function from flat element index to the index of
// the quantization parameters (0 for per-tensor).
func quantChannel(q *stablehlo.Quant, shape []int64) (func(i int) int, error) {
	if q.Axis < 0 {
		if len(q.Scales) < 1 || len(q.ZeroPoints) < 1 {
			return nil, fmt.Errorf("quantized type %v has no scale", q)
		}
		return func(int) int { return 0 }, nil
	}
	if q.Axis >= len(shape) {
		return nil, fmt.Errorf("quantized type %v: axis %d out of range for shape %v", q, q.Axis, shape)
	}
	if int64(len(q.Scales)) != shape[q.Axis] || len(q.ZeroPoints) != len(q.Scales) {
		return nil, fmt.Errorf("quantized type %v has %d scales for dim size %d", q, len(q.Scales), shape[q.Axis])
	}
	stride := int(literal.Strides(shape)[q.Axis])
	n := int(shape[q.Axis])
	return func(i int) int { return i / stride % n }, nil
}

// f32r rounds to float32 precision.
func f32r(x float64) float64 { return float64(float32(x)) }

// dequantizeLit turns stored values of quantized type q into a literal of
// q's expressed type.
func dequantizeLit(q *stablehlo.Quant, l *literal.Literal) (*literal.Literal, error) {
	ch, err := quantChannel(q, l.Shape)
	if err != nil {
		return nil, err
	}
	out, err := literal.New(q.Expressed, l.Shape)
	if err != nil {
		return nil, err
	}
	r := f32r
	if q.Expressed == dtype.F64 {
		r = func(x float64) float64 { return x }
	}
	v := make([]float64, l.Len())
	for i := range v {
		c := ch(i)
		d := int64(int32(l.Int64(i) - q.ZeroPoints[c]))
		v[i] = r(r(float64(d)) * r(q.Scales[c]))
	}
	encodeFloats(out, v)
	return out, nil
}

// quantizeLit turns a float literal into the stored values of quantized
// type q.
func quantizeLit(q *stablehlo.Quant, l *literal.Literal) (*literal.Literal, error) {
	ch, err := quantChannel(q, l.Shape)
	if err != nil {
		return nil, err
	}
	out, err := literal.New(q.Storage, l.Shape)
	if err != nil {
		return nil, err
	}
	r := f32r
	if q.Expressed == dtype.F64 && l.DType == dtype.F64 {
		r = func(x float64) float64 { return x }
	}
	lo, hi := r(float64(q.StorageMin)), r(float64(q.StorageMax))
	x := decodeFloats(l)
	v := make([]int64, len(x))
	for i, xv := range x {
		c := ch(i)
		y := r(r(xv) / r(q.Scales[c]))
		y = r(y + r(float64(q.ZeroPoints[c])))
		y = math.Min(math.Max(y, lo), hi)
		v[i] = floatToIntSat(q.Storage, math.RoundToEven(y))
	}
	encodeInts(out, v)
	return out, nil
}

// requantizeLit converts stored values of type from into type to.
func requantizeLit(from, to *stablehlo.Quant, l *literal.Literal) (*literal.Literal, error) {
	out, err := literal.New(to.Storage, l.Shape)
	if err != nil {
		return nil, err
	}
	if from.String() == to.String() {
		copy(out.Data, l.Data)
		return out, nil
	}
	v, err := requantizeInts(from, to, l, to.Storage)
	if err != nil {
		return nil, err
	}
	encodeInts(out, v)
	return out, nil
}

// requantizeInts converts stored values of type from into the integers of
// type to, held in integer type holder (to's storage type, or i32 for the
// intermediate values of a quantized add); values are clamped to to's
// storage range only when holder is narrower than 32 bits.
func requantizeInts(from, to *stablehlo.Quant, l *literal.Literal, holder dtype.DType) ([]int64, error) {
	v := make([]int64, l.Len())
	if from.String() == to.String() {
		for i := range v {
			v[i] = l.Int64(i)
		}
		return v, nil
	}
	chIn, err := quantChannel(from, l.Shape)
	if err != nil {
		return nil, err
	}
	chOut, err := quantChannel(to, l.Shape)
	if err != nil {
		return nil, err
	}
	n := max(len(from.Scales), len(to.Scales))
	scale := make([]float64, n)
	zp := make([]float64, n)
	anyZp := false
	for c := 0; c < n; c++ {
		ci, co := min(c, len(from.Scales)-1), min(c, len(to.Scales)-1)
		m := from.Scales[ci] / to.Scales[co]
		scale[c] = f32r(m)
		zp[c] = f32r(float64(to.ZeroPoints[co]) - float64(from.ZeroPoints[ci])*m)
		anyZp = anyZp || zp[c] != 0
	}
	clamp := holder.Bits() < 32
	lo, hi := f32r(float64(to.StorageMin)), f32r(float64(to.StorageMax))
	for i := range v {
		c := max(chIn(i), chOut(i))
		y := f32r(f32r(float64(l.Int64(i))) * scale[c])
		if anyZp {
			y = f32r(y + zp[c])
		}
		if clamp {
			y = math.Min(math.Max(y, lo), hi)
		}
		v[i] = floatToIntSat(holder, math.RoundToEven(y))
	}
	return v, nil
}

func evalUniformQuantize(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	if len(op.Results) != 1 || len(op.Operands) != 1 {
		return nil, fmt.Errorf("%s: want one operand and one result", op.Name)
	}
	to := quantOfType(op.Results[0].Type)
	if to == nil {
		return nil, fmt.Errorf("%s: result type %v is not quantized", op.Name, op.Results[0].Type)
	}
	var out *literal.Literal
	if from := quantOfType(op.Operands[0].Type); from != nil {
		out, err = requantizeLit(from, to, x)
	} else {
		if !x.DType.IsFloat() {
			return nil, fmt.Errorf("%s: operand %v must be float or quantized", op.Name, x)
		}
		out, err = quantizeLit(to, x)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	return []Value{out}, nil
}

func evalUniformDequantize(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	if len(op.Operands) != 1 {
		return nil, fmt.Errorf("%s: want one operand", op.Name)
	}
	q := quantOfType(op.Operands[0].Type)
	if q == nil {
		return nil, fmt.Errorf("%s: operand type %v is not quantized", op.Name, op.Operands[0].Type)
	}
	out, err := dequantizeLit(q, x)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op.Name, err)
	}
	if dt := computeResultDType(op, 0, out.DType); dt != out.DType {
		return nil, fmt.Errorf("%s: result element type %v, want the expressed type %v", op.Name, dt, out.DType)
	}
	return []Value{out}, nil
}
