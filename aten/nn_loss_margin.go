package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// multi_margin_loss and multilabel_margin_loss as PyTorch's CPU kernels
// compute them. Per sample i of x [N, C] (a 1-D x is one sample):
//
//	multi_margin:  sum over d != t of w[t]·max(0, margin - x[t] + x[d])^p / C
//	multilabel:    sum over the targets j before the first -1 and the
//	               non-targets d of max(0, 1 - x[t_j] + x[d]) / C
//
// Reductions are 0 none, 1 mean, 2 sum; mean and sum accumulate float32
// in float64 (acc_type), and a mean over no samples is NaN (0/0), as in
// PyTorch. Target values out of range cannot be reported at run time:
// they match no class.

func init() {
	lower("aten::multi_margin_loss", lowerMultiMargin)
	lower("aten::multilabel_margin_loss", lowerMultilabelMargin(false))
	lower("aten::multilabel_margin_loss_forward", lowerMultilabelMargin(true))
}

// marginFrames checks x (rank 0..2, non-empty class dim) and returns it
// as [N, C].
func marginFrames(c *LowerCtx, what string, x *stablehlo.Value) (*stablehlo.Value, int64, int64, error) {
	s := c.Shape(x)
	if dt := c.DType(x); dt != dtype.F32 && dt != dtype.F64 {
		return nil, 0, 0, c.Errorf("%s: %v is not supported (float32 and float64 only)", what, dt.Torch())
	}
	var n, k int64
	switch len(s) {
	case 0:
		n, k = 1, 1
	case 1:
		n, k = 1, s[0]
	case 2:
		n, k = s[0], s[1]
	default:
		return nil, 0, 0, c.Errorf("%s: expected a vector or matrix input, got shape %v", what, s)
	}
	if k == 0 {
		return nil, 0, 0, c.Errorf("%s: Expected non-empty vector or matrix with optional 0-dim batch size, but got: %v", what, s)
	}
	return c.Reshape(x, []int64{n, k}), n, k, nil
}

// marginReduce applies the reduction to per-sample losses l [N]; perSample
// says whether reduction none keeps the [N] shape (else a 0-dim result).
func marginReduce(c *LowerCtx, l *stablehlo.Value, red int64, perSample bool) (*stablehlo.Value, error) {
	dt := c.DType(l)
	switch red {
	case 0:
		if perSample {
			return l, nil
		}
		return c.Reshape(l, nil), nil
	case 1, 2:
		acc := c.Convert(l, accType(c, dt))
		s := c.Reduce(acc, []int64{0}, "add", 0)
		if red == 1 {
			s = c.Binary("divide", s, c.Like(s, float64(c.Shape(l)[0])))
		}
		return c.Convert(s, dt), nil
	}
	return nil, c.Errorf("invalid reduction %d (want 0 none, 1 mean, 2 sum)", red)
}

func lowerMultiMargin(c *LowerCtx, a *Args) ([]Value, error) {
	x, target := a.Tensor("self"), a.Tensor("target")
	p := a.Scalar("p")
	margin := a.Scalar("margin")
	weight := a.OptTensor("weight")
	red := a.Int("reduction")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if p.Float() != 1 && p.Float() != 2 {
		return nil, c.Errorf("multi_margin_loss: only p == 1 and p == 2 supported, got %v", p)
	}
	xr, n, k, err := marginFrames(c, "multi_margin_loss", x)
	if err != nil {
		return nil, err
	}
	dt := c.DType(xr)
	ts := c.Shape(target)
	if len(ts) > 1 || numelOf(ts) != n || !c.DType(target).IsInteger() {
		return nil, c.Errorf("multi_margin_loss: inconsistent target: want an integer tensor of %d elements (rank <= 1), got %v %v", n, c.DType(target).Torch(), ts)
	}
	nk := []int64{n, k}
	t := c.BroadcastInDim(c.Reshape(c.Convert(target, dtype.I64), []int64{n}), nk, []int64{0})
	hot := c.Compare("EQ", c.Iota(dtype.I64, nk, 1), t)
	zero := c.Splat(dt, nk, 0)
	xt := c.Reduce(c.Select(hot, xr, zero), []int64{1}, "add", 0)
	z := c.Binary("add", c.BroadcastInDim(c.Binary("subtract", c.Splat(dt, []int64{n}, margin.Float()), xt), nk, []int64{0}), xr)
	h := z
	if p.Float() == 2 {
		h = c.Binary("multiply", z, z)
	}
	if weight != nil {
		if c.Rank(weight) > 1 || numelOf(c.Shape(weight)) != k || c.DType(weight) != dt {
			return nil, c.Errorf("multi_margin_loss: weight must be a %v tensor of %d elements (rank <= 1), got %v %v", dt.Torch(), k, c.DType(weight).Torch(), c.Shape(weight))
		}
		w := c.BroadcastInDim(c.Reshape(weight, []int64{k}), nk, []int64{1})
		wt := c.Reduce(c.Select(hot, w, zero), []int64{1}, "add", 0)
		h = c.Binary("multiply", h, c.BroadcastInDim(wt, nk, []int64{0}))
	}
	keep := c.Binary("and", c.Compare("GT", z, zero), c.Unary("not", hot))
	l := c.Reduce(c.Select(keep, h, zero), []int64{1}, "add", 0)
	l = c.Binary("divide", l, c.Splat(dt, []int64{n}, float64(k)))
	out, err := marginReduce(c, l, red, len(ts) > 0)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerMultilabelMargin(withIsTarget bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, target := a.Tensor("self"), a.Tensor("target")
		red := a.Int("reduction")
		if a.Err() != nil {
			return nil, a.Err()
		}
		xr, n, k, err := marginFrames(c, "multilabel_margin_loss", x)
		if err != nil {
			return nil, err
		}
		dt := c.DType(xr)
		xs, ts := c.Shape(x), c.Shape(target)
		okShape := len(xs) <= 1 && len(ts) <= 1 && numelOf(ts) == k || len(xs) == 2 && len(ts) == 2 && ts[0] == n && ts[1] == k
		if !okShape || !c.DType(target).IsInteger() {
			return nil, c.Errorf("multilabel_margin_loss: inconsistent target: want an integer tensor shaped like the input %v, got %v %v", xs, c.DType(target).Torch(), ts)
		}
		nk, nkk := []int64{n, k}, []int64{n, k, k}
		t := c.Reshape(c.Convert(target, dtype.I64), nk)
		// Targets count up to the first negative one.
		col := c.Iota(dtype.I64, nk, 1)
		stop := c.ReduceWith(c.Select(c.Compare("LT", t, c.SplatInt(dtype.I64, nk, 0)), col, c.SplatInt(dtype.I64, nk, k)),
			[]int64{1}, "minimum", c.SplatInt(dtype.I64, nil, k))
		valid := c.Compare("LT", col, c.BroadcastInDim(stop, nk, []int64{0}))
		// hot[i, j, d]: target j of sample i is valid and names class d.
		hot := c.Binary("and",
			c.Compare("EQ", c.BroadcastInDim(t, nkk, []int64{0, 1}), c.Iota(dtype.I64, nkk, 2)),
			c.BroadcastInDim(valid, nkk, []int64{0, 1}))
		isT := c.Reduce(c.Convert(hot, dtype.I32), []int64{1}, "maximum", 0) // [N, C]
		isTarget := c.Compare("NE", isT, c.SplatInt(dtype.I32, nk, 0))
		zero3 := c.Splat(dt, nkk, 0)
		x3 := c.BroadcastInDim(xr, nkk, []int64{0, 2})
		xt := c.Reduce(c.Select(hot, x3, zero3), []int64{2}, "add", 0) // [N, J]
		z := c.Binary("add", c.BroadcastInDim(c.Binary("subtract", c.Splat(dt, nk, 1), xt), nkk, []int64{0, 1}), x3)
		keep := c.Binary("and", c.Binary("and", c.Compare("GT", z, zero3), c.BroadcastInDim(valid, nkk, []int64{0, 1})),
			c.Unary("not", c.BroadcastInDim(isTarget, nkk, []int64{0, 2})))
		acc := accType(c, dt)
		l := c.Reduce(c.Convert(c.Select(keep, z, zero3), acc), []int64{1, 2}, "add", 0)
		l = c.Convert(c.Binary("divide", l, c.Splat(acc, []int64{n}, float64(k))), dt)
		out, err := marginReduce(c, l, red, len(ts) > 1)
		if err != nil {
			return nil, err
		}
		if !withIsTarget {
			return one(out), nil
		}
		return []Value{TensorValue(out), TensorValue(c.Reshape(c.Convert(isTarget, dt), ts))}, nil
	}
}

func init() {
	lower("aten::multi_margin_loss_backward", lowerMultiMarginBackward)
	lower("aten::multilabel_margin_loss_backward", lowerMultilabelMarginBackward)
}

// marginScaleGrad multiplies grad [N, C] by grad_output: per sample for
// reduction none with a per-sample loss, else by the one value. g is the
// kernel's 1/(N·C) (mean) or 1/C factor, already in grad.
func marginScaleGrad(c *LowerCtx, what string, grad, gout *stablehlo.Value, n, k int64, perSample bool) (*stablehlo.Value, error) {
	nk := []int64{n, k}
	gs := c.Shape(gout)
	switch {
	case perSample && numelOf(gs) == n && len(gs) == 1:
		return c.Binary("multiply", grad, c.BroadcastInDim(c.Convert(gout, c.DType(grad)), nk, []int64{0})), nil
	case !perSample && numelOf(gs) == 1:
		return c.Binary("multiply", grad, c.BroadcastInDim(c.Reshape(c.Convert(gout, c.DType(grad)), nil), nk, nil)), nil
	}
	return nil, c.Errorf("%s: grad_output of shape %v does not match the loss", what, gs)
}

func lowerMultiMarginBackward(c *LowerCtx, a *Args) ([]Value, error) {
	gout, x, target := a.Tensor("grad_output"), a.Tensor("self"), a.Tensor("target")
	p, margin := a.Scalar("p"), a.Scalar("margin")
	weight := a.OptTensor("weight")
	red := a.Int("reduction")
	if a.Err() != nil {
		return nil, a.Err()
	}
	const what = "multi_margin_loss_backward"
	if p.Float() != 1 && p.Float() != 2 {
		return nil, c.Errorf("%s: only p == 1 and p == 2 supported, got %v", what, p)
	}
	if red < 0 || red > 2 {
		return nil, c.Errorf("%s: invalid reduction %d (want 0 none, 1 mean, 2 sum)", what, red)
	}
	xr, n, k, err := marginFrames(c, what, x)
	if err != nil {
		return nil, err
	}
	dt := c.DType(xr)
	ts := c.Shape(target)
	if len(ts) > 1 || numelOf(ts) != n || !c.DType(target).IsInteger() {
		return nil, c.Errorf("%s: inconsistent target: want an integer tensor of %d elements (rank <= 1), got %v %v", what, n, c.DType(target).Torch(), ts)
	}
	g := 1 / float64(k)
	if red == 1 {
		g = 1 / float64(n*k)
	}
	nk := []int64{n, k}
	t := c.BroadcastInDim(c.Reshape(c.Convert(target, dtype.I64), []int64{n}), nk, []int64{0})
	hot := c.Compare("EQ", c.Iota(dtype.I64, nk, 1), t)
	zero := c.Splat(dt, nk, 0)
	xt := c.Reduce(c.Select(hot, xr, zero), []int64{1}, "add", 0)
	z := c.Binary("add", c.BroadcastInDim(c.Binary("subtract", c.Splat(dt, []int64{n}, margin.Float()), xt), nk, []int64{0}), xr)
	h := c.Splat(dt, nk, g)
	if p.Float() == 2 {
		h = c.Binary("multiply", c.Splat(dt, nk, 2*g), z)
	}
	if weight != nil {
		if c.Rank(weight) > 1 || numelOf(c.Shape(weight)) != k || c.DType(weight) != dt {
			return nil, c.Errorf("%s: weight must be a %v tensor of %d elements (rank <= 1), got %v %v", what, dt.Torch(), k, c.DType(weight).Torch(), c.Shape(weight))
		}
		w := c.BroadcastInDim(c.Reshape(weight, []int64{k}), nk, []int64{1})
		wt := c.Reduce(c.Select(hot, w, zero), []int64{1}, "add", 0)
		h = c.Binary("multiply", h, c.BroadcastInDim(wt, nk, []int64{0}))
	}
	keep := c.Binary("and", c.Compare("GT", z, zero), c.Unary("not", hot))
	gd := c.Select(keep, h, zero)
	gt := c.Unary("negate", c.Reduce(gd, []int64{1}, "add", 0))
	grad := c.Select(hot, c.BroadcastInDim(gt, nk, []int64{0}), gd)
	grad, err = marginScaleGrad(c, what, grad, gout, n, k, red == 0 && len(ts) > 0)
	if err != nil {
		return nil, err
	}
	return one(c.Reshape(grad, c.Shape(x))), nil
}

func lowerMultilabelMarginBackward(c *LowerCtx, a *Args) ([]Value, error) {
	gout, x, target := a.Tensor("grad_output"), a.Tensor("self"), a.Tensor("target")
	red := a.Int("reduction")
	isTarget := a.Tensor("is_target")
	if a.Err() != nil {
		return nil, a.Err()
	}
	const what = "multilabel_margin_loss_backward"
	if red < 0 || red > 2 {
		return nil, c.Errorf("%s: invalid reduction %d (want 0 none, 1 mean, 2 sum)", what, red)
	}
	xr, n, k, err := marginFrames(c, what, x)
	if err != nil {
		return nil, err
	}
	dt := c.DType(xr)
	xs, ts := c.Shape(x), c.Shape(target)
	okShape := len(xs) <= 1 && len(ts) <= 1 && numelOf(ts) == k || len(xs) == 2 && len(ts) == 2 && ts[0] == n && ts[1] == k
	if !okShape || !c.DType(target).IsInteger() {
		return nil, c.Errorf("%s: inconsistent target: want an integer tensor shaped like the input %v, got %v %v", what, xs, c.DType(target).Torch(), ts)
	}
	if !sameShape(c.Shape(isTarget), ts) {
		return nil, c.Errorf("%s: is_target of shape %v, want the target's %v", what, c.Shape(isTarget), ts)
	}
	g := 1 / float64(k)
	if red == 1 {
		g = 1 / float64(n*k)
	}
	nk, nkk := []int64{n, k}, []int64{n, k, k}
	t := c.Reshape(c.Convert(target, dtype.I64), nk)
	col := c.Iota(dtype.I64, nk, 1)
	stop := c.ReduceWith(c.Select(c.Compare("LT", t, c.SplatInt(dtype.I64, nk, 0)), col, c.SplatInt(dtype.I64, nk, k)),
		[]int64{1}, "minimum", c.SplatInt(dtype.I64, nil, k))
	valid := c.Compare("LT", col, c.BroadcastInDim(stop, nk, []int64{0}))
	hot := c.Binary("and",
		c.Compare("EQ", c.BroadcastInDim(t, nkk, []int64{0, 1}), c.Iota(dtype.I64, nkk, 2)),
		c.BroadcastInDim(valid, nkk, []int64{0, 1}))
	isT := c.Reshape(isTarget, nk)
	notT := c.Compare("EQ", isT, c.Splat(c.DType(isT), nk, 0))
	zero3 := c.Splat(dt, nkk, 0)
	x3 := c.BroadcastInDim(xr, nkk, []int64{0, 2})
	xt := c.Reduce(c.Select(hot, x3, zero3), []int64{2}, "add", 0) // [N, J]
	z := c.Binary("add", c.BroadcastInDim(c.Binary("subtract", c.Splat(dt, nk, 1), xt), nkk, []int64{0, 1}), x3)
	keep := c.Binary("and", c.Binary("and", c.Compare("GT", z, zero3), c.BroadcastInDim(valid, nkk, []int64{0, 1})),
		c.BroadcastInDim(notT, nkk, []int64{0, 2}))
	m := c.Select(keep, c.Splat(dt, nkk, 1), zero3)
	plus := c.Reduce(m, []int64{1}, "add", 0)                                      // [N, C]: times class d counted against a target
	cnt := c.BroadcastInDim(c.Reduce(m, []int64{2}, "add", 0), nkk, []int64{0, 1}) // [N, J, C]: margins of target j
	minus := c.Reduce(c.Select(hot, cnt, zero3), []int64{1}, "add", 0)
	grad := c.Binary("multiply", c.Binary("subtract", plus, minus), c.Splat(dt, nk, g))
	grad, err = marginScaleGrad(c, what, grad, gout, n, k, red == 0 && len(ts) > 1)
	if err != nil {
		return nil, err
	}
	return one(c.Reshape(grad, xs)), nil
}
