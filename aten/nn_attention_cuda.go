package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The fused attention ops of other devices, which programs exported or
// compiled on them carry: CUDA's flash (_scaled_dot_product_flash_attention,
// _flash_attention_forward), memory-efficient
// (_scaled_dot_product_efficient_attention, _efficient_attention_forward)
// and cuDNN kernels, and the overrideable op out-of-tree devices implement
// (_scaled_dot_product_fused_attention_overrideable), each with its
// backward. Values are attnProblem's (nn_attention_core.go); shapes and
// dtypes of every output are those of PyTorch's meta kernels
// (torch/_meta_registrations.py), so that a backward reading a saved
// output finds what its own kernel would have saved:
//   - log-sum-exp is float32: [B, H, L] (flash, overrideable), [B, H, L, 1]
//     (cuDNN), [B, H, ⌈L/32⌉·32] (memory-efficient, its padding rows +inf
//     as the CUTLASS kernel writes them; [B, H, 0] without
//     compute_log_sumexp);
//   - random-state outputs (philox seed and offset, rng_state, unused)
//     are zeros of their meta shapes: no dropout is drawn (dropout_p must
//     be 0), and the backward ignores them;
//   - cum_seq_q/cum_seq_k and a debug mask not asked for are None or
//     empty, as the meta kernels return them; max_q/max_k are L and S.
// The low-level _flash_attention_* and _efficient_attention_* take
// [B, L, H, E] operands; variable-length batches (cu_seqlens), sliding
// windows, ALiBi slopes and paged key/value caches are not lowered.

func init() {
	Register(Entry{Name: "aten::_scaled_dot_product_efficient_attention", Kind: Lowered,
		Schema: "_scaled_dot_product_efficient_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, *, float? scale=None) -> (Tensor output, Tensor log_sumexp, Tensor philox_seed, Tensor philox_offset)",
		Lower:  lowerEfficientSDPA})
	Register(Entry{Name: "aten::_scaled_dot_product_efficient_attention_backward", Kind: Lowered,
		Schema: "_scaled_dot_product_efficient_attention_backward(Tensor grad_out_, Tensor query, Tensor key, Tensor value, Tensor attn_bias, Tensor out, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, float dropout_p, bool[4] grad_input_mask, bool is_causal=False, *, float? scale=None) -> (Tensor, Tensor, Tensor, Tensor)",
		Lower:  lowerEfficientSDPABackward})
	Register(Entry{Name: "aten::_scaled_dot_product_flash_attention", Kind: Lowered,
		Schema: "_scaled_dot_product_flash_attention(Tensor query, Tensor key, Tensor value, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor rng_state, Tensor unused, Tensor debug_attn_mask)",
		Lower:  lowerFlashSDPA})
	Register(Entry{Name: "aten::_scaled_dot_product_flash_attention_backward", Kind: Lowered,
		Schema: "_scaled_dot_product_flash_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor philox_seed, Tensor philox_offset, *, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)",
		Lower:  lowerFlashSDPABackward})
	Register(Entry{Name: "aten::_scaled_dot_product_cudnn_attention", Kind: Lowered,
		Schema: "_scaled_dot_product_cudnn_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_bias, bool compute_log_sumexp, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)",
		Lower:  lowerCudnnSDPA})
	Register(Entry{Name: "aten::_scaled_dot_product_cudnn_attention_backward", Kind: Lowered,
		Schema: "_scaled_dot_product_cudnn_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, Tensor attn_bias, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, *, float? scale=None) -> (Tensor, Tensor, Tensor)",
		Lower:  lowerCudnnSDPABackward})
	Register(Entry{Name: "aten::_scaled_dot_product_fused_attention_overrideable", Kind: Lowered,
		Schema: "_scaled_dot_product_fused_attention_overrideable(Tensor query, Tensor key, Tensor value, Tensor? attn_bias=None, float dropout_p=0., bool is_causal=False, bool return_debug_mask=False, *, float? scale=None) -> (Tensor output, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, Tensor philox_seed, Tensor philox_offset, Tensor debug_attn_mask)",
		Lower:  lowerOverrideableSDPA})
	Register(Entry{Name: "aten::_scaled_dot_product_fused_attention_overrideable_backward", Kind: Lowered,
		Schema: "_scaled_dot_product_fused_attention_overrideable_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor attn_bias, bool[4] grad_input_mask, Tensor out, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor philox_seed, Tensor philox_offset, *, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value, Tensor grad_attn_bias)",
		Lower:  lowerOverrideableSDPABackward})
	Register(Entry{Name: "aten::_flash_attention_forward", Kind: Lowered,
		Schema: "_flash_attention_forward(Tensor query, Tensor key, Tensor value, Tensor? cum_seq_q, Tensor? cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, bool return_debug_mask, *, float? scale=None, SymInt? window_size_left=None, SymInt? window_size_right=None, Tensor? seqused_k=None, Tensor? alibi_slopes=None, Tensor? block_table=None, int? num_splits=None) -> (Tensor output, Tensor softmax_logsumexp, Tensor rng_state, Tensor unused, Tensor debug_attn_mask)",
		Lower:  lowerFlashForward})
	Register(Entry{Name: "aten::_flash_attention_backward", Kind: Lowered,
		Schema: "_flash_attention_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, Tensor cum_seq_q, Tensor cum_seq_k, SymInt max_q, SymInt max_k, float dropout_p, bool is_causal, Tensor rng_state, Tensor unused, *, float? scale=None, SymInt? window_size_left=None, SymInt? window_size_right=None) -> (Tensor, Tensor, Tensor)",
		Lower:  lowerFlashBackward})
	Register(Entry{Name: "aten::_efficient_attention_forward", Kind: Lowered,
		Schema: "_efficient_attention_forward(Tensor query, Tensor key, Tensor value, Tensor? bias, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, SymInt? max_seqlen_q, SymInt? max_seqlen_k, float dropout_p, int custom_mask_type, bool compute_log_sumexp=False, *, float? scale=None, Tensor? seqlen_k=None, int? window_size=None) -> (Tensor output, Tensor logsumexp, Tensor philox_seed, Tensor philox_offset, SymInt max_seqlen_batch_q, SymInt max_seqlen_batch_k)",
		Lower:  lowerEfficientForward})
	Register(Entry{Name: "aten::_efficient_attention_backward", Kind: Lowered,
		Schema: "_efficient_attention_backward(Tensor grad_out_, Tensor query, Tensor key, Tensor value, Tensor? bias, Tensor out, Tensor? cu_seqlens_q, Tensor? cu_seqlens_k, SymInt max_seqlen_q, SymInt max_seqlen_k, Tensor logsumexp, float dropout_p, Tensor philox_seed, Tensor philox_offset, int custom_mask_type, bool bias_requires_grad, *, float? scale=None, int? num_splits_key=None, int? window_size=None, bool shared_storage_dqdkdv=False) -> (Tensor, Tensor, Tensor, Tensor)",
		Lower:  lowerEfficientBackward})
}

// sdpaProblem reads the operands common to the [B, H, L, E] ops; biasArg
// names the additive mask parameter ("" when the op has none).
func sdpaProblem(c *LowerCtx, a *Args, op, biasArg string) (*attnProblem, error) {
	p := &attnProblem{op: op, q: a.Tensor("query"), k: a.Tensor("key"), v: a.Tensor("value"), causal: a.Bool("is_causal")}
	if biasArg != "" {
		p.bias = a.OptTensor(biasArg)
	}
	p.scale, p.hasScale = a.OptFloat("scale")
	dropout := a.Float("dropout_p")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if err := requireNoDropout(c, op, dropout); err != nil {
		return nil, err
	}
	if err := p.check(c); err != nil {
		return nil, err
	}
	return p, nil
}

// zeros is a zero-filled constant of a meta shape.
func zeros(c *LowerCtx, dt dtype.DType, shape ...int64) *stablehlo.Value {
	return c.Splat(dt, shape, 0)
}

// noDebugMask rejects return_debug_mask=True: the mask CUDA returns
// encodes its dropout draws, which no other device reproduces.
func noDebugMask(c *LowerCtx, a *Args, op string) error {
	if a.Bool("return_debug_mask") {
		return c.Errorf("%s with return_debug_mask=True returns the CUDA kernel's dropout encoding: %w", op, ErrUnsupported)
	}
	return a.Err()
}

// efficientLSE pads a [B, H, L] log-sum-exp to ⌈L/32⌉·32 rows with +inf
// (or to none, without compute_log_sumexp), in float32.
func efficientLSE(c *LowerCtx, lse *stablehlo.Value, compute bool) *stablehlo.Value {
	s := c.Shape(lse)
	lse = c.Convert(lse, dtype.F32)
	if !compute {
		return zeros(c, dtype.F32, s[0], s[1], 0)
	}
	pad := (s[2]+31)/32*32 - s[2]
	if pad == 0 {
		return lse
	}
	return emitPad(c, lse, c.Splat(dtype.F32, nil, math.Inf(1)), []int64{0, 0, 0}, []int64{0, 0, pad})
}

// lseRows reads a saved log-sum-exp back as [B, H, L]: the first L rows of
// a padded one, the squeezed trailing dim of cuDNN's.
func lseRows(c *LowerCtx, p *attnProblem, lse *stablehlo.Value) (*stablehlo.Value, error) {
	qs := c.Shape(p.q)
	want := qs[:3]
	s := c.Shape(lse)
	switch {
	case len(s) == 4 && s[3] == 1 && sameShape(s[:3], want):
		return c.Reshape(lse, want), nil
	case len(s) == 3 && s[0] == want[0] && s[1] == want[1] && s[2] >= want[2]:
		if s[2] > want[2] {
			lse = sliceDim(c, lse, 2, 0, want[2], 1)
		}
		return lse, nil
	}
	return nil, c.Errorf("%s: logsumexp of shape %v does not hold [batch, heads, query length] = %v", p.op, s, want)
}

// gradMask reads bool[4] grad_input_mask.
func gradMask(a *Args) []bool { return maskArg(a, "grad_input_mask", 4) }

func lowerEfficientSDPA(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_scaled_dot_product_efficient_attention"
	p, err := sdpaProblem(c, a, op, "attn_bias")
	if err != nil {
		return nil, err
	}
	compute := a.Bool("compute_log_sumexp")
	out, lse := p.forward(c)
	return []Value{TensorValue(out), TensorValue(efficientLSE(c, lse, compute)),
		TensorValue(zeros(c, dtype.I64)), TensorValue(zeros(c, dtype.I64))}, a.Err()
}

func lowerEfficientSDPABackward(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := sdpaProblem(c, a, "_scaled_dot_product_efficient_attention_backward", "attn_bias")
	if err != nil {
		return nil, err
	}
	return attnBackwardValues(c, a, p, "grad_out_", withBiasGrad(gradMask(a)[3]))
}

// biasGrad says whether a backward op returns a fourth value, the bias
// gradient, and whether it is asked for.
type biasGrad int

const (
	noBiasGrad     biasGrad = iota // three gradients
	biasGradNone                   // a fourth value, None
	biasGradWanted                 // a fourth value, computed when there is a bias
)

func withBiasGrad(wanted bool) biasGrad {
	if wanted {
		return biasGradWanted
	}
	return biasGradNone
}

// attnBackwardValues runs the backward of a [B, H, L, E] op and returns
// its gradients: query, key, value and, as bg says, the bias's (in the
// op's dtype) or None.
func attnBackwardValues(c *LowerCtx, a *Args, p *attnProblem, goutArg string, bg biasGrad) ([]Value, error) {
	lse, err := lseRows(c, p, a.Tensor("logsumexp"))
	if err != nil {
		return nil, err
	}
	dq, dk, dv, ds, err := p.backward(c, a.Tensor(goutArg), a.Tensor("out"), lse)
	if err != nil {
		return nil, err
	}
	res := []Value{TensorValue(dq), TensorValue(dk), TensorValue(dv)}
	if bg == noBiasGrad {
		return res, a.Err()
	}
	if bg == biasGradWanted && p.bias != nil {
		res = append(res, TensorValue(c.Convert(ds, p.dtype(c))))
	} else {
		res = append(res, None())
	}
	return res, a.Err()
}

// flashOutputs are the nine outputs of the flash-style SDPA ops: output,
// logsumexp, cum_seq_q, cum_seq_k, max_q, max_k, two random-state tensors
// and the debug mask.
func flashOutputs(c *LowerCtx, p *attnProblem, out, lse, seed, offset, debug *stablehlo.Value) []Value {
	qs, ks := c.Shape(p.q), c.Shape(p.k)
	dbg := None()
	if debug != nil {
		dbg = TensorValue(debug)
	}
	return []Value{TensorValue(out), TensorValue(lse), None(), None(), IntValue(qs[2]), IntValue(ks[2]),
		TensorValue(seed), TensorValue(offset), dbg}
}

func lowerFlashSDPA(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_scaled_dot_product_flash_attention"
	if err := noDebugMask(c, a, op); err != nil {
		return nil, err
	}
	p, err := sdpaProblem(c, a, op, "")
	if err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	dt := p.dtype(c)
	return flashOutputs(c, p, out, c.Convert(lse, dtype.F32), zeros(c, dtype.U64, 2), zeros(c, dtype.U64), zeros(c, dt, 0)), nil
}

func lowerFlashSDPABackward(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := sdpaProblem(c, a, "_scaled_dot_product_flash_attention_backward", "")
	if err != nil {
		return nil, err
	}
	return attnBackwardValues(c, a, p, "grad_out", noBiasGrad)
}

func lowerCudnnSDPA(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_scaled_dot_product_cudnn_attention"
	if err := noDebugMask(c, a, op); err != nil {
		return nil, err
	}
	p, err := sdpaProblem(c, a, op, "attn_bias")
	if err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	s := c.Shape(lse)
	lse = c.Reshape(c.Convert(lse, dtype.F32), []int64{s[0], s[1], s[2], 1})
	return flashOutputs(c, p, out, lse, zeros(c, dtype.I64), zeros(c, dtype.I64), nil), nil
}

func lowerCudnnSDPABackward(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := sdpaProblem(c, a, "_scaled_dot_product_cudnn_attention_backward", "attn_bias")
	if err != nil {
		return nil, err
	}
	return attnBackwardValues(c, a, p, "grad_out", noBiasGrad)
}

func lowerOverrideableSDPA(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_scaled_dot_product_fused_attention_overrideable"
	if err := noDebugMask(c, a, op); err != nil {
		return nil, err
	}
	p, err := sdpaProblem(c, a, op, "attn_bias")
	if err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	return flashOutputs(c, p, out, c.Convert(lse, dtype.F32), zeros(c, dtype.I64), zeros(c, dtype.I64), nil), nil
}

func lowerOverrideableSDPABackward(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := sdpaProblem(c, a, "_scaled_dot_product_fused_attention_overrideable_backward", "attn_bias")
	if err != nil {
		return nil, err
	}
	return attnBackwardValues(c, a, p, "grad_out", withBiasGrad(gradMask(a)[3]))
}

// blhe reads the [B, L, H, E] operands of the low-level kernels as an
// attnProblem over [B, H, L, E], rejecting what is not lowered.
func blhe(c *LowerCtx, a *Args, op string, unsupported ...string) (*attnProblem, error) {
	for _, name := range unsupported {
		if a.Has(name) && !a.Value(name).IsNone() {
			if v := a.Value(name); v.Kind == KInt && v.I < 0 {
				continue // a window of -1 is no window
			}
			return nil, c.Errorf("%s with %s: %w", op, name, ErrUnsupported)
		}
	}
	p := &attnProblem{op: op}
	for _, n := range []string{"query", "key", "value"} {
		x := a.Tensor(n)
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(x) != 4 {
			return nil, c.Errorf("%s: %s must be 4-D [batch, seq, heads, dim], got %v", op, n, c.Shape(x))
		}
		switch n {
		case "query":
			p.q = transpose12(c, x)
		case "key":
			p.k = transpose12(c, x)
		default:
			p.v = transpose12(c, x)
		}
	}
	p.scale, p.hasScale = a.OptFloat("scale")
	if err := requireNoDropout(c, op, a.Float("dropout_p")); err != nil {
		return nil, err
	}
	return p, a.Err()
}

// flashCausal is the low-level flash kernel's causal mask: aligned to the
// bottom right when the query and key lengths differ (FlashAttention 2).
func flashCausal(a *Args, p *attnProblem) {
	p.causal = a.Bool("is_causal")
	p.bottomRight = p.causal
}

func lowerFlashForward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_flash_attention_forward"
	if err := noDebugMask(c, a, op); err != nil {
		return nil, err
	}
	p, err := blhe(c, a, op, "cum_seq_q", "cum_seq_k", "window_size_left", "window_size_right", "seqused_k", "alibi_slopes", "block_table")
	if err != nil {
		return nil, err
	}
	flashCausal(a, p)
	if err := p.check(c); err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	return []Value{TensorValue(transpose12(c, out)), TensorValue(c.Convert(lse, dtype.F32)),
		TensorValue(zeros(c, dtype.U64, 2)), TensorValue(zeros(c, dtype.U64)), TensorValue(zeros(c, p.dtype(c), 0))}, a.Err()
}

func lowerFlashBackward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_flash_attention_backward"
	p, err := blhe(c, a, op, "window_size_left", "window_size_right")
	if err != nil {
		return nil, err
	}
	flashCausal(a, p)
	if err := p.check(c); err != nil {
		return nil, err
	}
	lse, err := lseRows(c, p, a.Tensor("logsumexp"))
	if err != nil {
		return nil, err
	}
	dq, dk, dv, _, err := p.backward(c, transpose12(c, a.Tensor("grad_out")), transpose12(c, a.Tensor("out")), lse)
	if err != nil {
		return nil, err
	}
	return []Value{TensorValue(transpose12(c, dq)), TensorValue(transpose12(c, dk)), TensorValue(transpose12(c, dv))}, nil
}

// efficientMask applies custom_mask_type: 0 none, 1 causal from the top
// left, 2 causal from the bottom right.
func efficientMask(c *LowerCtx, a *Args, p *attnProblem) error {
	switch t := a.Int("custom_mask_type"); t {
	case 0:
	case 1:
		p.causal = true
	case 2:
		p.causal, p.bottomRight = true, true
	default:
		return c.Errorf("%s: custom_mask_type %d is not 0, 1 or 2", p.op, t)
	}
	return a.Err()
}

func lowerEfficientForward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_efficient_attention_forward"
	p, err := blhe(c, a, op, "cu_seqlens_q", "cu_seqlens_k", "seqlen_k", "window_size")
	if err != nil {
		return nil, err
	}
	p.bias = a.OptTensor("bias")
	if err := efficientMask(c, a, p); err != nil {
		return nil, err
	}
	if err := p.check(c); err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	qs, ks := c.Shape(p.q), c.Shape(p.k)
	return []Value{TensorValue(transpose12(c, out)), TensorValue(efficientLSE(c, lse, a.Bool("compute_log_sumexp"))),
		TensorValue(zeros(c, dtype.I64)), TensorValue(zeros(c, dtype.I64)), IntValue(qs[2]), IntValue(ks[2])}, a.Err()
}

func lowerEfficientBackward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_efficient_attention_backward"
	p, err := blhe(c, a, op, "cu_seqlens_q", "cu_seqlens_k", "window_size")
	if err != nil {
		return nil, err
	}
	p.bias = a.OptTensor("bias")
	if err := efficientMask(c, a, p); err != nil {
		return nil, err
	}
	if err := p.check(c); err != nil {
		return nil, err
	}
	lse, err := lseRows(c, p, a.Tensor("logsumexp"))
	if err != nil {
		return nil, err
	}
	dq, dk, dv, ds, err := p.backward(c, transpose12(c, a.Tensor("grad_out_")), transpose12(c, a.Tensor("out")), lse)
	if err != nil {
		return nil, err
	}
	db := None()
	if a.Bool("bias_requires_grad") && p.bias != nil {
		db = TensorValue(c.Convert(ds, p.dtype(c)))
	}
	return []Value{TensorValue(transpose12(c, dq)), TensorValue(transpose12(c, dk)), TensorValue(transpose12(c, dv)), db}, a.Err()
}
