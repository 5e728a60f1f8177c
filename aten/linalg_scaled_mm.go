package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// _scaled_mm and _scaled_mm_v2 as PyTorch's CPU kernel computes them
// (aten/src/ATen/native/Blas.cpp, oneDNN underneath): an f32 matmul of the
// float8 operands widened to f32, multiplied by the scales (tensor-wise
// scalars or row-wise [M,1]/[1,N] vectors) as an output scale, the bias
// added, then a cast to out_dtype (default: self's dtype). A float8_e4m3fn
// result saturates (values beyond 448 become ±448, matching PyTorch's CPU
// outputs); float8_e5m2, which has infinities, rounds to ±inf like a
// plain cast. oneDNN's f32 accumulation order differs from ours: float32
// results can differ from PyTorch's by about 1e-5 relative.

func init() {
	decomp("aten::_scaled_mm", lowerScaledMM)
	decomp("aten::_scaled_mm_v2", lowerScaledMMv2)
}

func lowerScaledMM(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("mat2")
	sa, sb := a.Tensor("scale_a"), a.Tensor("scale_b")
	bias, sr := a.OptTensor("bias"), a.OptTensor("scale_result")
	out, hasOut := a.OptDType("out_dtype")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if !hasOut {
		out = c.DType(x)
	}
	return scaledMM(c, x, y, sa, sb, bias, sr, out)
}

// ScalingType recipes _scaled_mm_v2 takes (torch/nn/functional.py).
const (
	scalingTensorWise = 0
	scalingRowWise    = 1
)

func lowerScaledMMv2(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("mat2")
	sas, sbs := a.Tensors("scale_a"), a.Tensors("scale_b")
	ra, rb := a.Ints("recipe_a"), a.Ints("recipe_b")
	wa, wb := a.Ints("swizzle_a"), a.Ints("swizzle_b")
	bias := a.OptTensor("bias")
	out, hasOut := a.OptDType("out_dtype")
	cdim := a.Ints("contraction_dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(sas) != 1 || len(sbs) != 1 || len(ra) != 1 || len(rb) != 1 {
		return nil, c.Errorf("_scaled_mm_v2: only one scale and recipe per operand is supported, got %d/%d scales and %d/%d recipes", len(sas), len(sbs), len(ra), len(rb))
	}
	for _, r := range []int64{ra[0], rb[0]} {
		if r != scalingTensorWise && r != scalingRowWise {
			return nil, c.Errorf("_scaled_mm_v2: scaling recipe %d is not supported (tensor-wise 0 and row-wise 1 are)", r)
		}
	}
	for _, s := range append(append([]int64{}, wa...), wb...) {
		if s != 0 {
			return nil, c.Errorf("_scaled_mm_v2: swizzled scales (%d) are not supported", s)
		}
	}
	if len(cdim) != 0 {
		return nil, c.Errorf("_scaled_mm_v2: contraction_dim %v is not supported", cdim)
	}
	if !hasOut {
		out = c.DType(x)
	}
	return scaledMM(c, x, y, sas[0], sbs[0], bias, nil, out)
}

func scaledMM(c *LowerCtx, x, y, sa, sb, bias, sr *stablehlo.Value, out dtype.DType) ([]Value, error) {
	xs, ys := c.Shape(x), c.Shape(y)
	if len(xs) != 2 || len(ys) != 2 || xs[1] != ys[0] {
		return nil, c.Errorf("_scaled_mm: expected matrices [M,K] and [K,N], got %v and %v", xs, ys)
	}
	for _, v := range []*stablehlo.Value{x, y} {
		if !isFloat8(c.DType(v)) {
			return nil, c.Errorf("_scaled_mm: operands must be float8, got %v", c.DType(v).Torch())
		}
	}
	if !out.IsFloat() {
		return nil, c.Errorf("_scaled_mm: out_dtype %v is not a floating type", out.Torch())
	}
	f := dtype.F32
	// The scales multiply the f32 product of the raw float8 values (exact
	// for short rows), as an output scale: sa[M,1]·sb[1,N] or scalars.
	scale := func(s *stablehlo.Value, rowShape []int64, what string) *stablehlo.Value {
		os := []int64{xs[0], ys[1]}
		if !c.DType(s).IsFloat() {
			c.errs = append(c.errs, c.Errorf("_scaled_mm: %s must be floating point, got %v", what, c.DType(s).Torch()))
			return nil
		}
		s = c.Convert(s, f)
		switch {
		case numelOf(c.Shape(s)) == 1:
			return c.BroadcastTo(c.Reshape(s, nil), os)
		case sameShape(c.Shape(s), rowShape):
			return c.BroadcastTo(s, os)
		}
		c.errs = append(c.errs, c.Errorf("_scaled_mm: %s of shape %v is neither one value nor %v", what, c.Shape(s), rowShape))
		return nil
	}
	sab, sbb := scale(sa, []int64{xs[0], 1}, "scale_a"), scale(sb, []int64{1, ys[1]}, "scale_b")
	if err := c.Err(); err != nil {
		return nil, err
	}
	r, err := c.Call("aten::mm", []Value{TensorValue(c.Convert(x, f)), TensorValue(c.Convert(y, f))}, nil)
	if err != nil {
		return nil, err
	}
	res := c.Binary("multiply", r[0].T, c.Binary("multiply", sab, sbb))
	os := c.Shape(res)
	if bias != nil {
		if !c.DType(bias).IsFloat() {
			return nil, c.Errorf("_scaled_mm: bias must be floating point, got %v", c.DType(bias).Torch())
		}
		if bs := c.Shape(bias); len(bs) > 2 || (len(bs) >= 1 && bs[len(bs)-1] != os[1] && bs[len(bs)-1] != 1) {
			return nil, c.Errorf("_scaled_mm: bias of shape %v does not broadcast to %v", bs, os)
		}
		res = c.Binary("add", res, c.BroadcastTo(c.Convert(bias, f), os))
	}
	if isFloat8(out) {
		if sr != nil {
			if numelOf(c.Shape(sr)) != 1 {
				return nil, c.Errorf("_scaled_mm: scale_result must hold one value, got shape %v", c.Shape(sr))
			}
			res = c.Binary("divide", res, c.BroadcastTo(c.Reshape(c.Convert(sr, f), nil), os))
		}
		if out == dtype.F8E4M3FN {
			m := 448.0
			res = c.Binary("minimum", c.Binary("maximum", res, c.Splat(f, os, -m)), c.Splat(f, os, m))
		}
	}
	return one(c.Convert(res, out)), nil
}

func isFloat8(d dtype.DType) bool {
	switch d {
	case dtype.F8E4M3FN, dtype.F8E4M3FNUZ, dtype.F8E5M2, dtype.F8E5M2FNUZ:
		return true
	}
	return false
}
