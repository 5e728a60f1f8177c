package aten

// _native_batch_norm_legit (Core ATen) writes running_mean and
// running_var in place (Tensor(a!), Tensor(b!)) and returns three other
// tensors (output, save_mean, save_rstd). Its lowering returns the new
// running statistics as two extra results after the schema's returns;
// Schema.MutationResults tells the runtime which result becomes the new
// value of each mutated argument, so a buffer passed as running_mean keeps
// its update after the run, as the module's state does in PyTorch.
//
// Training: batch statistics, running stats updated with momentum and the
// unbiased variance. Evaluation: running statistics normalise, and are
// left as they were. Both come from _native_batch_norm_legit_functional.

func init() {
	decomp("aten::_native_batch_norm_legit", lowerBatchNormLegit)
}

// MutationResults returns, for each mutable parameter in order, the index
// of the result that holds its new value: the return in the same alias set
// (add_'s Tensor(a!) self → Tensor(a!)), or, when no return aliases it, an
// extra result after the schema's returns, in parameter order.
func (s *Schema) MutationResults() []int {
	var out []int
	extra := len(s.Returns)
	for _, p := range s.Params {
		if !p.Mutable {
			continue
		}
		at := -1
		for i, r := range s.Returns {
			if p.Alias != "" && r.Alias == p.Alias {
				at = i
				break
			}
		}
		if at < 0 {
			at = extra
			extra++
		}
		out = append(out, at)
	}
	return out
}

// NumResults is the number of values a lowering returns: one per return,
// plus one per mutated argument that no return aliases.
func (s *Schema) NumResults() int {
	n := len(s.Returns)
	for _, i := range s.MutationResults() {
		if i >= len(s.Returns) {
			n++
		}
	}
	return n
}

func lowerBatchNormLegit(c *LowerCtx, a *Args) ([]Value, error) {
	kw := map[string]Value{}
	for _, n := range []string{"input", "weight", "bias", "running_mean", "running_var", "training", "momentum", "eps"} {
		kw[n] = a.Value(n)
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	res, err := c.Call("aten::_native_batch_norm_legit_functional", nil, kw)
	if err != nil {
		return nil, err
	}
	if len(res) != 5 {
		return nil, c.Errorf("_native_batch_norm_legit: functional form returned %d values, want 5", len(res))
	}
	// output, save_mean, save_rstd, then the new running_mean, running_var.
	return res, nil
}
