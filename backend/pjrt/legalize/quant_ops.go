package legalize

import (
	"math"

	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Quantized add, dot_general, dot and convolution on the integers, as the
// quant-to-math lowering computes them (backend/native/quant_add.go and
// quant_dot.go hold the same arithmetic on the host). ok is false where
// the lowering takes the dequantize path instead.

func (q *quantizer) add(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, bool, error) {
	if len(op.Operands) != 2 || len(op.Results) != 1 {
		return nil, nil, false, nil
	}
	ql, qr := q.quantOf(op.Operands[0]), q.quantOf(op.Operands[1])
	rt := stablehlo.AsTensor(op.Results[0].Type)
	if ql == nil || qr == nil || rt == nil || !rt.Elem.IsQuantized() {
		return nil, nil, false, nil
	}
	qo := rt.Elem.Quant
	fb := stablehlo.NewOpsBuilder(op.Loc)
	lhs, rhs := op.Operands[0], op.Operands[1]
	shape := rt.Shape
	var out *stablehlo.Value
	if ql.Axis >= 0 || qr.Axis >= 0 || qo.Axis >= 0 {
		if ql.String() != qo.String() || qr.String() != qo.String() || qo.Storage.Bits() != 32 {
			return nil, nil, false, nil
		}
		s := fb.Add(fb.Convert(lhs, dtype.I32), fb.Convert(rhs, dtype.I32))
		s = fb.Sub(s, paramConst(fb, dtype.I32, shape, qo.Axis, zeroPoints(qo)))
		out = fb.Convert(s, qo.Storage)
	} else {
		a := requant(fb, lhs, ql, qo, dtype.I32)
		b := requant(fb, rhs, qr, qo, dtype.I32)
		s := fb.Sub(fb.Add(a, b), fb.BroadcastInDim(fb.ScalarInt(dtype.I32, qo.ZeroPoints[0]), shape, nil))
		if qo.Storage.Bits() < 32 {
			lo := fb.BroadcastInDim(fb.ScalarInt(dtype.I32, qo.StorageMin), shape, nil)
			hi := fb.BroadcastInDim(fb.ScalarInt(dtype.I32, qo.StorageMax), shape, nil)
			s = fb.Clamp(lo, s, hi)
		}
		out = fb.Convert(s, qo.Storage)
	}
	if err := fb.Err(); err != nil {
		return nil, nil, true, err
	}
	q.orig[out] = rt
	return fb.Ops(), []*stablehlo.Value{out}, true, nil
}

// dotLike: raw = op(lhs, rhs) and exact = op(lhs - zp_l, rhs - zp_r) on
// i32; offset = raw - exact; with the combined scale m = s_l*s_r/s_o
// (unless within 0.001 of 1) raw and offset are scaled in f32 and
// converted back; result = raw + (zp_o - offset), in the storage type.
// For a convolution, raw = exact + zp_l * (the kernel's sum per output
// feature): the lowering pads the input with its zero point.
func (q *quantizer) dotLike(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, bool, error) {
	if len(op.Operands) < 2 || len(op.Results) != 1 {
		return nil, nil, false, nil
	}
	ql, qr := q.quantOf(op.Operands[0]), q.quantOf(op.Operands[1])
	rt := stablehlo.AsTensor(op.Results[0].Type)
	if ql == nil || qr == nil || rt == nil || !rt.Elem.IsQuantized() {
		return nil, nil, false, nil
	}
	qo := rt.Elem.Quant
	if ql.Axis >= 0 || (qr.Axis >= 0) != (qo.Axis >= 0) {
		return nil, nil, false, nil
	}
	if op.Name == "stablehlo.convolution" && !native.QuantConvIntegerPath(op, qr, qo) {
		return nil, nil, false, nil
	}
	fb := stablehlo.NewOpsBuilder(op.Loc)
	lhs, rhs := op.Operands[0], op.Operands[1]
	i32 := stablehlo.TensorType{Shape: rt.Shape, Elem: stablehlo.Elem(dtype.I32)}
	run := func(a, b *stablehlo.Value) *stablehlo.Value {
		res := fb.OpTyped(op.Name, []*stablehlo.Value{a, b}, []stablehlo.Type{&i32}, op.Attrs)
		return res[0]
	}
	li, ri := fb.Convert(lhs, dtype.I32), fb.Convert(rhs, dtype.I32)
	l0 := fb.Sub(li, paramConst(fb, dtype.I32, shapeOf(lhs), ql.Axis, zeroPoints(ql)))
	r0 := fb.Sub(ri, paramConst(fb, dtype.I32, shapeOf(rhs), qr.Axis, zeroPoints(qr)))
	exact := run(l0, r0)
	var raw *stablehlo.Value
	if op.Name == "stablehlo.convolution" {
		raw = exact
		if zl := ql.ZeroPoints[0]; zl != 0 {
			d, _ := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
			var dims []int64
			for i := range shapeOf(rhs) {
				if int64(i) != d.KernelOutputFeatureDim {
					dims = append(dims, int64(i))
				}
			}
			sum := fb.ReduceWith(ri, fb.ScalarInt(dtype.I32, 0), dims, "add")
			perFeature := fb.Mul(sum, fb.BroadcastInDim(fb.ScalarInt(dtype.I32, zl), shapeOf(sum), nil))
			raw = fb.Add(exact, fb.BroadcastInDim(perFeature, rt.Shape, []int64{d.OutputFeatureDim}))
		}
	} else {
		raw = run(li, ri)
	}
	off := fb.Sub(raw, exact)
	combined := ql.Scales[0] * qr.Scales[0] / qo.Scales[0]
	if math.Abs(combined-1) > 0.001 {
		c := fb.BroadcastInDim(fb.Full(dtype.F32, nil, float64(float32(combined))), rt.Shape, nil)
		raw = satConvert(fb, fb.Mul(fb.Convert(raw, dtype.F32), c), dtype.I32)
		off = satConvert(fb, fb.Mul(fb.Convert(off, dtype.F32), c), dtype.I32)
	}
	zpOut := int64(0)
	if qo.Axis < 0 {
		zpOut = qo.ZeroPoints[0]
	}
	zo := fb.BroadcastInDim(fb.ScalarInt(dtype.I32, zpOut), rt.Shape, nil)
	out := fb.Convert(fb.Add(raw, fb.Sub(zo, off)), qo.Storage)
	if err := fb.Err(); err != nil {
		return nil, nil, true, err
	}
	q.orig[out] = rt
	return fb.Ops(), []*stablehlo.Value{out}, true, nil
}
