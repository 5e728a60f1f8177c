package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The fused attention ops (the CPU flash kernel, CUDA's flash, memory-
// efficient and cuDNN kernels, the overrideable op of out-of-tree devices)
// all compute softmax(scale·q·kᵀ + bias)·v over [batch, heads, seq, dim]
// tensors and save the log-sum-exp of each query's scores for their
// backward. attnProblem is that computation, shared by their forward and
// backward lowerings, which differ only in layout, in which auxiliary
// outputs they return, and in the shapes of those outputs.
//
// Semantics follow PyTorch's CPU flash kernel
// (aten/src/ATen/native/cpu/FlashAttentionKernel.cpp), the only fused
// kernel whose outputs PyTorch produces on a CPU:
//   - the bias (attn_mask) is added after scaling; a boolean mask keeps
//     the True positions;
//   - causal masking is top-left (query i sees keys j ≤ i) unless
//     bottomRight (query i sees keys j ≤ i + S - L, as CUDA's kernels do
//     for their bottom-right mask type);
//   - a fully masked row has output 0 and log-sum-exp 0 (the kernel takes
//     a row max of -inf as 0 and a row sum of 0 as 1);
//   - the backward recomputes the probabilities as exp(score - lse) from
//     the saved lse, and the row term D = Σ grad_out·out from the saved out;
//   - float16/bfloat16 compute in float32; the probabilities (forward) and
//     the probability gradients (backward) are rounded to the half type
//     before their matrix products, as the kernel's reduced buffers are;
//   - key/value heads may divide the query heads (grouped-query attention):
//     query head h reads key head h/(Hq/Hk); key and value gradients sum
//     over each group.

type attnProblem struct {
	op      string           // the op's name, for errors
	q, k, v *stablehlo.Value // [B, Hq, L, E], [B, Hk, S, E], [B, Hk, S, Ev]
	bias    *stablehlo.Value // nil, or additive/boolean, broadcastable to [B, Hq, L, S]
	causal  bool
	// bottomRight aligns the causal mask with the last key (CUDA's
	// custom_mask_type 2).
	bottomRight bool
	scale       float64
	hasScale    bool
}

// check validates the operands and fills in the default scale.
func (p *attnProblem) check(c *LowerCtx) error {
	qs, ks, vs := c.Shape(p.q), c.Shape(p.k), c.Shape(p.v)
	if len(qs) != 4 || len(ks) != 4 || len(vs) != 4 {
		return c.Errorf("%s: query, key and value must be 4-D [batch, heads, seq, dim], got %v, %v, %v", p.op, qs, ks, vs)
	}
	dt := c.DType(p.q)
	if !dt.IsFloat() || c.DType(p.k) != dt || c.DType(p.v) != dt {
		return c.Errorf("%s: query, key and value must have one float dtype, got %s, %s, %s", p.op, dt.Torch(), c.DType(p.k).Torch(), c.DType(p.v).Torch())
	}
	if ks[0] != qs[0] || vs[0] != qs[0] || ks[2] != vs[2] || ks[1] != vs[1] || ks[3] != qs[3] {
		return c.Errorf("%s: query %v, key %v and value %v do not match (batch, key/value heads and sequence, query/key head size)", p.op, qs, ks, vs)
	}
	if ks[1] == 0 || qs[1]%ks[1] != 0 {
		return c.Errorf("%s: number of query heads %d is not a multiple of key/value heads %d", p.op, qs[1], ks[1])
	}
	if p.bias != nil {
		want := []int64{qs[0], qs[1], qs[2], ks[2]}
		if bs, err := broadcastShapes(c.Shape(p.bias), want); err != nil || !sameShape(bs, want) {
			return c.Errorf("%s: attention mask of shape %v does not broadcast to %v", p.op, c.Shape(p.bias), want)
		}
	}
	if !p.hasScale {
		p.scale = 1 / math.Sqrt(float64(qs[3]))
	}
	return nil
}

func (p *attnProblem) dtype(c *LowerCtx) dtype.DType { return c.DType(p.q) }

// group is Hq/Hk, the query heads that share one key/value head.
func (p *attnProblem) group(c *LowerCtx) int64 { return c.Shape(p.q)[1] / c.Shape(p.k)[1] }

// scoreShape is [B, Hq, L, S].
func (p *attnProblem) scoreShape(c *LowerCtx) []int64 {
	qs, ks := c.Shape(p.q), c.Shape(p.k)
	return []int64{qs[0], qs[1], qs[2], ks[2]}
}

// heads repeats a key/value operand (already in the compute dtype) to the
// query heads.
func (p *attnProblem) heads(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return repeatInterleaveDim(c, x, 1, p.group(c))
}

// ungroup sums a gradient over the query heads of each key/value head.
func (p *attnProblem) ungroup(c *LowerCtx, g *stablehlo.Value) *stablehlo.Value {
	r := p.group(c)
	if r == 1 {
		return g
	}
	s := c.Shape(g)
	g = c.Reshape(g, []int64{s[0], s[1] / r, r, s[2], s[3]})
	return c.Reduce(g, []int64{2}, "add", 0)
}

// bmm multiplies [B, H, m, k]-shaped operands over the batch and head
// dims; lc and rc name the contracted dims (2 or 3) of each.
func bmm4(c *LowerCtx, x, y *stablehlo.Value, lc, rc int64) *stablehlo.Value {
	return dotGeneral(c, x, y, []int64{0, 1}, []int64{0, 1}, []int64{lc}, []int64{rc})
}

// scores returns scale·q·kᵀ + bias in the compute dtype with the causal
// positions at -inf, and the compute-dtype q and (head-repeated) k and v.
func (p *attnProblem) scores(c *LowerCtx) (s, q, k, v *stablehlo.Value) {
	cdt := OpMath(p.dtype(c))
	q = c.Convert(p.q, cdt)
	k = p.heads(c, c.Convert(p.k, cdt))
	v = p.heads(c, c.Convert(p.v, cdt))
	s = bmm4(c, q, k, 3, 3)
	shape := c.Shape(s)
	s = c.Binary("multiply", s, c.Splat(cdt, shape, p.scale))
	ninf := c.Splat(cdt, shape, math.Inf(-1))
	if p.bias != nil {
		if c.DType(p.bias) == dtype.Bool {
			s = c.Select(c.BroadcastTo(p.bias, shape), s, ninf)
		} else {
			s = c.Binary("add", s, c.BroadcastTo(c.Convert(p.bias, cdt), shape))
		}
	}
	if p.causal {
		s = c.Select(c.BroadcastTo(p.causalKeep(c), shape), s, ninf)
	}
	return s, q, k, v
}

// causalKeep is the [L, S] predicate of the positions a causal mask keeps.
func (p *attnProblem) causalKeep(c *LowerCtx) *stablehlo.Value {
	shape := p.scoreShape(c)
	L, S := shape[2], shape[3]
	ls := []int64{L, S}
	row := c.Iota(dtype.I64, ls, 0)
	if p.bottomRight {
		row = c.Binary("add", row, c.SplatInt(dtype.I64, ls, S-L))
	}
	return c.Compare("LE", c.Iota(dtype.I64, ls, 1), row)
}

// halfRound rounds a compute-dtype value through the op's half dtype (a
// no-op for float32 and float64 ops).
func (p *attnProblem) halfRound(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	dt := p.dtype(c)
	if dt == OpMath(dt) {
		return x
	}
	return c.Convert(c.Convert(x, dt), c.DType(x))
}

// forward returns the output [B, Hq, L, Ev] in the op's dtype and the
// log-sum-exp [B, Hq, L] in the compute dtype.
func (p *attnProblem) forward(c *LowerCtx) (out, lse *stablehlo.Value) {
	s, _, _, v := p.scores(c)
	shape := c.Shape(s)
	cdt := c.DType(s)
	rows := shape[:3]
	last := []int64{3}
	keep := []int64{0, 1, 2}
	m := reduceInit(c, s, last, "maximum", lowestConst(c, cdt))
	m = c.Select(c.Compare("EQ", m, c.Splat(cdt, rows, math.Inf(-1))), c.Splat(cdt, rows, 0), m)
	e := c.Unary("exponential", c.Binary("subtract", s, c.BroadcastInDim(m, shape, keep)))
	sum := c.Reduce(e, last, "add", 0)
	sum = c.Select(c.Compare("EQ", sum, c.Splat(cdt, rows, 0)), c.Splat(cdt, rows, 1), sum)
	o := bmm4(c, p.halfRound(c, e), v, 3, 2)
	o = c.Binary("divide", o, c.BroadcastInDim(sum, c.Shape(o), keep))
	lse = c.Binary("add", m, c.Unary("log", sum))
	return c.Convert(o, p.dtype(c)), lse
}

// backward returns the gradients of q, k and v (in the op's dtype) and of
// the score bias ([B, Hq, L, S], compute dtype) from the output gradient,
// the saved output and the saved log-sum-exp [B, Hq, L] (any float dtype).
func (p *attnProblem) backward(c *LowerCtx, gout, out, lse *stablehlo.Value) (dq, dk, dv, dbias *stablehlo.Value, err error) {
	os := c.Shape(p.q)
	os = []int64{os[0], os[1], os[2], c.Shape(p.v)[3]}
	if !sameShape(c.Shape(gout), os) || !sameShape(c.Shape(out), os) {
		return nil, nil, nil, nil, c.Errorf("%s: grad_out %v and out %v must have the output's shape %v", p.op, c.Shape(gout), c.Shape(out), os)
	}
	if ls := c.Shape(lse); len(ls) != 3 || !sameShape(ls, os[:3]) {
		return nil, nil, nil, nil, c.Errorf("%s: logsumexp of shape %v, expected %v (batch, heads, query length)", p.op, ls, os[:3])
	}
	dt := p.dtype(c)
	s, q, k, v := p.scores(c)
	shape := c.Shape(s)
	cdt := c.DType(s)
	keep := []int64{0, 1, 2}
	attn := c.Unary("exponential", c.Binary("subtract", s, c.BroadcastInDim(c.Convert(lse, cdt), shape, keep)))
	g := c.Convert(gout, cdt)
	o := c.Convert(out, cdt)
	d := c.Reduce(c.Binary("multiply", g, o), []int64{3}, "add", 0)
	dvFull := bmm4(c, p.halfRound(c, attn), g, 2, 2) // [B, Hq, S, Ev]
	ga := bmm4(c, g, v, 3, 3)                        // [B, Hq, L, S]
	ds := c.Binary("multiply", attn, c.Binary("subtract", ga, c.BroadcastInDim(d, shape, keep)))
	dsr := p.halfRound(c, ds)
	sc := func(x *stablehlo.Value) *stablehlo.Value {
		return c.Binary("multiply", x, c.Splat(cdt, c.Shape(x), p.scale))
	}
	dq = sc(bmm4(c, dsr, k, 3, 2))      // [B, Hq, L, E]
	dkFull := sc(bmm4(c, dsr, q, 2, 2)) // [B, Hq, S, E]
	dq = c.Convert(dq, dt)
	dk = c.Convert(p.ungroup(c, dkFull), dt)
	dv = c.Convert(p.ungroup(c, dvFull), dt)
	return dq, dk, dv, ds, nil
}

// transpose12 swaps dims 1 and 2 of a 4-D value ([B, L, H, E] ↔ [B, H, L, E]).
func transpose12(c *LowerCtx, x *stablehlo.Value) *stablehlo.Value {
	return emitTranspose(c, x, []int64{0, 2, 1, 3})
}

// requireNoDropout rejects a nonzero dropout probability: the fused
// kernels draw their dropout mask from a device generator (CUDA's philox)
// that no other device reproduces.
func requireNoDropout(c *LowerCtx, op string, p float64) error {
	if p != 0 {
		return c.Errorf("%s with dropout_p=%g draws its dropout mask from the kernel's own generator: %w", op, p, ErrUnsupported)
	}
	return nil
}
