package aten

import (
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Batch norm with batch statistics, in its functional forms:
// native_batch_norm, _native_batch_norm_legit_functional (also returns the
// updated running statistics) and _native_batch_norm_legit.no_stats.
// save_mean / save_invstd are the batch mean and 1/sqrt(var_biased + eps);
// running stats update as (1-m)*old + m*batch with the unbiased variance.

func init() {
	lower("aten::native_batch_norm", lowerBatchNormTrain("native"))
	lower("aten::_native_batch_norm_legit_functional", lowerBatchNormTrain("functional"))
	lower("aten::_native_batch_norm_legit.no_stats", lowerBatchNormTrain("no_stats"))
}

// batchStats returns per-channel mean, biased variance and rstd (shape
// [C], compute dtype) and the normalised, affine output in x's dtype.
func batchStats(c *LowerCtx, x, w, b *stablehlo.Value, eps float64) (y, mean, variance, rstd *stablehlo.Value, err error) {
	shape := c.Shape(x)
	if len(shape) < 2 {
		return nil, nil, nil, nil, c.Errorf("batch_norm: expected at least 2D input, got %v", shape)
	}
	dt := c.DType(x)
	xc := c.Convert(x, OpMath(dt))
	dims := dropDim(len(shape), 1)
	m, r := moments(c, xc, dims, eps)
	cs := []int64{shape[1]}
	mean, rstd = c.Reshape(m, cs), c.Reshape(r, cs)
	diff := c.Binary("subtract", xc, bcast(c, m, shape))
	cnt := numelOf(shape) / shape[1]
	sq := c.Reduce(c.Binary("multiply", diff, diff), dims, "add", 0)
	variance = c.Binary("divide", sq, c.Like(sq, float64(cnt)))
	y = c.Binary("multiply", diff, bcast(c, r, shape))
	return c.Convert(affine(c, y, w, b, 1), dt), mean, variance, rstd, nil
}

func lowerBatchNormTrain(form string) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("input")
		w, b := a.OptTensor("weight"), a.OptTensor("bias")
		var rm, rv *stablehlo.Value
		if form != "no_stats" {
			rm, rv = a.OptTensor("running_mean"), a.OptTensor("running_var")
		}
		training := a.Bool("training")
		mom, eps := a.Float("momentum"), a.Float("eps")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.DType(x)
		statDT := dt
		if rm != nil {
			statDT = c.DType(rm)
		}
		if !training {
			if rm == nil || rv == nil {
				return nil, c.Errorf("batch_norm: running_mean and running_var must be defined in evaluation mode")
			}
			y, err := batchNormEval(c, x, w, b, rm, rv, eps)
			if err != nil {
				return nil, err
			}
			empty := c.Splat(statDT, []int64{0}, 0)
			out := []Value{TensorValue(y), TensorValue(empty), TensorValue(empty)}
			if form == "functional" {
				out = append(out, TensorValue(rm), TensorValue(rv))
			}
			return out, nil
		}
		y, mean, variance, rstd, err := batchStats(c, x, w, b, eps)
		if err != nil {
			return nil, err
		}
		out := []Value{TensorValue(y), TensorValue(c.Convert(mean, statDT)), TensorValue(c.Convert(rstd, statDT))}
		if form != "functional" {
			return out, nil
		}
		shape := c.Shape(x)
		n := numelOf(shape) / shape[1]
		cdt := c.DType(mean)
		cs := c.Shape(mean)
		unbiased := variance
		if n > 1 {
			unbiased = c.Binary("multiply", variance, c.Splat(cdt, cs, float64(n)/float64(n-1)))
		}
		upd := func(old, batch *stablehlo.Value) *stablehlo.Value {
			o := c.Reshape(c.Convert(old, cdt), cs)
			v := c.Binary("add", c.Binary("multiply", o, c.Splat(cdt, cs, 1-mom)), c.Binary("multiply", batch, c.Splat(cdt, cs, mom)))
			return c.Reshape(c.Convert(v, c.DType(old)), c.Shape(old))
		}
		return append(out, TensorValue(upd(rm, mean)), TensorValue(upd(rv, unbiased))), nil
	}
}
