package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// convolution_backward for N-d convolutions (NC(D)HW, groups, stride,
// padding, dilation; transposed or not), as three StableHLO convolutions:
//
//   - grad_input of a convolution is the transposed convolution of
//     grad_output with the same weight (output_padding chosen so that the
//     result has the input's size); of a transposed convolution, the plain
//     convolution of grad_output with the weight;
//   - grad_weight correlates the input with grad_output, per group: batch
//     becomes the contracted feature dim, the forward's dilation becomes
//     the window stride and its stride the kernel dilation (for a
//     transposed convolution the roles of input and grad_output swap);
//   - grad_bias sums grad_output over every dim but the channels.
//
// A false output_mask entry gives an undefined (None) gradient.

func init() {
	decomp("aten::convolution_backward", lowerConvolutionBackward)
}

func lowerConvolutionBackward(c *LowerCtx, a *Args) ([]Value, error) {
	g, x, w := a.Tensor("grad_output"), a.Tensor("input"), a.Tensor("weight")
	stride, pad, dil := a.Ints("stride"), a.Ints("padding"), a.Ints("dilation")
	transposed := a.Bool("transposed")
	outPad := a.Ints("output_padding")
	groups := a.Int("groups")
	mask := maskArg(a, "output_mask", 3)
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs, ws, gs := c.Shape(x), c.Shape(w), c.Shape(g)
	n := len(ws) - 2
	if n < 1 || len(xs) != n+2 || len(gs) != n+2 {
		return nil, c.Errorf("convolution_backward: expected batched %dD input and grad_output for %dD weight, got %v and %v", n+2, n+2, xs, gs)
	}
	var err error
	if stride, err = expandList(stride, n, 1, "stride"); err != nil {
		return nil, c.Errorf("convolution_backward: %w", err)
	}
	if pad, err = expandList(pad, n, 0, "padding"); err != nil {
		return nil, c.Errorf("convolution_backward: %w", err)
	}
	if dil, err = expandList(dil, n, 1, "dilation"); err != nil {
		return nil, c.Errorf("convolution_backward: %w", err)
	}
	if outPad, err = expandList(outPad, n, 0, "output_padding"); err != nil {
		return nil, c.Errorf("convolution_backward: %w", err)
	}
	if groups <= 0 || xs[1]%groups != 0 || gs[1]%groups != 0 {
		return nil, c.Errorf("convolution_backward: groups=%d must divide the %d input and %d output channels", groups, xs[1], gs[1])
	}
	dt := c.DType(x)
	if c.DType(g) != dt || c.DType(w) != dt {
		return nil, c.Errorf("convolution_backward: grad_output, input and weight must share a dtype, got %v, %v, %v", c.DType(g).Torch(), dt.Torch(), c.DType(w).Torch())
	}
	out := []Value{None(), None(), None()}
	if mask[0] {
		var gi *stablehlo.Value
		if transposed {
			gi, err = convolve(c, g, w, nil, convSpec{stride: stride, pad: pad, dil: dil, groups: groups})
		} else {
			op := make([]int64, n)
			for i := range op {
				op[i] = xs[2+i] - ((gs[2+i]-1)*stride[i] - 2*pad[i] + dil[i]*(ws[2+i]-1) + 1)
			}
			gi, err = convolve(c, g, w, nil, convSpec{stride: stride, pad: pad, dil: dil, outPad: op, groups: groups, transposed: true})
		}
		if err != nil {
			return nil, err
		}
		if !sameShape(c.Shape(gi), xs) {
			return nil, c.Errorf("convolution_backward: grad_input came out %v, want the input's %v", c.Shape(gi), xs)
		}
		out[0] = TensorValue(gi)
	}
	if mask[1] {
		var gw *stablehlo.Value
		if transposed {
			gw = weightGrad(c, g, x, ws, stride, pad, dil, groups)
		} else {
			gw = weightGrad(c, x, g, ws, stride, pad, dil, groups)
		}
		if !sameShape(c.Shape(gw), ws) {
			return nil, c.Errorf("convolution_backward: grad_weight came out %v, want the weight's %v", c.Shape(gw), ws)
		}
		out[1] = TensorValue(c.Convert(gw, dt))
	}
	if mask[2] {
		dims := []int64{0}
		for i := 0; i < n; i++ {
			dims = append(dims, int64(2+i))
		}
		out[2] = TensorValue(c.Convert(sumDims(c, c.Convert(g, OpMath(dt)), dims...), dt))
	}
	return out, nil
}

// weightGrad returns W[f, b, k...] = Σ_n Σ_o in_pad[n, b, o*s + k*d] ·
// grad[n, f, o] per group (f over grad's channels of the group, b over
// in's), concatenated over groups along dim 0: the gradient of a
// convolution's weight (in = input, grad = grad_output) or of a transposed
// convolution's (in = grad_output, grad = input). kernel is the weight's
// spatial shape at ws[2:].
func weightGrad(c *LowerCtx, in, grad *stablehlo.Value, ws, stride, pad, dil []int64, groups int64) *stablehlo.Value {
	n := len(ws) - 2
	cdt := OpMath(c.DType(in))
	in, grad = c.Convert(in, cdt), c.Convert(grad, cdt)
	is, gs := c.Shape(in), c.Shape(grad)
	lo, hi := make([]int64, n), make([]int64, n)
	for i := 0; i < n; i++ {
		// Output size k needs in + lo + hi = (k-1)*d + (O-1)*s + 1.
		lo[i] = pad[i]
		hi[i] = (ws[2+i]-1)*dil[i] + (gs[2+i]-1)*stride[i] + 1 - is[2+i] - pad[i]
		if hi[i] < 0 {
			// Trailing input positions no window reaches: crop them.
			in = sliceDim(c, in, 2+i, 0, is[2+i]+hi[i], 1)
			hi[i] = 0
		}
	}
	sp := make([]int64, n)
	for i := range sp {
		sp[i] = int64(2 + i)
	}
	// in: batch dim 1 (its channels), feature dim 0 (N); grad as kernel:
	// output feature dim 1 (its channels), input feature dim 0 (N); the
	// result is [grad channels, in channels, k...].
	dims := &stablehlo.ConvDims{
		InputBatchDim: 1, InputFeatureDim: 0, InputSpatialDims: sp,
		KernelOutputFeatureDim: 1, KernelInputFeatureDim: 0, KernelSpatialDims: sp,
		OutputBatchDim: 1, OutputFeatureDim: 0, OutputSpatialDims: sp,
	}
	hp := &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "precision", Value: "HIGHEST"}
	ci, cg := c.Shape(in)[1]/groups, gs[1]/groups
	parts := make([]*stablehlo.Value, groups)
	for k := int64(0); k < groups; k++ {
		xi := sliceDim(c, in, 1, k*ci, ci, 1)
		gi := sliceDim(c, grad, 1, k*cg, cg, 1)
		if n == 2 {
			parts[k] = weightGrad2D(c, xi, gi, stride, dil, lo, hi, hp)
			continue
		}
		parts[k] = c.Op1("stablehlo.convolution", []*stablehlo.Value{xi, gi}, []stablehlo.NamedAttr{
			I64s("window_strides", dil),
			Attr("padding", padAttr(lo, hi)),
			I64s("lhs_dilation", onesI64(n)),
			I64s("rhs_dilation", stride),
			Attr("dimension_numbers", dims),
			Attr("feature_group_count", &stablehlo.IntAttr{Value: 1}),
			Attr("batch_group_count", &stablehlo.IntAttr{Value: 1}),
			Attr("precision_config", stablehlo.ArrayAttr{hp, hp}),
		})
	}
	return emitConcat(c, parts, 0)
}

// weightGrad2D is one group of weightGrad for 2-D convolutions, with the
// operands transposed so that the convolution has the usual input and
// kernel dimension numbers: in [C, N, H, W] as the input (batch C,
// features N), grad [F, N, oh, ow] as the kernel, the result in the
// weight's layout [F, C, kh, kw] (output dims [f, b, 0, 1]). The same
// sums, in a form backends run as one GEMM (the native executor's
// implicit GEMM: M = F, K = N·oh·ow, columns C·kh·kw, its output written
// through strides) instead of a general convolution with swapped
// dimensions (resnet18's weight gradients: 530 of 870 ms of a training
// backward before), and without a transpose of the result (19 of
// resnet18's, 12 ms per backward).
func weightGrad2D(c *LowerCtx, in, grad *stablehlo.Value, stride, dil, lo, hi []int64, hp *stablehlo.EnumAttr) *stablehlo.Value {
	sp := []int64{2, 3}
	dims := &stablehlo.ConvDims{
		InputBatchDim: 0, InputFeatureDim: 1, InputSpatialDims: sp,
		KernelOutputFeatureDim: 0, KernelInputFeatureDim: 1, KernelSpatialDims: sp,
		OutputBatchDim: 1, OutputFeatureDim: 0, OutputSpatialDims: sp,
	}
	swap := []int64{1, 0, 2, 3}
	r := c.Op1("stablehlo.convolution", []*stablehlo.Value{emitTranspose(c, in, swap), emitTranspose(c, grad, swap)}, []stablehlo.NamedAttr{
		I64s("window_strides", dil),
		Attr("padding", padAttr(lo, hi)),
		I64s("lhs_dilation", onesI64(2)),
		I64s("rhs_dilation", stride),
		Attr("dimension_numbers", dims),
		Attr("feature_group_count", &stablehlo.IntAttr{Value: 1}),
		Attr("batch_group_count", &stablehlo.IntAttr{Value: 1}),
		Attr("precision_config", stablehlo.ArrayAttr{hp, hp}),
	})
	return r
}
