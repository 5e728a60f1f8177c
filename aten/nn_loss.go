package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Losses: mse_loss, nll_loss (nd, 2d, forward variants), cross_entropy_loss
// (class indices or probabilities, label smoothing). Reduction codes are
// PyTorch's: 0 none, 1 mean, 2 sum.

func init() {
	lower("aten::mse_loss", lowerMSELoss)
	lower("aten::nll_loss_nd", lowerNLLLoss(false))
	lower("aten::nll_loss", lowerNLLLoss(false))
	lower("aten::nll_loss2d", lowerNLLLoss(false))
	lower("aten::nll_loss_forward", lowerNLLLoss(true))
	lower("aten::nll_loss2d_forward", lowerNLLLoss(true))
	lower("aten::cross_entropy_loss", lowerCrossEntropy)
}

func reduceLoss(c *LowerCtx, v *stablehlo.Value, reduction int64) (*stablehlo.Value, error) {
	switch reduction {
	case 0:
		return v, nil
	case 1:
		n := numelOf(c.Shape(v))
		s := c.Reduce(v, seqI64(c.Rank(v)), "add", 0)
		return c.Binary("divide", s, c.Like(s, float64(n))), nil
	case 2:
		return c.Reduce(v, seqI64(c.Rank(v)), "add", 0), nil
	}
	return nil, c.Errorf("invalid reduction %d (want 0 none, 1 mean, 2 sum)", reduction)
}

func lowerMSELoss(c *LowerCtx, a *Args) ([]Value, error) {
	x, y := a.Tensor("self"), a.Tensor("target")
	red := a.Int("reduction")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.ResultType(TensorOperand(x), TensorOperand(y))
	if !dt.IsFloat() {
		return nil, c.Errorf("mse_loss: %v is not supported", dt.Torch())
	}
	cdt := OpMath(dt)
	vs := c.Broadcast(cdt, TensorOperand(x), TensorOperand(y))
	d := c.Binary("subtract", vs[0], vs[1])
	out, err := reduceLoss(c, c.Binary("multiply", d, d), red)
	if err != nil {
		return nil, err
	}
	return one(c.Convert(out, dt)), nil
}

// nllParts computes per-element losses -w[t]*x[t] (0 where ignored) and
// the per-element weights w[t] (0 where ignored), in x's dtype. Class dim
// is 1 (0 for 1-D input).
func nllParts(c *LowerCtx, x, target, weight *stablehlo.Value, ignore int64) (loss, wt *stablehlo.Value, err error) {
	xs, ts := c.Shape(x), c.Shape(target)
	cd := 1
	if len(xs) == 1 {
		cd = 0
	}
	if len(xs) < 1 || len(ts) != len(xs)-1 {
		return nil, nil, c.Errorf("nll_loss: expected input of shape [N, C, ...] and target [N, ...], got %v and %v", xs, ts)
	}
	for i, n := range ts {
		if d := i + int(b2i(i >= cd)); xs[d] != n {
			return nil, nil, c.Errorf("nll_loss: expected target of shape %v for input %v, got %v", append(append([]int64(nil), xs[:cd]...), xs[cd+1:]...), xs, ts)
		}
	}
	if !c.DType(target).IsInteger() {
		return nil, nil, c.Errorf("nll_loss: expected target of an integer dtype, got %v", c.DType(target).Torch())
	}
	C := xs[cd]
	t := c.Convert(target, dtype.I64)
	ign := c.Compare("EQ", t, c.SplatInt(dtype.I64, ts, ignore))
	safe := c.Select(ign, c.SplatInt(dtype.I64, ts, 0), t)
	ti := c.Reshape(safe, append(append(append([]int64(nil), ts[:cd]...), 1), ts[cd:]...))
	picked := c.Reshape(gatherAlong(c, x, cd, ti), ts)
	dt := c.DType(x)
	if weight != nil {
		if numelOf(c.Shape(weight)) != C {
			return nil, nil, c.Errorf("nll_loss: weight tensor should be defined either for all %d classes or no classes but got weight tensor of shape %v", C, c.Shape(weight))
		}
		wv := c.Reshape(c.Convert(weight, dt), []int64{C})
		wt = takeAlongV(c, wv, 0, safe)
	} else {
		wt = c.Splat(dt, ts, 1)
	}
	wt = c.Select(ign, c.Splat(dt, ts, 0), wt)
	loss = c.Unary("negate", c.Binary("multiply", picked, wt))
	return loss, wt, nil
}

// reduceNLL applies the reduction; mean divides by the sum of weights.
func reduceNLL(c *LowerCtx, loss, wt *stablehlo.Value, red int64) (out, total *stablehlo.Value, err error) {
	all := seqI64(c.Rank(loss))
	total = c.Reduce(wt, all, "add", 0)
	switch red {
	case 0:
		return loss, total, nil
	case 1:
		return c.Binary("divide", c.Reduce(loss, all, "add", 0), total), total, nil
	case 2:
		return c.Reduce(loss, all, "add", 0), total, nil
	}
	return nil, nil, c.Errorf("invalid reduction %d (want 0 none, 1 mean, 2 sum)", red)
}

func lowerNLLLoss(forward bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, t := a.Tensor("self"), a.Tensor("target")
		w := a.OptTensor("weight")
		red, ignore := a.Int("reduction"), a.Int("ignore_index")
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.DType(x)
		if !dt.IsFloat() {
			return nil, c.Errorf("nll_loss: %v is not supported", dt.Torch())
		}
		cdt := OpMath(dt)
		loss, wt, err := nllParts(c, c.Convert(x, cdt), t, w, ignore)
		if err != nil {
			return nil, err
		}
		out, total, err := reduceNLL(c, loss, wt, red)
		if err != nil {
			return nil, err
		}
		if forward {
			return []Value{TensorValue(c.Convert(out, dt)), TensorValue(c.Convert(total, dt))}, nil
		}
		return one(c.Convert(out, dt)), nil
	}
}

func lowerCrossEntropy(c *LowerCtx, a *Args) ([]Value, error) {
	x, t := a.Tensor("self"), a.Tensor("target")
	w := a.OptTensor("weight")
	red, ignore := a.Int("reduction"), a.Int("ignore_index")
	eps := a.Float("label_smoothing")
	if a.Err() != nil {
		return nil, a.Err()
	}
	dt := c.DType(x)
	if !dt.IsFloat() {
		return nil, c.Errorf("cross_entropy: %v is not supported", dt.Torch())
	}
	cdt := OpMath(dt)
	xs := c.Shape(x)
	cd := 1
	if len(xs) == 1 {
		cd = 0
	}
	if len(xs) == 0 {
		return nil, c.Errorf("cross_entropy: input must have at least one dim")
	}
	C := xs[cd]
	logp := softmaxAlong(c, c.Convert(x, cdt), cd, true, false)
	var wc *stablehlo.Value
	if w != nil {
		if numelOf(c.Shape(w)) != C {
			return nil, c.Errorf("cross_entropy: weight of shape %v does not match %d classes", c.Shape(w), C)
		}
		wc = c.BroadcastInDim(c.Reshape(c.Convert(w, cdt), []int64{C}), xs, []int64{int64(cd)})
	}
	if c.DType(t).IsFloat() {
		// Class probabilities: -sum_c w_c * t_c * logp_c per sample; mean
		// divides by the number of samples.
		if !sameShape(c.Shape(t), xs) {
			return nil, c.Errorf("cross_entropy: probability target of shape %v must match input %v", c.Shape(t), xs)
		}
		tc := c.Convert(t, cdt)
		if eps > 0 {
			tc = c.Binary("add", c.Binary("multiply", tc, c.Splat(cdt, xs, 1-eps)), c.Splat(cdt, xs, eps/float64(C)))
		}
		term := c.Binary("multiply", logp, tc)
		if wc != nil {
			term = c.Binary("multiply", term, wc)
		}
		per := c.Unary("negate", c.Reduce(term, []int64{int64(cd)}, "add", 0))
		out, err := reduceLoss(c, per, red)
		if err != nil {
			return nil, err
		}
		return one(c.Convert(out, dt)), nil
	}
	loss, wt, err := nllParts(c, logp, t, w, ignore)
	if err != nil {
		return nil, err
	}
	out, total, err := reduceNLL(c, loss, wt, red)
	if err != nil {
		return nil, err
	}
	if eps > 0 {
		term := logp
		if wc != nil {
			term = c.Binary("multiply", term, wc)
		}
		smooth := c.Unary("negate", c.Reduce(term, []int64{int64(cd)}, "add", 0))
		ts := c.Shape(smooth)
		ign := c.Compare("EQ", c.Convert(t, dtype.I64), c.SplatInt(dtype.I64, ts, ignore))
		smooth = c.Select(ign, c.Splat(cdt, ts, 0), smooth)
		all := seqI64(len(ts))
		switch red {
		case 1:
			if wc != nil {
				smooth = c.Binary("divide", c.Reduce(smooth, all, "add", 0), total)
			} else {
				cnt := c.Reduce(c.Convert(c.Unary("not", ign), cdt), all, "add", 0)
				smooth = c.Binary("divide", c.Reduce(smooth, all, "add", 0), cnt)
			}
		case 2:
			smooth = c.Reduce(smooth, all, "add", 0)
		}
		os := c.Shape(out)
		out = c.Binary("add", c.Binary("multiply", out, c.Splat(cdt, os, 1-eps)),
			c.Binary("multiply", smooth, c.Splat(cdt, os, eps/float64(C))))
	}
	return one(c.Convert(out, dt)), nil
}
