package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Normalization: layer_norm / native_layer_norm, batch_norm (eval and
// batch statistics) / _native_batch_norm_legit_no_training, group_norm /
// native_group_norm, instance_norm, rms_norm. Statistics use the biased
// variance with eps inside the square root; half types compute in float32
// and round once.

func init() {
	lower("aten::layer_norm", lowerLayerNorm(false))
	lower("aten::native_layer_norm", lowerLayerNorm(true))
	lower("aten::batch_norm", lowerBatchNorm)
	lower("aten::_native_batch_norm_legit_no_training", lowerBatchNormNoTraining)
	lower("aten::group_norm", lowerGroupNorm(false))
	lower("aten::native_group_norm", lowerGroupNorm(true))
	lower("aten::instance_norm", lowerInstanceNorm)
	lower("aten::rms_norm", lowerRMSNorm)
}

// moments returns mean and rstd = 1/sqrt(var_biased + eps) of x over dims,
// kept as size-1 dims.
func moments(c *LowerCtx, x *stablehlo.Value, dims []int64, eps float64) (mean, rstd *stablehlo.Value) {
	shape := c.Shape(x)
	cnt := int64(1)
	for _, d := range dims {
		cnt *= shape[d]
	}
	dt := c.DType(x)
	sum := keepDims(c, c.Reduce(x, dims, "add", 0), shape, dims)
	mean = c.Binary("divide", sum, c.Like(sum, float64(cnt)))
	diff := c.Binary("subtract", x, c.BroadcastInDim(mean, shape, seqI64(len(shape))))
	sq := keepDims(c, c.Reduce(c.Binary("multiply", diff, diff), dims, "add", 0), shape, dims)
	v := c.Binary("divide", sq, c.Like(sq, float64(cnt)))
	rstd = c.Unary("rsqrt", c.Binary("add", v, c.Splat(dt, c.Shape(v), eps)))
	return mean, rstd
}

// bcast broadcasts a kept-dims statistic to shape.
func bcast(c *LowerCtx, v *stablehlo.Value, shape []int64) *stablehlo.Value {
	return c.BroadcastInDim(v, shape, seqI64(len(shape)))
}

// affine applies weight and bias (per channel along dim ch, or over the
// trailing dims when ch < 0) in the compute dtype.
func affine(c *LowerCtx, y, w, b *stablehlo.Value, ch int) *stablehlo.Value {
	shape := c.Shape(y)
	cdt := c.DType(y)
	place := func(t *stablehlo.Value) *stablehlo.Value {
		t = c.Convert(t, cdt)
		if ch >= 0 {
			return c.BroadcastInDim(c.Reshape(t, []int64{numelOf(c.Shape(t))}), shape, []int64{int64(ch)})
		}
		return c.BroadcastTo(t, shape)
	}
	if w != nil {
		y = c.Binary("multiply", y, place(w))
	}
	if b != nil {
		y = c.Binary("add", y, place(b))
	}
	return y
}

func lowerLayerNorm(native bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("input")
		ns := a.Ints("normalized_shape")
		w, b := a.OptTensor("weight"), a.OptTensor("bias")
		eps := a.Float("eps")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		k := len(ns)
		if k == 0 || k > len(shape) || !sameShape(shape[len(shape)-k:], ns) {
			return nil, c.Errorf("layer_norm: given normalized_shape=%v, expected input with shape [*, %v], but got input of size %v", ns, ns, shape)
		}
		dt := c.DType(x)
		if !dt.IsFloat() {
			return nil, c.Errorf("layer_norm: %v is not supported", dt.Torch())
		}
		cdt := OpMath(dt)
		xc := c.Convert(x, cdt)
		dims := seqI64(len(shape))[len(shape)-k:]
		mean, rstd := moments(c, xc, dims, eps)
		var y *stablehlo.Value
		if (dt == dtype.F16 || dt == dtype.BF16) && !c.NoF64 {
			y = c.Convert(layerNormFMA(c, xc, mean, rstd, w, b), dt)
		} else {
			y = c.Binary("multiply", c.Binary("subtract", xc, bcast(c, mean, shape)), bcast(c, rstd, shape))
			y = c.Convert(affine(c, y, w, b, -1), dt)
		}
		if !native {
			return one(y), nil
		}
		return []Value{TensorValue(y), TensorValue(c.Convert(mean, dt)), TensorValue(c.Convert(rstd, dt))}, nil
	}
}

// layerNormFMA is PyTorch's float16/bfloat16 layer norm step in float32
// (LayerNormKernelImplInternal): y = fma(fma(x, rstd, -rstd*mean), w, b),
// the two multiply-adds fused as the compiled kernel runs them (a product
// of two float32 is exact in float64, so float64 then one rounding to
// float32 is the fma). xc, mean and rstd are float32.
func layerNormFMA(c *LowerCtx, xc, mean, rstd, w, b *stablehlo.Value) *stablehlo.Value {
	shape := c.Shape(xc)
	f64 := func(v *stablehlo.Value) *stablehlo.Value { return c.Convert(v, dtype.F64) }
	bias := c.Unary("negate", c.Binary("multiply", rstd, mean)) // float32
	t := c.Binary("add", c.Binary("multiply", f64(xc), f64(bcast(c, rstd, shape))), f64(bcast(c, bias, shape)))
	y := c.Convert(t, dtype.F32)
	if w == nil && b == nil {
		return y
	}
	acc := f64(y)
	if w != nil {
		acc = c.Binary("multiply", acc, f64(c.BroadcastTo(c.Convert(w, dtype.F32), shape)))
	}
	if b != nil {
		acc = c.Binary("add", acc, f64(c.BroadcastTo(c.Convert(b, dtype.F32), shape)))
	}
	return c.Convert(acc, dtype.F32)
}

// batchNormEval normalises with given statistics along channel dim 1:
// y = x * (w / sqrt(var + eps)) + (b - mean * w / sqrt(var + eps)).
func batchNormEval(c *LowerCtx, x, w, b, mean, variance *stablehlo.Value, eps float64) (*stablehlo.Value, error) {
	shape := c.Shape(x)
	if len(shape) < 2 {
		return nil, c.Errorf("batch_norm: expected at least 2D input, got %v", shape)
	}
	C := shape[1]
	dt := c.DType(x)
	cdt := OpMath(dt)
	cs := []int64{C}
	for _, t := range []*stablehlo.Value{w, b, mean, variance} {
		if t != nil && numelOf(c.Shape(t)) != C {
			return nil, c.Errorf("batch_norm: parameter of shape %v does not match %d channels", c.Shape(t), C)
		}
	}
	toC := func(t *stablehlo.Value) *stablehlo.Value { return c.Reshape(c.Convert(t, cdt), cs) }
	inv := c.Binary("divide", c.Splat(cdt, cs, 1), c.Unary("sqrt", c.Binary("add", toC(variance), c.Splat(cdt, cs, eps))))
	alpha := inv
	if w != nil {
		alpha = c.Binary("multiply", toC(w), inv)
	}
	var beta *stablehlo.Value
	if b != nil {
		beta = c.Binary("subtract", toC(b), c.Binary("multiply", toC(mean), alpha))
	} else {
		beta = c.Unary("negate", c.Binary("multiply", toC(mean), alpha))
	}
	xc := c.Convert(x, cdt)
	y := c.Binary("add", c.Binary("multiply", xc, c.BroadcastInDim(alpha, shape, []int64{1})), c.BroadcastInDim(beta, shape, []int64{1}))
	return c.Convert(y, dt), nil
}

func lowerBatchNorm(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("input")
	w, b := a.OptTensor("weight"), a.OptTensor("bias")
	rm, rv := a.OptTensor("running_mean"), a.OptTensor("running_var")
	training := a.Bool("training")
	eps := a.Float("eps")
	if a.Err() != nil {
		return nil, a.Err()
	}
	var y *stablehlo.Value
	var err error
	if training || rm == nil || rv == nil {
		// Running statistics would be updated in place; a functional graph
		// has no place for that, so only the output is produced.
		y, _, _, _, err = batchStats(c, x, w, b, eps, paramDType(c, x, w, b, rm, rv))
	} else {
		y, err = batchNormEval(c, x, w, b, rm, rv, eps)
	}
	if err != nil {
		return nil, err
	}
	return one(y), nil
}

func lowerBatchNormNoTraining(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("input")
	w, b := a.OptTensor("weight"), a.OptTensor("bias")
	rm, rv := a.Tensor("running_mean"), a.Tensor("running_var")
	eps := a.Float("eps")
	if a.Err() != nil {
		return nil, a.Err()
	}
	y, err := batchNormEval(c, x, w, b, rm, rv, eps)
	if err != nil {
		return nil, err
	}
	empty := c.Splat(c.DType(x), []int64{0}, 0)
	return []Value{TensorValue(y), TensorValue(empty), TensorValue(empty)}, nil
}

func lowerGroupNorm(native bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("input")
		w, b := a.OptTensor("weight"), a.OptTensor("bias")
		var groups int64
		if native {
			groups = a.Int("group")
		} else {
			groups = a.Int("num_groups")
		}
		eps := a.Float("eps")
		if a.Err() != nil {
			return nil, a.Err()
		}
		shape := c.Shape(x)
		if len(shape) < 2 {
			return nil, c.Errorf("group_norm: expected at least 2D input, got %v", shape)
		}
		N, C := shape[0], shape[1]
		if groups <= 0 || C%groups != 0 {
			return nil, c.Errorf("group_norm: expected number of channels in input to be divisible by num_groups, but got input of shape %v and num_groups=%d", shape, groups)
		}
		if numelOf(shape) == 0 {
			// Nothing to normalize; the statistics of empty groups are NaN.
			ng := []int64{N, groups}
			st := c.Splat(c.DType(x), ng, math.NaN())
			if !native {
				return one(x), nil
			}
			return []Value{TensorValue(x), TensorValue(st), TensorValue(st)}, nil
		}
		dt := c.DType(x)
		cdt := OpMath(dt)
		grouped := []int64{N, groups, numelOf(shape) / (N * groups)}
		xg := c.Reshape(c.Convert(x, cdt), grouped)
		mean, rstd := moments(c, xg, []int64{2}, eps)
		y := c.Binary("multiply", c.Binary("subtract", xg, bcast(c, mean, grouped)), bcast(c, rstd, grouped))
		y = c.Convert(affine(c, c.Reshape(y, shape), w, b, 1), dt)
		if !native {
			return one(y), nil
		}
		ng := []int64{N, groups}
		return []Value{TensorValue(y), TensorValue(c.Convert(c.Reshape(mean, ng), dt)), TensorValue(c.Convert(c.Reshape(rstd, ng), dt))}, nil
	}
}

func lowerInstanceNorm(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("input")
	w, b := a.OptTensor("weight"), a.OptTensor("bias")
	rm, rv := a.OptTensor("running_mean"), a.OptTensor("running_var")
	useInput := a.Bool("use_input_stats")
	eps := a.Float("eps")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) < 2 {
		return nil, c.Errorf("instance_norm: expected at least 2D input, got %v", shape)
	}
	if !useInput {
		if rm == nil || rv == nil {
			return nil, c.Errorf("instance_norm: expected running_mean and running_var to be defined when use_input_stats is false")
		}
		y, err := batchNormEval(c, x, w, b, rm, rv, eps)
		if err != nil {
			return nil, err
		}
		return one(y), nil
	}
	// PyTorch's instance_norm is batch_norm of the input viewed as
	// [1, N·C, ...] with the affine parameters repeated N times.
	N, C := shape[0], shape[1]
	flat := append([]int64{1, N * C}, shape[2:]...)
	rep := func(t *stablehlo.Value) *stablehlo.Value {
		if t == nil {
			return nil
		}
		return c.Reshape(c.BroadcastInDim(c.Reshape(t, []int64{C}), []int64{N, C}, []int64{1}), []int64{N * C})
	}
	y, _, _, _, err := batchStats(c, c.Reshape(x, flat), rep(w), rep(b), eps, paramDType(c, x, w, b, rm, rv))
	if err != nil {
		return nil, err
	}
	return one(c.Reshape(y, shape)), nil
}

func lowerRMSNorm(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("input")
	ns := a.Ints("normalized_shape")
	w := a.OptTensor("weight")
	eps, hasEps := a.OptFloat("eps")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	k := len(ns)
	if k == 0 || k > len(shape) || !sameShape(shape[len(shape)-k:], ns) {
		return nil, c.Errorf("rms_norm: given normalized_shape=%v, expected input with shape [*, %v], but got input of size %v", ns, ns, shape)
	}
	dt := c.DType(x)
	if !dt.IsFloat() && !dt.IsComplex() {
		return nil, c.Errorf("rms_norm: %v is not supported", dt.Torch())
	}
	cdt := OpMath(dt)
	if !hasEps {
		eps = machineEps(realPart(cdt))
	}
	// Complex inputs: pow(x, 2) is the complex square, as in PyTorch's
	// composite (not |x|²).
	xc := c.Convert(x, cdt)
	dims := seqI64(len(shape))[len(shape)-k:]
	ms := keepDims(c, c.Reduce(c.Binary("multiply", xc, xc), dims, "add", 0), shape, dims)
	ms = c.Binary("divide", ms, c.Like(ms, float64(numelOf(ns))))
	r := c.Unary("rsqrt", c.Binary("add", ms, c.Like(ms, eps)))
	y := c.Convert(c.Binary("multiply", xc, bcast(c, r, shape)), dt)
	if w != nil {
		// result.mul(weight): PyTorch promotes and rounds once more.
		rt := c.ResultType(TensorOperand(y), TensorOperand(w))
		yc := c.Convert(y, OpMath(rt))
		wc := c.BroadcastTo(c.Convert(w, OpMath(rt)), shape)
		y = c.Convert(c.Binary("multiply", yc, wc), rt)
	}
	return one(y), nil
}

// machineEps is std::numeric_limits<T>::epsilon() of a float dtype.
func machineEps(dt dtype.DType) float64 {
	switch dt {
	case dtype.F64:
		return 2.220446049250313e-16
	case dtype.F16:
		return 0.0009765625
	case dtype.BF16:
		return 0.0078125
	}
	return 1.1920928955078125e-07
}
