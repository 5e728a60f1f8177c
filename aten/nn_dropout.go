package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Dropout in its forms (PyTorch's _dropout_impl and native_dropout):
// dropout, feature_dropout (one draw per sample and channel),
// alpha_dropout and feature_alpha_dropout (SELU-preserving), native_dropout
// (with its mask) and native_dropout_backward. In evaluation, or with
// p = 0, the input passes through. The draws come from the random
// generator of creation_random.go: the distribution is PyTorch's, the
// values are not.

func init() {
	lower("aten::dropout", lowerDropout(false, false))
	lower("aten::feature_dropout", lowerDropout(true, false))
	lower("aten::alpha_dropout", lowerDropout(false, true))
	lower("aten::feature_alpha_dropout", lowerDropout(true, true))
	lower("aten::native_dropout", lowerNativeDropout)
	Register(Entry{Name: "aten::native_dropout_backward", Kind: Lowered,
		Schema: "native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor",
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			g, m := a.Tensor("grad_output"), a.Tensor("mask")
			scale := a.Float("scale")
			if a.Err() != nil {
				return nil, a.Err()
			}
			// grad · mask · scale: a float scale makes integer and bool
			// results float32.
			dt := floatResult(c.ResultType(TensorOperand(g), TensorOperand(m)))
			shape := c.BroadcastShapes(c.Shape(g), c.Shape(m))
			if c.Err() != nil {
				return nil, c.Err()
			}
			w := OpMath(dt)
			gm := c.Binary("multiply", c.Convert(c.BroadcastTo(g, shape), w), c.Convert(c.BroadcastTo(m, shape), w))
			return one(c.Convert(c.Binary("multiply", gm, c.Splat(w, shape, scale)), dt)), nil
		}})
}

// keep draws a Bernoulli(1-p) mask of the given shape.
func keepMask(c *LowerCtx, p float64, shape []int64) *stablehlo.Value {
	w := c.Wide()
	return c.Compare("LT", uniform(c, w, shape), c.Splat(w, shape, 1-p))
}

func lowerDropout(feature, alpha bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("input")
		p, train := a.Float("p"), a.Bool("train")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if p < 0 || p > 1 {
			return nil, c.Errorf("dropout probability has to be between 0 and 1, but got %v", p)
		}
		shape := c.Shape(x)
		if p == 0 || !train || numelOf(shape) == 0 {
			return one(x), nil
		}
		dt := c.DType(x)
		if !dt.IsFloat() && !dt.IsComplex() {
			return nil, c.Errorf("dropout: result type Float can't be cast to the desired output type %s", dt.Torch())
		}
		if p == 1 {
			return one(c.Binary("multiply", x, c.Splat(dt, shape, 0))), nil
		}
		noiseShape := shape
		if feature {
			if len(shape) < 2 {
				return nil, c.Errorf("Feature dropout requires at least 2 dimensions in the input")
			}
			noiseShape = make([]int64, len(shape))
			for i := range noiseShape {
				noiseShape[i] = 1
			}
			noiseShape[0], noiseShape[1] = shape[0], shape[1]
		}
		w := OpMath(dt)
		if dt.IsComplex() {
			w = dt
		}
		noise := c.Convert(keepMask(c, p, noiseShape), w)
		xs := c.Convert(x, w)
		if !alpha {
			noise = c.Binary("divide", noise, c.Splat(w, noiseShape, 1-p))
			return one(c.Convert(c.Binary("multiply", xs, c.BroadcastTo(noise, shape)), dt)), nil
		}
		const selu = 1.7580993408473766
		ka := 1 / math.Sqrt((selu*selu*p+1)*(1-p))
		// b = (noise - 1)·alpha·a + alpha·a·p; noise·a.
		b := c.Binary("add", c.Binary("multiply", c.Binary("subtract", noise, c.Splat(w, noiseShape, 1)), c.Splat(w, noiseShape, selu*ka)),
			c.Splat(w, noiseShape, selu*ka*p))
		noise = c.Binary("multiply", noise, c.Splat(w, noiseShape, ka))
		r := c.Binary("add", c.Binary("multiply", xs, c.BroadcastTo(noise, shape)), c.BroadcastTo(b, shape))
		return one(c.Convert(r, dt)), nil
	}
}

func lowerNativeDropout(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("input")
	p := a.Float("p")
	train, hasTrain := a.OptBool("train")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if hasTrain && !train || p == 0 {
		return []Value{TensorValue(x), TensorValue(c.SplatInt(dtype.Bool, shape, 1))}, nil
	}
	if p < 0 || p > 1 {
		return nil, c.Errorf("dropout probability has to be between 0 and 1, but got %v", p)
	}
	dt := c.DType(x)
	mask := keepMask(c, p, shape)
	scale := 0.0
	if p < 1 {
		scale = 1 / (1 - p)
	}
	w := OpMath(dt)
	r := c.Binary("multiply", c.Binary("multiply", c.Convert(x, w), c.Convert(mask, w)), c.Splat(w, shape, scale))
	return []Value{TensorValue(c.Convert(r, dt)), TensorValue(mask)}, nil
}
