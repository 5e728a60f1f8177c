package legalize

// The dequantize path of the quant pass: an op computed on the expressed
// type.

import "github.com/torchtpu/torchtpu/stablehlo"

// viaFloat dequantizes the quantized operands, runs the op on the
// expressed types and quantizes its results.
func (q *quantizer) viaFloat(op *stablehlo.Op) ([]*stablehlo.Op, []*stablehlo.Value, error) {
	fb := stablehlo.NewOpsBuilder(op.Loc)
	in := make([]*stablehlo.Value, len(op.Operands))
	for i, v := range op.Operands {
		in[i] = v
		if qt := q.quantOf(v); qt != nil {
			in[i] = dequant(fb, v, qt)
		}
	}
	types := make([]stablehlo.Type, len(op.Results))
	for i, r := range op.Results {
		types[i] = r.Type
		if t := stablehlo.AsTensor(r.Type); t != nil && t.Elem.IsQuantized() {
			types[i] = &stablehlo.TensorType{Shape: t.Shape, Elem: stablehlo.Elem(t.Elem.Quant.Expressed)}
		}
	}
	var outs []*stablehlo.Value
	if op.Name == "stablehlo.convolution" && len(in) == 2 && len(types) == 1 {
		// XLA:CPU (xla-cpu-pjrt 0.0.1) computes a convolution of layout
		// [b, f, 0] or [b, f, 0, 1] followed by the quantizing arithmetic
		// with its results permuted (the suite's conv1d, depthwise1d and
		// tf_conversion_path *_qi8 programs; the same convolution alone is
		// right): the float convolution is emitted in the canonical
		// [b, 0.., f]x[0.., i, o]->[b, 0.., f] layout between transposes.
		outs = []*stablehlo.Value{canonicalConv(fb, op, in[0], in[1], types[0])}
	} else {
		outs = fb.OpTyped(op.Name, in, types, op.Attrs, op.Regions...)
	}
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	res := make([]*stablehlo.Value, len(op.Results))
	for i, r := range op.Results {
		res[i] = outs[i]
		if t := stablehlo.AsTensor(r.Type); t != nil && t.Elem.IsQuantized() {
			res[i] = quant(fb, outs[i], t.Elem.Quant)
			q.orig[res[i]] = t
		}
	}
	if err := fb.Err(); err != nil {
		return nil, nil, err
	}
	return fb.Ops(), res, nil
}

// canonicalConv emits op's convolution of lhs and rhs (of the given
// result type) as transpose → convolution in [b, 0.., f]x[0.., i, o]->
// [b, 0.., f] → transpose; the window attributes, indexed by spatial
// dim, stay as they are.
func canonicalConv(fb *stablehlo.FuncBuilder, op *stablehlo.Op, lhs, rhs *stablehlo.Value, result stablehlo.Type) *stablehlo.Value {
	d, ok := op.Attr("dimension_numbers").(*stablehlo.ConvDims)
	rt := stablehlo.AsTensor(result)
	if !ok || rt == nil {
		return fb.OpTyped(op.Name, []*stablehlo.Value{lhs, rhs}, []stablehlo.Type{result}, op.Attrs)[0]
	}
	n := len(d.InputSpatialDims)
	lp := append(append([]int64{d.InputBatchDim}, d.InputSpatialDims...), d.InputFeatureDim)
	rp := append(append([]int64{}, d.KernelSpatialDims...), d.KernelInputFeatureDim, d.KernelOutputFeatureDim)
	op2 := append(append([]int64{d.OutputBatchDim}, d.OutputSpatialDims...), d.OutputFeatureDim)
	seq := func(from int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = from + int64(i)
		}
		return out
	}
	cd := &stablehlo.ConvDims{InputBatchDim: 0, InputFeatureDim: int64(n + 1), InputSpatialDims: seq(1),
		KernelInputFeatureDim: int64(n), KernelOutputFeatureDim: int64(n + 1), KernelSpatialDims: seq(0),
		OutputBatchDim: 0, OutputFeatureDim: int64(n + 1), OutputSpatialDims: seq(1)}
	shape := make([]int64, len(op2))
	for i, dim := range op2 {
		shape[i] = rt.Shape[dim]
	}
	attrs := make([]stablehlo.NamedAttr, 0, len(op.Attrs))
	for _, a := range op.Attrs {
		if a.Name == "dimension_numbers" {
			a.Value = cd
		}
		attrs = append(attrs, a)
	}
	c := fb.OpTyped(op.Name, []*stablehlo.Value{fb.Transpose(lhs, lp...), fb.Transpose(rhs, rp...)},
		[]stablehlo.Type{&stablehlo.TensorType{Shape: shape, Elem: rt.Elem}}, attrs)[0]
	back := make([]int64, len(op2))
	for i, dim := range op2 {
		back[dim] = int64(i)
	}
	return fb.Transpose(c, back...)
}
