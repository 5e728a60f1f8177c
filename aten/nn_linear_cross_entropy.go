package aten

// torch.nn.functional.linear_cross_entropy's chunked custom ops
// (torch/nn/modules/linear_cross_entropy.py): logits = input·Wᵀ + bias
// computed in acc_dtype, then cross_entropy over them. The chunking over
// the batch is a memory strategy only, so the lowering computes all rows at
// once. The reducing op also returns precomputed gradients; those are only
// produced when the graph was traced with compute_*_grad=false (empty
// placeholders), which is what an inference export has.

const (
	lceSchema      = "torch_nn::_linear_cross_entropy_batch_chunked(Tensor input, Tensor linear_weight, Tensor target, Tensor? linear_bias, Tensor? weight, str reduction, SymInt ignore_index, float label_smoothing, SymInt batch_chunk_size, str acc_policy, ScalarType acc_dtype, bool allow_retain_graph, bool compute_input_grad, bool compute_linear_weight_grad, bool compute_linear_bias_grad) -> (Tensor, Tensor, Tensor, Tensor)"
	lceNoRedSchema = "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction(Tensor input, Tensor linear_weight, Tensor target, Tensor? linear_bias, Tensor? weight, SymInt ignore_index, SymInt batch_chunk_size, str acc_policy, ScalarType acc_dtype) -> Tensor"
)

func init() {
	Register(Entry{Name: "torch_nn::_linear_cross_entropy_batch_chunked.default", Schema: lceSchema, Kind: Decomposed, Lower: lowerLinearCrossEntropy(true)})
	Register(Entry{Name: "torch_nn::_linear_cross_entropy_batch_chunked_no_reduction.default", Schema: lceNoRedSchema, Kind: Decomposed, Lower: lowerLinearCrossEntropy(false)})
}

func lowerLinearCrossEntropy(reducing bool) LowerFunc {
	return func(c *LowerCtx, a *Args) ([]Value, error) {
		x, w, t := a.Tensor("input"), a.Tensor("linear_weight"), a.Tensor("target")
		bias, cw := a.OptTensor("linear_bias"), a.OptTensor("weight")
		ignore := a.Int("ignore_index")
		acc := a.DType("acc_dtype")
		red, smoothing := int64(0), 0.0
		if reducing {
			smoothing = a.Float("label_smoothing")
			switch r := a.Str("reduction"); r {
			case "mean":
				red = 1
			case "sum":
				red = 2
			default:
				if a.Err() == nil {
					return nil, c.Errorf("linear_cross_entropy: reduction %q is not supported by the chunked op", r)
				}
			}
			for _, g := range []string{"compute_input_grad", "compute_linear_weight_grad", "compute_linear_bias_grad"} {
				if a.Bool(g) && a.Err() == nil {
					return nil, c.Errorf("linear_cross_entropy: %s=true (gradients precomputed in forward) is not supported", g)
				}
			}
		}
		if a.Err() != nil {
			return nil, a.Err()
		}
		dt := c.DType(x)
		if !dt.IsFloat() || !c.DType(w).IsFloat() || !acc.IsFloat() {
			return nil, c.Errorf("linear_cross_entropy: input %v, linear_weight %v and acc_dtype %v must be floating point", dt.Torch(), c.DType(w).Torch(), acc.Torch())
		}
		xs, ws := c.Shape(x), c.Shape(w)
		if len(xs) != 2 || len(ws) != 2 || xs[1] != ws[1] {
			return nil, c.Errorf("linear_cross_entropy: expected input [N, in] and linear_weight [C, in], got %v and %v", xs, ws)
		}
		if bias != nil && (c.Rank(bias) != 1 || c.Shape(bias)[0] != ws[0]) {
			return nil, c.Errorf("linear_cross_entropy: linear_bias of shape %v does not match %d classes", c.Shape(bias), ws[0])
		}
		cdt := acc
		if dt.Size() > cdt.Size() {
			cdt = dt
		}
		bv := None()
		if bias != nil {
			bv = TensorValue(c.Convert(bias, cdt))
		}
		logits, err := c.Call("aten::linear", []Value{TensorValue(c.Convert(x, cdt)), TensorValue(c.Convert(w, cdt)), bv}, nil)
		if err != nil {
			return nil, err
		}
		tv := TensorValue(t)
		if c.DType(t).IsFloat() {
			tv = TensorValue(c.Convert(t, cdt))
		}
		wv := None()
		if cw != nil {
			wv = TensorValue(c.Convert(cw, cdt))
		}
		out, err := c.Call("aten::cross_entropy_loss", []Value{logits[0], tv, wv, IntValue(red), IntValue(ignore), FloatValue(smoothing)}, nil)
		if err != nil {
			return nil, err
		}
		loss := c.Convert(out[0].T, dt)
		if !reducing {
			return one(loss), nil
		}
		empty := func(shape []int64) Value { return TensorValue(c.Splat(dt, shape, 0)) }
		return []Value{TensorValue(loss), empty([]int64{0, 0}), empty([]int64{0, 0}), empty([]int64{0})}, nil
	}
}
