package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// softmax / log_softmax (computed stably, half types in float32) and
// scaled_dot_product_attention.

func init() {
	lower("aten::softmax.int", lowerSoftmax(false, false))
	lower("aten::_softmax", lowerSoftmax(false, false))
	lower("aten::_safe_softmax", lowerSoftmax(false, true))
	lower("aten::log_softmax.int", lowerSoftmax(true, false))
	lower("aten::_log_softmax", lowerSoftmax(true, false))
	lower("aten::scaled_dot_product_attention", lowerSDPA)
	lower("aten::_scaled_dot_product_attention_math", lowerSDPAMath)
}

// softmaxAlong computes softmax (or log_softmax) of x along d in x's
// dtype. safe turns rows that are entirely -inf into zeros.
func softmaxAlong(c *LowerCtx, x *stablehlo.Value, d int, logSoftmax, safe bool) *stablehlo.Value {
	shape := c.Shape(x)
	dims := []int64{int64(d)}
	m := reduceInit(c, x, dims, "maximum", lowestConst(c, c.DType(x)))
	mb := c.BroadcastInDim(m, shape, dropDim(len(shape), d))
	sh := c.Binary("subtract", x, mb)
	e := c.Unary("exponential", sh)
	s := c.Reduce(e, dims, "add", 0)
	sb := c.BroadcastInDim(s, shape, dropDim(len(shape), d))
	var out *stablehlo.Value
	if logSoftmax {
		out = c.Binary("subtract", sh, c.Unary("log", sb))
	} else {
		out = c.Binary("divide", e, sb)
	}
	if safe {
		allMasked := c.Compare("EQ", mb, c.Like(mb, math.Inf(-1)))
		out = c.Select(allMasked, c.Like(out, 0), out)
	}
	return out
}

// logSoftmaxLastReduced is log_softmax of a float16/bfloat16 x along its
// last dim d as PyTorch's _vec_log_softmax_lastdim computes it: the sum of
// exp(x - max) (in float32) is kept in x's dtype, so is its log, and
// x - max - log(sum) is computed in float32; the result is in float32.
func logSoftmaxLastReduced(c *LowerCtx, x *stablehlo.Value, d int) *stablehlo.Value {
	dt := c.DType(x)
	round := func(v *stablehlo.Value) *stablehlo.Value { return c.Convert(c.Convert(v, dt), dtype.F32) }
	xf := c.Convert(x, dtype.F32)
	shape := c.Shape(xf)
	dims := []int64{int64(d)}
	m := reduceInit(c, xf, dims, "maximum", lowestConst(c, dtype.F32))
	mb := c.BroadcastInDim(m, shape, dropDim(len(shape), d))
	sh := c.Binary("subtract", xf, mb)
	sum := round(c.Reduce(c.Unary("exponential", sh), dims, "add", 0))
	l := c.BroadcastInDim(round(c.Unary("log", sum)), shape, dropDim(len(shape), d))
	return c.Binary("subtract", sh, l)
}

// dropDim lists the dims of a rank-r shape other than d (the mapping of a
// reduced value back into the full shape).
func dropDim(r, d int) []int64 {
	out := make([]int64, 0, r-1)
	for i := 0; i < r; i++ {
		if i != d {
			out = append(out, int64(i))
		}
	}
	return out
}

func lowerSoftmax(logSoftmax, safe bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		dim := a.Int("dim")
		var outDT dtype.DType
		hasDT := false
		if a.Schema.Param("dtype") >= 0 {
			outDT, hasDT = a.OptDType("dtype")
		}
		if a.Schema.Param("half_to_float") >= 0 && a.Bool("half_to_float") {
			return nil, c.Errorf("softmax with half to float conversion is not supported on CPU")
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		if hasDT {
			x = c.Convert(x, outDT)
		}
		dt := c.DType(x)
		if !dt.IsFloat() {
			return nil, c.Errorf("softmax: not implemented for '%s'", dt.Torch())
		}
		r := c.Rank(x)
		scalar := r == 0
		if scalar {
			x = c.Reshape(x, []int64{1})
		}
		d, err := canonDim(dim, c.Rank(x))
		if err != nil {
			return nil, err
		}
		var out *stablehlo.Value
		if logSoftmax && !safe && !scalar && d == r-1 && (dt == dtype.F16 || dt == dtype.BF16) {
			out = logSoftmaxLastReduced(c, x, d)
		} else {
			out = softmaxAlong(c, c.Convert(x, OpMath(dt)), d, logSoftmax, safe)
		}
		out = c.Convert(out, dt)
		if scalar {
			out = c.Reshape(out, nil)
		}
		return one(out), nil
	}
}

func lowerSDPA(c *LowerCtx, a *Args) ([]Value, error) {
	out, _, err := sdpaCore(c, a)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

// lowerSDPAMath lowers _scaled_dot_product_attention_math, which also
// returns the attention weights.
func lowerSDPAMath(c *LowerCtx, a *Args) ([]Value, error) {
	if a.Has("dropout_mask") {
		return nil, c.Errorf("_scaled_dot_product_attention_math with a dropout mask: %w", ErrUnsupported)
	}
	out, p, err := sdpaCore(c, a)
	if err != nil {
		return nil, err
	}
	return []Value{TensorValue(out), TensorValue(p)}, nil
}

// sdpaCore computes softmax(q kᵀ * scale + mask) v in float32 for half
// types; it returns the output and the attention weights in q's dtype.
func sdpaCore(c *LowerCtx, a *Args) (out, weights *stablehlo.Value, err error) {
	q, k, v := a.Tensor("query"), a.Tensor("key"), a.Tensor("value")
	mask := a.OptTensor("attn_mask")
	dropout := a.Float("dropout_p")
	causal := a.Bool("is_causal")
	scale, hasScale := a.OptFloat("scale")
	gqa := a.Bool("enable_gqa")
	if a.Err() != nil {
		return nil, nil, a.Err()
	}
	if dropout != 0 {
		return nil, nil, c.Errorf("scaled_dot_product_attention with dropout_p=%g draws random numbers: %w", dropout, ErrUnsupported)
	}
	qs, ks, vs := c.Shape(q), c.Shape(k), c.Shape(v)
	if len(qs) < 2 || len(ks) < 2 || len(vs) < 2 {
		return nil, nil, c.Errorf("scaled_dot_product_attention: query, key and value must be at least 2-D, got %v, %v, %v", qs, ks, vs)
	}
	dt := c.DType(q)
	if !dt.IsFloat() || c.DType(k) != dt || c.DType(v) != dt {
		return nil, nil, c.Errorf("scaled_dot_product_attention: expected query, key and value of one float dtype, got %v, %v, %v", dt.Torch(), c.DType(k).Torch(), c.DType(v).Torch())
	}
	L, E := qs[len(qs)-2], qs[len(qs)-1]
	S := ks[len(ks)-2]
	if !hasScale {
		scale = 1 / math.Sqrt(float64(E))
	}
	if gqa && len(qs) >= 3 && len(ks) >= 3 {
		hq, hk := qs[len(qs)-3], ks[len(ks)-3]
		if hk == 0 || hq%hk != 0 {
			return nil, nil, c.Errorf("scaled_dot_product_attention: number of query heads %d is not a multiple of key heads %d", hq, hk)
		}
		k = repeatInterleaveDim(c, k, len(ks)-3, hq/hk)
		v = repeatInterleaveDim(c, v, len(vs)-3, hq/hk)
	}
	cdt := OpMath(dt)
	qc, kc, vc := c.Convert(q, cdt), c.Convert(k, cdt), c.Convert(v, cdt)
	kr := c.Rank(kc)
	perm := seqI64(kr)
	perm[kr-2], perm[kr-1] = perm[kr-1], perm[kr-2]
	attn, err := matmulValues(c, qc, emitTranspose(c, kc, perm))
	if err != nil {
		return nil, nil, err
	}
	shape := c.Shape(attn)
	attn = c.Binary("multiply", attn, c.Splat(cdt, shape, scale))
	ninf := c.Splat(cdt, shape, math.Inf(-1))
	if causal {
		ls := []int64{L, S}
		keep := c.Compare("LE", c.Iota(dtype.I64, ls, 1), c.Iota(dtype.I64, ls, 0))
		attn = c.Select(c.BroadcastTo(keep, shape), attn, ninf)
	}
	if mask != nil {
		ms := c.Shape(mask)
		bs, err := broadcastShapes(ms, shape)
		if err != nil || !sameShape(bs, shape) {
			return nil, nil, c.Errorf("scaled_dot_product_attention: attn_mask of shape %v does not broadcast to %v", ms, shape)
		}
		if c.DType(mask) == dtype.Bool {
			attn = c.Select(c.BroadcastTo(mask, shape), attn, ninf)
		} else {
			attn = c.Binary("add", attn, c.BroadcastTo(c.Convert(mask, cdt), shape))
		}
	}
	p := softmaxAlong(c, attn, len(shape)-1, false, true)
	if (dt == dtype.BF16 || dt == dtype.F16) && len(shape) == 4 {
		return sdpaHalf(c, attn, p, vc, dt)
	}
	o, err := matmulValues(c, p, vc)
	if err != nil {
		return nil, nil, err
	}
	return c.Convert(o, dt), c.Convert(p, dt), nil
}

// sdpaHalf is PyTorch's CPU flash-attention kernel for half types (4-D,
// one key block: S ≤ 512): exp(s - max) in float32, rounded to the half
// type for the product with v, summed unrounded; the output is divided by
// the sum last. Fully masked rows give zeros, as the safe softmax does.
func sdpaHalf(c *LowerCtx, attn, p, vc *stablehlo.Value, dt dtype.DType) (out, weights *stablehlo.Value, err error) {
	shape := c.Shape(attn)
	d := len(shape) - 1
	dims := []int64{int64(d)}
	m := reduceInit(c, attn, dims, "maximum", lowestConst(c, c.DType(attn)))
	mb := c.BroadcastInDim(m, shape, dropDim(len(shape), d))
	e := c.Unary("exponential", c.Binary("subtract", attn, mb))
	e = c.Select(c.Compare("EQ", mb, c.Like(mb, math.Inf(-1))), c.Like(e, 0), e)
	sum := c.Reduce(e, dims, "add", 0)
	o, err := matmulValues(c, c.Convert(c.Convert(e, dt), c.DType(attn)), vc)
	if err != nil {
		return nil, nil, err
	}
	os := c.Shape(o)
	sb := c.BroadcastInDim(sum, os, dropDim(len(os), len(os)-1))
	o = c.Binary("divide", o, sb)
	o = c.Select(c.Compare("EQ", sb, c.Like(sb, 0)), c.Like(o, 0), o)
	return c.Convert(o, dt), c.Convert(p, dt), nil
}

// repeatInterleaveDim repeats each slice along d r times in place.
func repeatInterleaveDim(c *LowerCtx, x *stablehlo.Value, d int, r int64) *stablehlo.Value {
	if r == 1 {
		return x
	}
	shape := c.Shape(x)
	mid := append(append(append([]int64(nil), shape[:d+1]...), r), shape[d+1:]...)
	dims := make([]int64, 0, len(shape))
	for i := range shape {
		if i <= d {
			dims = append(dims, int64(i))
		} else {
			dims = append(dims, int64(i+1))
		}
	}
	b := c.BroadcastInDim(x, mid, dims)
	out := append([]int64(nil), shape...)
	out[d] *= r
	return c.Reshape(b, out)
}
