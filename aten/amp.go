package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The gradient scaler's ops (torch.amp.GradScaler), in their functional
// forms; the tpu device computes PyTorch's in-place forms through them
// (eager/op.go's implicit writes), as PyTorch's CPU kernels compute them
// (aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp):
//
//   - _amp_foreach_non_finite_check_and_unscale: each gradient times
//     inv_scale, in float for reduced-precision gradients and rounded back;
//     found_inf becomes 1 when any element of any gradient is inf or NaN
//     (and is left as it was otherwise);
//   - _amp_update_scale: on found_inf the scale backs off and the growth
//     tracker restarts; otherwise the tracker counts successful steps and
//     every growth_interval-th grows the scale (kept only when finite). The
//     factors are doubles: products are taken in double and stored in float.

func init() {
	Register(Entry{Name: "aten::_amp_foreach_non_finite_check_and_unscale", Kind: Lowered,
		Schema: "_amp_foreach_non_finite_check_and_unscale(Tensor[] self, Tensor found_inf, Tensor inv_scale) -> (Tensor[] self_out, Tensor found_inf_out)",
		Lower:  lowerAmpUnscale})
	lower("aten::_amp_update_scale", lowerAmpUpdateScale)
}

// ampScalar reads a one-element tensor as a 0-d value.
func ampScalar(c *LowerCtx, v *stablehlo.Value) *stablehlo.Value {
	return c.Reshape(v, []int64{})
}

func lowerAmpUnscale(c *LowerCtx, a *Args) ([]Value, error) {
	grads := a.Tensors("self")
	found, inv := a.Tensor("found_inf"), a.Tensor("inv_scale")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if numelOf(c.Shape(found)) != 1 || numelOf(c.Shape(inv)) != 1 {
		return nil, c.Errorf("_amp_foreach_non_finite_check_and_unscale: found_inf and inv_scale must be 1-element tensors")
	}
	if c.DType(found) != dtype.F32 || c.DType(inv) != dtype.F32 {
		return nil, c.Errorf("_amp_foreach_non_finite_check_and_unscale: found_inf and inv_scale must be float tensors")
	}
	s := ampScalar(c, inv)
	anyBad := c.Splat(dtype.Bool, nil, 0)
	outs := make([]Value, len(grads))
	for i, g := range grads {
		if g == nil {
			return nil, c.Errorf("_amp_foreach_non_finite_check_and_unscale: self[%d] is None", i)
		}
		dt := c.DType(g)
		if !dt.IsFloat() {
			return nil, c.Errorf("_amp_foreach_non_finite_check_and_unscale: self[%d] has dtype %s, want a floating type", i, dt.Torch())
		}
		op := OpMath(dt)
		x := c.Convert(g, op)
		shape := c.Shape(g)
		if numelOf(shape) > 0 {
			finite := c.Op1("stablehlo.is_finite", []*stablehlo.Value{x}, nil)
			all := c.Reduce(finite, iotaI64(len(shape)), "and", 1)
			anyBad = c.Binary("or", anyBad, c.Unary("not", all))
		}
		y := c.Binary("multiply", x, c.BroadcastInDim(c.Convert(s, op), shape, nil))
		outs[i] = TensorValue(c.Convert(y, dt))
	}
	one := c.Splat(dtype.F32, c.Shape(found), 1)
	newFound := c.Select(c.BroadcastInDim(anyBad, c.Shape(found), nil), one, found)
	return []Value{ListValue(outs...), TensorValue(newFound)}, nil
}

func lowerAmpUpdateScale(c *LowerCtx, a *Args) ([]Value, error) {
	scale, tracker, found := a.Tensor("self"), a.Tensor("growth_tracker"), a.Tensor("found_inf")
	growth, backoff := a.Float("scale_growth_factor"), a.Float("scale_backoff_factor")
	interval := a.Int("growth_interval")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.DType(scale) != dtype.F32 || c.DType(found) != dtype.F32 || c.DType(tracker) != dtype.I32 {
		return nil, c.Errorf("_amp_update_scale: want float scale and found_inf and an int growth_tracker")
	}
	for _, v := range []*stablehlo.Value{scale, tracker, found} {
		if numelOf(c.Shape(v)) != 1 {
			return nil, c.Errorf("_amp_update_scale: scale, growth_tracker and found_inf must be 1-element tensors")
		}
	}
	sShape, tShape := c.Shape(scale), c.Shape(tracker)
	s := ampScalar(c, scale)
	t := ampScalar(c, tracker)
	bad := c.Compare("NE", ampScalar(c, found), c.Splat(dtype.F32, nil, 0))
	times := func(f float64) *stablehlo.Value {
		return c.Convert(c.Binary("multiply", c.Convert(s, dtype.F64), c.Splat(dtype.F64, nil, f)), dtype.F32)
	}
	backedOff := times(backoff)
	grown := times(growth)
	grown = c.Select(c.Op1("stablehlo.is_finite", []*stablehlo.Value{grown}, nil), grown, s)
	successful := c.Binary("add", t, c.SplatInt(dtype.I32, nil, 1))
	due := c.Compare("EQ", successful, c.SplatInt(dtype.I32, nil, interval))
	zero := c.SplatInt(dtype.I32, nil, 0)
	okScale := c.Select(due, grown, s)
	okTracker := c.Select(due, zero, successful)
	newScale := c.Select(bad, backedOff, okScale)
	newTracker := c.Select(bad, zero, okTracker)
	return []Value{TensorValue(c.Reshape(newScale, sShape)), TensorValue(c.Reshape(newTracker, tShape))}, nil
}
