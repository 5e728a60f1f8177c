package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
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

// batchStats follows PyTorch's CPU kernel: the per-channel mean and the
// sum of squared deviations from it (accumulated in float for half types,
// in double for float) are stored in the parameters' dtype (rounded, when
// input and parameters are both half), invstd = 1/sqrt(var_sum/N + eps)
// likewise, and the output is x·α + β with α = invstd·w and β = b - mean·α
// in float, rounded once. It returns y, the stored mean, var_sum and
// invstd ([C], param dtype).
func batchStats(c *LowerCtx, x, w, b *stablehlo.Value, eps float64, pt dtype.DType) (y, mean, varSum, invstd *stablehlo.Value, err error) {
	shape := c.Shape(x)
	if len(shape) < 2 {
		return nil, nil, nil, nil, c.Errorf("batch_norm: expected at least 2D input, got %v", shape)
	}
	dt := c.DType(x)
	acc := OpMath(dt)
	if dt == dtype.F32 {
		acc = c.Wide()
	}
	C := shape[1]
	cs := []int64{C}
	dims := dropDim(len(shape), 1)
	if numelOf(shape) == 0 {
		// No elements: the statistics of empty channels are NaN.
		st := c.Splat(pt, cs, math.NaN())
		return x, st, st, st, nil
	}
	n := float64(numelOf(shape) / C)
	xa := c.Convert(x, acc)
	m := c.Binary("divide", c.Reduce(xa, dims, "add", 0), c.Splat(acc, cs, n))
	if dt == dtype.F32 {
		// The kernel keeps the float32 mean (scalar_t) for the deviations.
		m = c.Convert(c.Convert(m, dtype.F32), acc)
	}
	// The deviations convert x again rather than reuse xa: each convert
	// then has one reader, and the executor folds it into that reader (the
	// widened copy of x is never stored).
	d := c.Binary("subtract", c.Convert(x, acc), c.BroadcastInDim(m, shape, []int64{1}))
	vs := c.Reduce(c.Binary("multiply", d, d), dims, "add", 0)
	store := func(v *stablehlo.Value) *stablehlo.Value { return c.Convert(c.Convert(v, pt), acc) }
	meanP, vsP := store(m), store(vs)
	inv := store(c.Binary("divide", c.Splat(acc, cs, 1), c.Unary("sqrt", c.Binary("add", c.Binary("divide", vsP, c.Splat(acc, cs, n)), c.Splat(acc, cs, eps)))))
	op := OpMath(dt)
	alpha := c.Convert(inv, op)
	if w != nil {
		alpha = c.Binary("multiply", alpha, c.Convert(c.Reshape(w, cs), op))
	}
	beta := c.Unary("negate", c.Binary("multiply", c.Convert(meanP, op), alpha))
	if b != nil {
		beta = c.Binary("subtract", c.Convert(c.Reshape(b, cs), op), c.Binary("multiply", c.Convert(meanP, op), alpha))
	}
	yc := c.Binary("add", c.Binary("multiply", c.Convert(x, op), c.BroadcastInDim(alpha, shape, []int64{1})), c.BroadcastInDim(beta, shape, []int64{1}))
	return c.Convert(yc, dt), c.Convert(meanP, pt), c.Convert(vsP, pt), c.Convert(inv, pt), nil
}

// paramDType is the kernels' param_t: the input's dtype, or float32 when
// a half input comes with float parameters (mixed types).
func paramDType(c *LowerCtx, x *stablehlo.Value, params ...*stablehlo.Value) dtype.DType {
	dt := c.DType(x)
	for _, p := range params {
		if p != nil && c.DType(p) != dt {
			return c.DType(p)
		}
	}
	return dt
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
		y, mean, varSum, rstd, err := batchStats(c, x, w, b, eps, paramDType(c, x, w, b, rm, rv))
		if err != nil {
			return nil, err
		}
		out := []Value{TensorValue(y), TensorValue(c.Convert(mean, statDT)), TensorValue(c.Convert(rstd, statDT))}
		if form != "functional" {
			return out, nil
		}
		shape := c.Shape(x)
		n := numelOf(shape) / shape[1]
		cdt := OpMath(c.DType(mean))
		if cdt == dtype.F32 {
			cdt = c.Wide()
		}
		cs := c.Shape(mean)
		mean = c.Convert(mean, cdt)
		unbiased := c.Convert(varSum, cdt)
		if n > 1 {
			unbiased = c.Binary("divide", unbiased, c.Splat(cdt, cs, float64(n-1)))
		}
		upd := func(old, batch *stablehlo.Value) *stablehlo.Value {
			o := c.Reshape(c.Convert(old, cdt), cs)
			v := c.Binary("add", c.Binary("multiply", o, c.Splat(cdt, cs, 1-mom)), c.Binary("multiply", batch, c.Splat(cdt, cs, mom)))
			return c.Reshape(c.Convert(v, c.DType(old)), c.Shape(old))
		}
		return append(out, TensorValue(upd(rm, mean)), TensorValue(upd(rv, unbiased))), nil
	}
}
