package aten

// _scaled_dot_product_flash_attention_for_cpu and its backward: what
// scaled_dot_product_attention runs on CPU tensors (and what
// torch.compile's graphs hold for it). The output is [B, H, L, E]; the
// log-sum-exp is [B, H, L] in the compute dtype (float32 for half types).
// The layouts PyTorch gives them (lse strided as [B, L, H], the
// gradients as [B, L, H, E]) are the caller's to apply: the engine's
// values are dense.

func init() {
	Register(Entry{Name: "aten::_scaled_dot_product_flash_attention_for_cpu", Kind: Lowered,
		Schema: "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float dropout_p=0.0, bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor output, Tensor logsumexp)",
		Lower:  lowerFlashCPU})
	Register(Entry{Name: "aten::_scaled_dot_product_flash_attention_for_cpu_backward", Kind: Lowered,
		Schema: "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor grad_value)",
		Lower:  lowerFlashCPUBackward})
}

func flashCPUProblem(c *LowerCtx, a *Args, op string) (*attnProblem, error) {
	p := &attnProblem{op: op, q: a.Tensor("query"), k: a.Tensor("key"), v: a.Tensor("value"),
		bias: a.OptTensor("attn_mask"), causal: a.Bool("is_causal")}
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
	if vs, qs := c.Shape(p.v), c.Shape(p.q); vs[3] != qs[3] {
		return nil, c.Errorf("%s: query, key and value should have the same head size, got %d and %d", op, qs[3], vs[3])
	}
	return p, nil
}

func lowerFlashCPU(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := flashCPUProblem(c, a, "_scaled_dot_product_flash_attention_for_cpu")
	if err != nil {
		return nil, err
	}
	out, lse := p.forward(c)
	return []Value{TensorValue(out), TensorValue(lse)}, nil
}

func lowerFlashCPUBackward(c *LowerCtx, a *Args) ([]Value, error) {
	p, err := flashCPUProblem(c, a, "_scaled_dot_product_flash_attention_for_cpu_backward")
	if err != nil {
		return nil, err
	}
	dq, dk, dv, _, err := p.backward(c, a.Tensor("grad_out"), a.Tensor("out"), a.Tensor("logsumexp"))
	if err != nil {
		return nil, err
	}
	return []Value{TensorValue(dq), TensorValue(dk), TensorValue(dv)}, nil
}
