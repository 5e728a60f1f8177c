package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// native_layer_norm_backward and native_group_norm_backward, from the
// saved mean and rstd of the forward. With x̂ = (x - mean)·rstd and
// g = grad·weight, per normalised row of D elements:
//
//	dx = rstd·(g - mean(g) - x̂·mean(g·x̂))
//	dweight = Σ grad·x̂ over the rows,  dbias = Σ grad over the rows.
//
// Half types compute in float32. A false output_mask entry gives an
// undefined (None) gradient.

func init() {
	lower("aten::native_layer_norm_backward", lowerLayerNormBackward)
	lower("aten::native_group_norm_backward", lowerGroupNormBackward)
}

// normRowGrad returns dx for rows [M, D] (g already multiplied by the
// weight), with mean and rstd of shape [M].
func normRowGrad(c *LowerCtx, g, x, mean, rstd *stablehlo.Value) (dx, xhat *stablehlo.Value) {
	shape := c.Shape(x)
	row := func(v *stablehlo.Value) *stablehlo.Value { return c.BroadcastInDim(v, shape, []int64{0}) }
	xhat = c.Binary("multiply", c.Binary("subtract", x, row(mean)), row(rstd))
	inv := 1 / float64(shape[1])
	m1 := c.Binary("multiply", sumDims(c, g, 1), c.Splat(c.DType(g), []int64{shape[0]}, inv))
	m2 := c.Binary("multiply", sumDims(c, c.Binary("multiply", g, xhat), 1), c.Splat(c.DType(g), []int64{shape[0]}, inv))
	d := c.Binary("subtract", c.Binary("subtract", g, row(m1)), c.Binary("multiply", xhat, row(m2)))
	return c.Binary("multiply", d, row(rstd)), xhat
}

func lowerLayerNormBackward(c *LowerCtx, a *Args) ([]Value, error) {
	gout, x := a.Tensor("grad_out"), a.Tensor("input")
	ns := a.Ints("normalized_shape")
	mean, rstd := a.Tensor("mean"), a.Tensor("rstd")
	w, b := a.OptTensor("weight"), a.OptTensor("bias")
	mask := maskArg(a, "output_mask", 3)
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs := c.Shape(x)
	axis := len(xs) - len(ns)
	if axis < 0 || !sameShape(xs[axis:], ns) {
		return nil, c.Errorf("native_layer_norm_backward: normalized_shape %v does not end input shape %v", ns, xs)
	}
	if !sameShape(c.Shape(gout), xs) {
		return nil, c.Errorf("native_layer_norm_backward: grad_out shape %v differs from input shape %v", c.Shape(gout), xs)
	}
	M, N := prod(xs[:axis]), prod(ns)
	if c.Type(mean).NumElements() != M || c.Type(rstd).NumElements() != M {
		return nil, c.Errorf("native_layer_norm_backward: mean/rstd must have %d elements, have %v and %v", M, c.Shape(mean), c.Shape(rstd))
	}
	dt := c.DType(x)
	cdt := OpMath(dt)
	flat := []int64{M, N}
	x2 := c.Reshape(c.Convert(x, cdt), flat)
	g2 := c.Reshape(c.Convert(gout, cdt), flat)
	m1 := c.Reshape(c.Convert(mean, cdt), []int64{M})
	r1 := c.Reshape(c.Convert(rstd, cdt), []int64{M})
	gw := g2
	if w != nil {
		if c.Type(w).NumElements() != N {
			return nil, c.Errorf("native_layer_norm_backward: weight of shape %v does not match normalized_shape %v", c.Shape(w), ns)
		}
		gw = c.Binary("multiply", g2, c.BroadcastInDim(c.Reshape(c.Convert(w, cdt), []int64{N}), flat, []int64{1}))
	}
	dx, xhat := normRowGrad(c, gw, x2, m1, r1)
	out := []Value{gradOrNone(mask[0], c.Convert(c.Reshape(dx, xs), dt)), None(), None()}
	if mask[1] && w != nil {
		dw := sumDims(c, c.Binary("multiply", g2, xhat), 0)
		out[1] = TensorValue(c.Convert(c.Reshape(dw, c.Shape(w)), c.DType(w)))
	}
	if mask[2] && b != nil {
		db := sumDims(c, g2, 0)
		out[2] = TensorValue(c.Convert(c.Reshape(db, c.Shape(b)), c.DType(b)))
	}
	return out, nil
}

func lowerGroupNormBackward(c *LowerCtx, a *Args) ([]Value, error) {
	gout, x := a.Tensor("grad_out"), a.Tensor("input")
	mean, rstd := a.Tensor("mean"), a.Tensor("rstd")
	w := a.OptTensor("weight")
	N, C, HW, G := a.Int("N"), a.Int("C"), a.Int("HxW"), a.Int("group")
	mask := maskArg(a, "output_mask", 3)
	if a.Err() != nil {
		return nil, a.Err()
	}
	xs := c.Shape(x)
	if G <= 0 || C%G != 0 || len(xs) < 2 || prod(xs) != N*C*HW || xs[0] != N || xs[1] != C {
		return nil, c.Errorf("native_group_norm_backward: input %v does not match N=%d C=%d HxW=%d group=%d", xs, N, C, HW, G)
	}
	if c.Type(mean).NumElements() != N*G || c.Type(rstd).NumElements() != N*G {
		return nil, c.Errorf("native_group_norm_backward: mean/rstd must have N*group=%d elements, have %v and %v", N*G, c.Shape(mean), c.Shape(rstd))
	}
	dt := c.DType(x)
	cdt := OpMath(dt)
	rows, D := N*G, (C/G)*HW
	chw := []int64{N, C, HW}
	xc := c.Reshape(c.Convert(x, cdt), []int64{rows, D})
	gc := c.Reshape(c.Convert(gout, cdt), chw)
	gw := gc
	if w != nil {
		if c.Type(w).NumElements() != C {
			return nil, c.Errorf("native_group_norm_backward: weight of shape %v does not match C=%d", c.Shape(w), C)
		}
		gw = c.Binary("multiply", gc, c.BroadcastInDim(c.Reshape(c.Convert(w, cdt), []int64{C}), chw, []int64{1}))
	}
	m1 := c.Reshape(c.Convert(mean, cdt), []int64{rows})
	r1 := c.Reshape(c.Convert(rstd, cdt), []int64{rows})
	dx, xhat := normRowGrad(c, c.Reshape(gw, []int64{rows, D}), xc, m1, r1)
	out := []Value{gradOrNone(mask[0], c.Convert(c.Reshape(dx, xs), dt)), None(), None()}
	wdt := dt
	if w != nil {
		wdt = c.DType(w)
	}
	if mask[1] {
		dw := sumDims(c, c.Binary("multiply", gc, c.Reshape(xhat, chw)), 0, 2)
		out[1] = TensorValue(c.Convert(dw, wdt))
	}
	if mask[2] {
		out[2] = TensorValue(c.Convert(sumDims(c, gc, 0, 2), wdt))
	}
	return out, nil
}
