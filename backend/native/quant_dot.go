package native

// dot, dot_general and convolution of quantized operands into a quantized
// result, as the quant-to-math lowering computes them: the products of the
// stored integers are accumulated exactly in 32-bit integers,
//
//	raw    = dot(lhs, rhs)
//	offset = raw - dot(lhs - zp_lhs, rhs - zp_rhs)
//	result = raw' + zp_result - offset'
//
// where x' = i32(f32(x) * f32(scale_lhs*scale_rhs/scale_result)) unless that
// combined scale is within 0.001 of 1 (then x' = x), and the i32 result is
// converted to the storage type. Operand/result combinations the lowering
// does not cover this way (hybrid float×quantized ops, convolutions with a
// nonzero kernel zero point or an unusual layout) take the dequantize path.

import (
	"errors"
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func quantDotLike(env Env, op *stablehlo.Op, in []Value, k Kernel) ([]Value, bool, error) {
	if len(op.Operands) < 2 || len(op.Results) != 1 || len(in) < 2 {
		return nil, false, nil
	}
	ql, qr, qo := quantOfType(op.Operands[0].Type), quantOfType(op.Operands[1].Type), quantOfType(op.Results[0].Type)
	if ql == nil || qr == nil || qo == nil || ql.Axis >= 0 || (qr.Axis >= 0) != (qo.Axis >= 0) {
		return nil, false, nil
	}
	lhs, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, true, err
	}
	rhs, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, true, err
	}
	if op.Name == "stablehlo.convolution" && !QuantConvIntegerPath(op, qr, qo) {
		return nil, false, nil
	}
	sh := shadowOp(op, func(*stablehlo.TensorType) stablehlo.ElemType { return stablehlo.Elem(dtype.I32) })
	run := func(a, b *literal.Literal) (*literal.Literal, error) {
		res, err := k(env, sh, []Value{a, b})
		if err != nil {
			return nil, err
		}
		l, ok := res[0].(*literal.Literal)
		if !ok || l.DType != dtype.I32 {
			return nil, fmt.Errorf("%s: integer kernel returned %T", op.Name, res[0])
		}
		return l, nil
	}
	shift := func(q *stablehlo.Quant, l *literal.Literal) (*literal.Literal, error) {
		ch, err := quantChannel(q, l.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		out, err := literal.New(dtype.I32, l.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", op.Name, err)
		}
		for i := 0; i < l.Len(); i++ {
			out.SetInt64(i, l.Int64(i)-q.ZeroPoints[ch(i)])
		}
		return out, nil
	}
	noShift := &stablehlo.Quant{Axis: -1, Scales: []float64{1}, ZeroPoints: []int64{0}}
	l0, err := shift(ql, lhs)
	if err != nil {
		return nil, true, err
	}
	r0, err := shift(qr, rhs)
	if err != nil {
		return nil, true, err
	}
	exact, err := run(l0, r0)
	if err != nil {
		return nil, true, err
	}
	var raw *literal.Literal
	if op.Name == "stablehlo.convolution" {
		// the lowering pads lhs with its zero point, so every output
		// position sees zp_lhs times the sum of its kernel
		raw, err = quantConvRaw(op, exact, ql, rhs)
	} else {
		lraw, err1 := shift(noShift, lhs)
		rraw, err2 := shift(noShift, rhs)
		if err = errors.Join(err1, err2); err == nil {
			raw, err = run(lraw, rraw)
		}
	}
	if err != nil {
		return nil, true, err
	}
	combined := ql.Scales[0] * qr.Scales[0] / qo.Scales[0]
	scaled := math.Abs(combined-1) > 0.001
	c32 := f32r(combined)
	zpOut := int64(0)
	if qo.Axis < 0 {
		zpOut = qo.ZeroPoints[0]
	}
	out, err := literal.New(qo.Storage, exact.Shape)
	if err != nil {
		return nil, true, fmt.Errorf("%s: %w", op.Name, err)
	}
	for i := 0; i < out.Len(); i++ {
		r := raw.Int64(i)
		off := int64(int32(r - exact.Int64(i)))
		if scaled {
			r = floatToIntSat(dtype.I32, f32r(f32r(float64(r))*c32))
			off = floatToIntSat(dtype.I32, f32r(f32r(float64(off))*c32))
		}
		out.SetInt64(i, int64(int32(r+int64(int32(zpOut-off)))))
	}
	return []Value{out}, true, nil
}

// QuantConvIntegerPath reports whether the lowering takes the integer path
// for a quantized convolution (backend/pjrt/legalize takes the same one): kernel (and per-axis result) zero points
// zero, per-axis kernels quantized along their last dim, no lhs dilation,
// and an NHWC, NCHW, NDHWC or NCDHW layout.
func QuantConvIntegerPath(op *stablehlo.Op, qr, qo *stablehlo.Quant) bool {
	for _, z := range qr.ZeroPoints {
		if z != 0 {
			return false
		}
	}
	if qr.Axis >= 0 {
		for _, z := range qo.ZeroPoints {
			if z != 0 {
				return false
			}
		}
		rt := stablehlo.AsTensor(op.Operands[1].Type)
		if rt == nil || qr.Axis != rt.Rank()-1 {
			return false
		}
		for i := range qo.Scales {
			if i >= len(qr.Scales) {
				return false
			}
			r0 := qo.Scales[0] / qr.Scales[0]
			if math.Abs((qo.Scales[i]/qr.Scales[i]-r0)/r0) > 0.001 {
				return false
			}
		}
	}
	if v, ok := op.Ints("lhs_dilation"); ok {
		for _, x := range v {
			if x != 1 {
				return false
			}
		}
	}
	d, ok := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	if !ok {
		return false
	}
	eq := func(a []int64, b ...int64) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i] {
				return false
			}
		}
		return true
	}
	switch len(d.InputSpatialDims) {
	case 2:
		nhwc := d.InputBatchDim == 0 && d.InputFeatureDim == 3 && eq(d.InputSpatialDims, 1, 2) &&
			d.KernelInputFeatureDim == 2 && d.KernelOutputFeatureDim == 3 && eq(d.KernelSpatialDims, 0, 1) &&
			d.OutputBatchDim == 0 && d.OutputFeatureDim == 3 && eq(d.OutputSpatialDims, 1, 2)
		nchw := d.InputBatchDim == 0 && d.InputFeatureDim == 1 && eq(d.InputSpatialDims, 2, 3) &&
			d.KernelInputFeatureDim == 1 && d.KernelOutputFeatureDim == 0 && eq(d.KernelSpatialDims, 2, 3) &&
			d.OutputBatchDim == 0 && d.OutputFeatureDim == 1 && eq(d.OutputSpatialDims, 2, 3)
		return nhwc || nchw
	case 3:
		ndhwc := d.InputBatchDim == 0 && d.InputFeatureDim == 4 && eq(d.InputSpatialDims, 1, 2, 3) &&
			d.KernelInputFeatureDim == 3 && d.KernelOutputFeatureDim == 4 && eq(d.KernelSpatialDims, 0, 1, 2) &&
			d.OutputBatchDim == 0 && d.OutputFeatureDim == 4 && eq(d.OutputSpatialDims, 1, 2, 3)
		ncdhw := d.InputBatchDim == 0 && d.InputFeatureDim == 1 && eq(d.InputSpatialDims, 2, 3, 4) &&
			d.KernelInputFeatureDim == 0 && d.KernelOutputFeatureDim == 1 && eq(d.KernelSpatialDims, 2, 3, 4) &&
			d.OutputBatchDim == 0 && d.OutputFeatureDim == 1 && eq(d.OutputSpatialDims, 2, 3, 4)
		return ndhwc || ncdhw
	}
	return false
}

// quantConvRaw returns the convolution of the stored lhs, padded with its
// zero point, with the stored rhs: exact + zp_lhs * conv(ones, rhs) with
// the padding treated as real elements.
func quantConvRaw(op *stablehlo.Op, exact *literal.Literal, ql *stablehlo.Quant, rhs *literal.Literal) (*literal.Literal, error) {
	zl := ql.ZeroPoints[0]
	if zl == 0 {
		return exact, nil
	}
	d := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	perFeature := map[int64]int64{}
	rs := literal.Strides(rhs.Shape)
	for i := 0; i < rhs.Len(); i++ {
		o := int64(i) / rs[d.KernelOutputFeatureDim] % rhs.Shape[d.KernelOutputFeatureDim]
		perFeature[o] += rhs.Int64(i)
	}
	out := exact.Clone()
	es := literal.Strides(exact.Shape)
	for i := 0; i < out.Len(); i++ {
		o := int64(i) / es[d.OutputFeatureDim] % exact.Shape[d.OutputFeatureDim]
		out.SetInt64(i, int64(int32(exact.Int64(i)+zl*perFeature[o])))
	}
	return out, nil
}
