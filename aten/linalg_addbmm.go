package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// addbmmSteps is the largest batch count that addbmm unrolls; past it the
// batches are contracted at once (rounded once).
const addbmmSteps = 256

// addbmmSequential is addbmm as PyTorch's CPU kernel runs it
// (addbmm_impl_): one addmm per batch into the result, the first with
// beta*self, the others with beta = 1, each rounded to the dtype (float
// types: a float16/bfloat16 step is computed in float32 and rounded once).
// A float32 product is an FMA chain over k, as the BLAS sgemm kernel
// computes it (exact on the OpInfo cases). xc, yc are the batches in the
// compute dtype; it returns nil where the
// one-contraction path applies (integers, which are exact, or many batches).
func addbmmSequential(c *LowerCtx, self, xc, yc *stablehlo.Value, alpha, beta Scalar, dt dtype.DType) (*stablehlo.Value, error) {
	b := c.Shape(xc)[0]
	if !(dt.IsFloat() || dt.IsComplex()) || b == 0 || b > addbmmSteps {
		return nil, nil
	}
	cdt := c.DType(xc)
	var prods *stablehlo.Value // [b, n, p]
	if dt == dtype.F32 && !c.NoF64 && c.Shape(xc)[2] <= addbmmSteps {
		prods = fmaChainBMM(c, xc, yc)
	} else {
		prods = dotGeneral(c, xc, yc, []int64{0}, []int64{0}, []int64{2}, []int64{1})
	}
	ps := c.Shape(prods)
	shape := ps[1:]
	var acc *stablehlo.Value
	for i := int64(0); i < b; i++ {
		p := c.Reshape(sliceDim(c, prods, 0, i, 1, 1), shape)
		if !scalarIs(alpha, 1) {
			p = c.Binary("multiply", p, c.ScalarFull(alpha, cdt, shape))
		}
		switch {
		case i > 0:
			p = c.Binary("add", acc, p)
		case !scalarIs(beta, 0):
			s, err := expandTo(c, c.Convert(self, cdt), shape)
			if err != nil {
				return nil, err
			}
			if !scalarIs(beta, 1) {
				s = c.Binary("multiply", s, c.ScalarFull(beta, cdt, shape))
			}
			p = c.Binary("add", s, p)
		}
		acc = p
		if cdt != dt {
			acc = c.Convert(c.Convert(acc, dt), cdt)
		}
	}
	return c.Convert(acc, dt), nil
}

// fmaChainBMM multiplies the float32 batches x [b, n, k] and y [b, k, p]
// with one fused multiply-add per k in order, acc = fma(x_k, y_k, acc):
// the product is exact in float64 and the sum rounds once to float32 (a
// double rounding only where the float64 sum is inexact).
func fmaChainBMM(c *LowerCtx, x, y *stablehlo.Value) *stablehlo.Value {
	xs, ys := c.Shape(x), c.Shape(y)
	b, n, k, p := xs[0], xs[1], xs[2], ys[2]
	out := []int64{b, n, p}
	var acc *stablehlo.Value
	for i := int64(0); i < k; i++ {
		xi := c.Convert(c.Reshape(sliceDim(c, x, 2, i, 1, 1), []int64{b, n}), dtype.F64)
		yi := c.Convert(c.Reshape(sliceDim(c, y, 1, i, 1, 1), []int64{b, p}), dtype.F64)
		prod := c.Binary("multiply", c.BroadcastInDim(xi, out, []int64{0, 1}), c.BroadcastInDim(yi, out, []int64{0, 2}))
		if acc != nil {
			prod = c.Binary("add", c.Convert(acc, dtype.F64), prod)
		}
		acc = c.Convert(prod, dtype.F32)
	}
	if acc == nil {
		return c.Splat(dtype.F32, out, 0)
	}
	return acc
}
