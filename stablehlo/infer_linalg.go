package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

func init() {
	registerInfer(inferDotGeneral, "stablehlo.dot_general")
	registerInfer(inferDot, "stablehlo.dot")
	registerInfer(inferConvolution, "stablehlo.convolution")
	registerInfer(inferFFT, "stablehlo.fft")
	registerInfer(inferUnary, "stablehlo.cholesky")
	registerInfer(inferTriangularSolve, "stablehlo.triangular_solve")
	registerInfer(inferBatchNorm, "stablehlo.batch_norm_inference", "stablehlo.batch_norm_training",
		"stablehlo.batch_norm_grad")
	registerInfer(givenOnly, "stablehlo.dynamic_conv", "chlo.ragged_dot")
}

// resultElem is the declared result element type, or def when undeclared.
func resultElem(op *Op, def ElemType) ElemType {
	if e, ok := givenElem(op, 0); ok {
		return e
	}
	return def
}

func inferDotGeneral(op *Op) ([]Type, error) {
	if err := wantOperands(op, 2); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	lhs, rhs := ts[0], ts[1]
	dd, ok := op.Attr("dot_dimension_numbers").(*DotDims)
	if !ok {
		return nil, fmt.Errorf("missing attribute dot_dimension_numbers")
	}
	if len(dd.LhsBatchingDims) != len(dd.RhsBatchingDims) || len(dd.LhsContractingDims) != len(dd.RhsContractingDims) {
		return nil, fmt.Errorf("batching dims %v x %v or contracting dims %v x %v differ in length",
			dd.LhsBatchingDims, dd.RhsBatchingDims, dd.LhsContractingDims, dd.RhsContractingDims)
	}
	lhsUsed := append(append([]int64{}, dd.LhsBatchingDims...), dd.LhsContractingDims...)
	rhsUsed := append(append([]int64{}, dd.RhsBatchingDims...), dd.RhsContractingDims...)
	if err := checkUniqueDims("lhs batching+contracting dims", lhsUsed, lhs.Rank()); err != nil {
		return nil, err
	}
	if err := checkUniqueDims("rhs batching+contracting dims", rhsUsed, rhs.Rank()); err != nil {
		return nil, err
	}
	for i := range lhsUsed {
		if a, b := lhs.Shape[lhsUsed[i]], rhs.Shape[rhsUsed[i]]; !dimsCompatible(a, b) {
			return nil, fmt.Errorf("lhs dim %d (size %d) and rhs dim %d (size %d) must match", lhsUsed[i], a, rhsUsed[i], b)
		}
	}
	var shape []int64
	for _, d := range dd.LhsBatchingDims {
		shape = append(shape, lhs.Shape[d])
	}
	for d, n := range lhs.Shape {
		if !contains(lhsUsed, int64(d)) {
			shape = append(shape, n)
		}
	}
	for d, n := range rhs.Shape {
		if !contains(rhsUsed, int64(d)) {
			shape = append(shape, n)
		}
	}
	if shape == nil {
		shape = []int64{}
	}
	return []Type{&TensorType{Shape: shape, Elem: resultElem(op, lhs.Elem)}}, nil
}

func inferDot(op *Op) ([]Type, error) {
	if err := wantOperands(op, 2); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	lhs, rhs := ts[0], ts[1]
	if lhs.Rank() < 1 || lhs.Rank() > 2 || rhs.Rank() < 1 || rhs.Rank() > 2 {
		return nil, fmt.Errorf("operands must have rank 1 or 2")
	}
	if !dimsCompatible(lhs.Shape[lhs.Rank()-1], rhs.Shape[0]) {
		return nil, fmt.Errorf("contracting dims differ: %d vs %d", lhs.Shape[lhs.Rank()-1], rhs.Shape[0])
	}
	shape := append(append([]int64{}, lhs.Shape[:lhs.Rank()-1]...), rhs.Shape[1:]...)
	return []Type{&TensorType{Shape: shape, Elem: resultElem(op, lhs.Elem)}}, nil
}

// windowOutput is the size of a windowed (conv / reduce_window) output dim.
func windowOutput(in, lo, hi, window, stride, baseDil, winDil int64) (int64, error) {
	if in == Dynamic {
		return Dynamic, nil
	}
	if stride <= 0 || baseDil <= 0 || winDil <= 0 || window < 0 {
		return 0, fmt.Errorf("stride %d, dilations %d/%d and window %d must be positive", stride, baseDil, winDil, window)
	}
	dilated := int64(0)
	if in > 0 {
		dilated = (in-1)*baseDil + 1
	}
	padded := lo + dilated + hi
	w := int64(0)
	if window > 0 {
		w = (window-1)*winDil + 1
	}
	if padded < w {
		return 0, nil
	}
	return (padded-w)/stride + 1, nil
}

// padPairs reads an N x 2 padding attribute, defaulting to zeros.
func padPairs(op *Op, n int) ([][2]int64, error) {
	flat, err := optInts(op, "padding", filled(2*n, 0))
	if err != nil {
		return nil, err
	}
	if len(flat) != 2*n {
		return nil, fmt.Errorf("padding has %d values, want %d (%d pairs)", len(flat), 2*n, n)
	}
	out := make([][2]int64, n)
	for i := range out {
		out[i] = [2]int64{flat[2*i], flat[2*i+1]}
	}
	return out, nil
}

func inferConvolution(op *Op) ([]Type, error) {
	if err := wantOperands(op, 2); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	in, k := ts[0], ts[1]
	cd, ok := op.Attr("dimension_numbers").(*ConvDims)
	if !ok {
		return nil, fmt.Errorf("missing attribute dimension_numbers")
	}
	n := len(cd.InputSpatialDims)
	if in.Rank() != n+2 || k.Rank() != n+2 || len(cd.KernelSpatialDims) != n || len(cd.OutputSpatialDims) != n {
		return nil, fmt.Errorf("dimension_numbers with %d spatial dims do not fit input rank %d and kernel rank %d", n, in.Rank(), k.Rank())
	}
	if err := checkUniqueDims("input dims", append([]int64{cd.InputBatchDim, cd.InputFeatureDim}, cd.InputSpatialDims...), n+2); err != nil {
		return nil, err
	}
	if err := checkUniqueDims("kernel dims", append([]int64{cd.KernelInputFeatureDim, cd.KernelOutputFeatureDim}, cd.KernelSpatialDims...), n+2); err != nil {
		return nil, err
	}
	if err := checkUniqueDims("output dims", append([]int64{cd.OutputBatchDim, cd.OutputFeatureDim}, cd.OutputSpatialDims...), n+2); err != nil {
		return nil, err
	}
	strides, err := optInts(op, "window_strides", filled(n, 1))
	if err != nil {
		return nil, err
	}
	lhsDil, err := optInts(op, "lhs_dilation", filled(n, 1))
	if err != nil {
		return nil, err
	}
	rhsDil, err := optInts(op, "rhs_dilation", filled(n, 1))
	if err != nil {
		return nil, err
	}
	if len(strides) != n || len(lhsDil) != n || len(rhsDil) != n {
		return nil, fmt.Errorf("window_strides %v, lhs_dilation %v, rhs_dilation %v must each have %d entries", strides, lhsDil, rhsDil, n)
	}
	pad, err := padPairs(op, n)
	if err != nil {
		return nil, err
	}
	fgc, err := optInt(op, "feature_group_count", 1)
	if err != nil {
		return nil, err
	}
	bgc, err := optInt(op, "batch_group_count", 1)
	if err != nil {
		return nil, err
	}
	if fgc <= 0 || bgc <= 0 || (fgc > 1 && bgc > 1) {
		return nil, fmt.Errorf("feature_group_count %d and batch_group_count %d must be positive, one of them 1", fgc, bgc)
	}
	inF, kIn := in.Shape[cd.InputFeatureDim], k.Shape[cd.KernelInputFeatureDim]
	if inF != Dynamic && kIn != Dynamic && inF != kIn*fgc {
		return nil, fmt.Errorf("input features %d != kernel input features %d x feature_group_count %d", inF, kIn, fgc)
	}
	if kOut := k.Shape[cd.KernelOutputFeatureDim]; kOut != Dynamic && (kOut%fgc != 0 || kOut%bgc != 0) {
		return nil, fmt.Errorf("kernel output features %d are not divisible by feature_group_count %d and batch_group_count %d", kOut, fgc, bgc)
	}
	batch := in.Shape[cd.InputBatchDim]
	if batch != Dynamic {
		if batch%bgc != 0 {
			return nil, fmt.Errorf("batch %d is not divisible by batch_group_count %d", batch, bgc)
		}
		batch /= bgc
	}
	shape := make([]int64, n+2)
	shape[cd.OutputBatchDim] = batch
	shape[cd.OutputFeatureDim] = k.Shape[cd.KernelOutputFeatureDim]
	for i := 0; i < n; i++ {
		w := k.Shape[cd.KernelSpatialDims[i]]
		if w == Dynamic {
			shape[cd.OutputSpatialDims[i]] = Dynamic
			continue
		}
		o, err := windowOutput(in.Shape[cd.InputSpatialDims[i]], pad[i][0], pad[i][1], w, strides[i], lhsDil[i], rhsDil[i])
		if err != nil {
			return nil, fmt.Errorf("spatial dim %d: %w", i, err)
		}
		shape[cd.OutputSpatialDims[i]] = o
	}
	return []Type{&TensorType{Shape: shape, Elem: resultElem(op, in.Elem)}}, nil
}

func inferFFT(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	kind, ok := op.Enum("fft_type")
	if !ok {
		return nil, fmt.Errorf("missing attribute fft_type")
	}
	length, err := intsAttr(op, "fft_length")
	if err != nil {
		return nil, err
	}
	if len(length) == 0 || len(length) > t.Rank() {
		return nil, fmt.Errorf("fft_length %v does not fit rank %d", length, t.Rank())
	}
	shape := append([]int64{}, t.Shape...)
	last := len(shape) - 1
	d := t.DType()
	switch kind {
	case "FFT", "IFFT":
		return []Type{withElem(t, t.Elem)}, nil
	case "RFFT":
		c := dtype.ComplexOf(d)
		if c == dtype.Invalid {
			return nil, fmt.Errorf("RFFT operand must be f32 or f64, have %v", t.Elem)
		}
		shape[last] = length[len(length)-1]/2 + 1
		return []Type{&TensorType{Shape: shape, Elem: Elem(c)}}, nil
	case "IRFFT":
		p := d.ComplexPart()
		if p == dtype.Invalid {
			return nil, fmt.Errorf("IRFFT operand must be complex, have %v", t.Elem)
		}
		shape[last] = length[len(length)-1]
		return []Type{&TensorType{Shape: shape, Elem: Elem(p)}}, nil
	}
	return nil, fmt.Errorf("unknown fft_type %s", kind)
}

func inferTriangularSolve(op *Op) ([]Type, error) {
	if err := wantOperands(op, 2); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	a, b := ts[0], ts[1]
	if a.Rank() < 2 || a.Rank() != b.Rank() || !elemsCompatible(a.Elem, b.Elem) {
		return nil, fmt.Errorf("a %v and b %v must be batched matrices of one element type", a, b)
	}
	return []Type{withElem(b, b.Elem)}, nil
}

func inferBatchNorm(op *Op) ([]Type, error) {
	n := map[string]int{"stablehlo.batch_norm_inference": 5, "stablehlo.batch_norm_training": 3, "stablehlo.batch_norm_grad": 5}[op.Name]
	if err := wantOperands(op, n); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	x := ts[0]
	fi, err := intAttr(op, "feature_index")
	if err != nil {
		return nil, err
	}
	if err := checkDimIndex("feature_index", fi, x.Rank()); err != nil {
		return nil, err
	}
	for i, t := range ts[1:] {
		if op.Name == "stablehlo.batch_norm_grad" && i == 3 { // grad_output has x's shape
			continue
		}
		if t.Rank() != 1 || !dimsCompatible(t.Shape[0], x.Shape[fi]) {
			return nil, fmt.Errorf("operand %d %v must be 1-d of the feature size %d", i+1, t, x.Shape[fi])
		}
	}
	feat := withShape(x, []int64{x.Shape[fi]})
	switch op.Name {
	case "stablehlo.batch_norm_inference":
		return []Type{withElem(x, x.Elem)}, nil
	default:
		return []Type{withElem(x, x.Elem), feat, withShape(x, []int64{x.Shape[fi]})}, nil
	}
}
