package legalize

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The emitters of quantization arithmetic, in the precision the native
// backend uses (f32, or f64 for an f64 expressed type).

// paramConst is a tensor of x's shape holding a per-channel parameter:
// vals[0] everywhere for a per-tensor type, vals[c] along axis otherwise.
func paramConst(fb *stablehlo.FuncBuilder, d dtype.DType, shape []int64, axis int, vals []float64) *stablehlo.Value {
	if axis < 0 || len(vals) == 1 {
		return fb.BroadcastInDim(fb.Full(d, nil, vals[0]), shape, nil)
	}
	lit, err := literal.New(d, []int64{int64(len(vals))})
	if err != nil {
		return fb.Full(d, shape, vals[0]) // the builder reports the shape mismatch later
	}
	for i, v := range vals {
		if d.IsFloat() {
			lit.SetFloat64(i, v)
		} else {
			lit.SetInt64(i, int64(v))
		}
	}
	return fb.BroadcastInDim(fb.Constant(lit), shape, []int64{int64(axis)})
}

func scales(q *stablehlo.Quant, d dtype.DType) []float64 {
	out := make([]float64, len(q.Scales))
	for i, s := range q.Scales {
		out[i] = s
		if d == dtype.F32 {
			out[i] = float64(float32(s))
		}
	}
	return out
}

func zeroPoints(q *stablehlo.Quant) []float64 {
	out := make([]float64, len(q.ZeroPoints))
	for i, z := range q.ZeroPoints {
		out[i] = float64(z)
	}
	return out
}

func shapeOf(v *stablehlo.Value) []int64 {
	if t := typeOf(v); t != nil {
		return t.Shape
	}
	return nil
}

// typeOf is v's tensor type; nil for a nil value (what a builder returns
// after an error, which it reports) or another type.
func typeOf(v *stablehlo.Value) *stablehlo.TensorType {
	if v == nil {
		return nil
	}
	return stablehlo.AsTensor(v.Type)
}

// computeType is the float type quantization arithmetic runs in.
func computeType(q *stablehlo.Quant) dtype.DType {
	if q.Expressed == dtype.F64 {
		return dtype.F64
	}
	return dtype.F32
}

// dequant: f(i32(x) - zp) * scale, in q's expressed type.
func dequant(fb *stablehlo.FuncBuilder, x *stablehlo.Value, q *stablehlo.Quant) *stablehlo.Value {
	shape := shapeOf(x)
	ct := computeType(q)
	xi := fb.Convert(x, dtype.I32)
	d := fb.Sub(xi, paramConst(fb, dtype.I32, shape, q.Axis, zeroPoints(q)))
	out := fb.Mul(fb.Convert(d, ct), paramConst(fb, ct, shape, q.Axis, scales(q, ct)))
	if q.Expressed != ct {
		out = fb.Convert(out, q.Expressed)
	}
	return out
}

// quant: round_even(clamp(x / scale + zp, min, max)) in q's storage type.
func quant(fb *stablehlo.FuncBuilder, x *stablehlo.Value, q *stablehlo.Quant) *stablehlo.Value {
	shape := shapeOf(x)
	ct := dtype.F32
	if q.Expressed == dtype.F64 {
		if t := typeOf(x); t != nil && t.DType() == dtype.F64 {
			ct = dtype.F64
		}
	}
	xf := x
	if t := typeOf(x); t == nil || t.DType() != ct {
		xf = fb.Convert(x, ct)
	}
	y := fb.Div(xf, paramConst(fb, ct, shape, q.Axis, scales(q, ct)))
	y = fb.Add(y, paramConst(fb, ct, shape, q.Axis, zeroPoints(q)))
	lo := fb.BroadcastInDim(fb.Full(ct, nil, roundTo(ct, float64(q.StorageMin))), shape, nil)
	hi := fb.BroadcastInDim(fb.Full(ct, nil, roundTo(ct, float64(q.StorageMax))), shape, nil)
	y = fb.RoundNearestEven(fb.Clamp(lo, y, hi))
	return fb.Convert(y, q.Storage)
}

func roundTo(d dtype.DType, v float64) float64 {
	if d == dtype.F32 {
		return float64(float32(v))
	}
	return v
}

// requant converts the stored values of type from into type to's
// integers, held in holder (to's storage, or i32 for an add's
// intermediate values); clamped to to's range only when holder is
// narrower than 32 bits.
func requant(fb *stablehlo.FuncBuilder, x *stablehlo.Value, from, to *stablehlo.Quant, holder dtype.DType) *stablehlo.Value {
	if from.String() == to.String() {
		return fb.Convert(x, holder)
	}
	shape := shapeOf(x)
	n := max(len(from.Scales), len(to.Scales))
	axis := from.Axis
	if len(to.Scales) > len(from.Scales) {
		axis = to.Axis
	}
	m := make([]float64, n)
	zp := make([]float64, n)
	anyZp := false
	for c := 0; c < n; c++ {
		ci, co := min(c, len(from.Scales)-1), min(c, len(to.Scales)-1)
		s := from.Scales[ci] / to.Scales[co]
		m[c] = float64(float32(s))
		zp[c] = float64(float32(float64(to.ZeroPoints[co]) - float64(from.ZeroPoints[ci])*s))
		anyZp = anyZp || zp[c] != 0
	}
	y := fb.Mul(fb.Convert(x, dtype.F32), paramConst(fb, dtype.F32, shape, axis, m))
	if anyZp {
		y = fb.Add(y, paramConst(fb, dtype.F32, shape, axis, zp))
	}
	if holder.Bits() < 32 {
		lo := fb.BroadcastInDim(fb.Full(dtype.F32, nil, float64(float32(to.StorageMin))), shape, nil)
		hi := fb.BroadcastInDim(fb.Full(dtype.F32, nil, float64(float32(to.StorageMax))), shape, nil)
		y = fb.Clamp(lo, y, hi)
	}
	return satConvert(fb, fb.RoundNearestEven(y), holder)
}

// satConvert converts floats to an integer type, saturating at its range
// (the native backend's float-to-int conversion; NaN gives 0).
func satConvert(fb *stablehlo.FuncBuilder, y *stablehlo.Value, d dtype.DType) *stablehlo.Value {
	if d.Bits() >= 32 {
		shape := shapeOf(y)
		lo, hi := intLimits(d)
		yt := typeOf(y)
		if yt == nil {
			return fb.Convert(y, d) // the builder already holds the error
		}
		ft := yt.DType()
		loV := fb.BroadcastInDim(fb.Full(ft, nil, lo), shape, nil)
		hiV := fb.BroadcastInDim(fb.Full(ft, nil, hi), shape, nil)
		y = fb.Clamp(loV, y, hiV)
	}
	return fb.Convert(y, d)
}

// intLimits are the least and greatest values of an integer type that a
// float of the compute type holds exactly within its range.
func intLimits(d dtype.DType) (float64, float64) {
	bits := d.Bits()
	if d.IsUnsigned() {
		return 0, float64(float32(math.Ldexp(1, bits) - math.Ldexp(1, bits-24)))
	}
	return -math.Ldexp(1, bits-1), float64(float32(math.Ldexp(1, bits-1) - math.Ldexp(1, bits-1-24)))
}
