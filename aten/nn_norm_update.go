package aten

import "github.com/torchtpu/torchtpu/dtype"

// _batch_norm_with_update (training batch norm that updates the running
// statistics in place, what torch.export keeps for BatchNorm in training)
// and _softmax_backward_data.

func init() {
	Register(Entry{Name: "aten::_batch_norm_with_update", Kind: Decomposed, Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
		kw := map[string]Value{"training": BoolValue(true)}
		for _, n := range []string{"input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"} {
			kw[n] = a.Value(n)
		}
		out, err := c.Call("aten::_native_batch_norm_legit", nil, kw)
		if err != nil {
			return nil, err
		}
		if len(out) != 5 {
			return nil, c.Errorf("_native_batch_norm_legit returned %d values", len(out))
		}
		// (output, save_mean, save_rstd, reserve) + the new running stats.
		reserve := c.SplatInt(dtype.U8, []int64{0}, 0)
		return []Value{out[0], out[1], out[2], TensorValue(reserve), out[3], out[4]}, nil
	}})
	Register(Entry{Name: "aten::_softmax_backward_data", Kind: Lowered,
		Schema: "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor",
		Lower: func(c *LowerCtx, a *Args) ([]Value, error) {
			g, y := a.Tensor("grad_output"), a.Tensor("output")
			dim := a.Int("dim")
			in := a.DType("input_dtype")
			if a.Err() != nil {
				return nil, a.Err()
			}
			r := c.Rank(y)
			d, err := canonDim(dim, max(r, 1))
			if err != nil {
				return nil, c.Errorf("_softmax_backward_data: %w", err)
			}
			w := OpMath(c.DType(y))
			gw, yw := c.Convert(g, w), c.Convert(y, w)
			gy := c.Binary("multiply", gw, yw)
			if r == 0 {
				return one(c.Convert(c.Binary("multiply", yw, c.Binary("subtract", gw, gy)), in)), nil
			}
			s := c.BroadcastTo(c.Reshape(c.Reduce(gy, []int64{int64(d)}, "add", 0), keptShape(c.Shape(y), []int64{int64(d)}, true)), c.Shape(y))
			return one(c.Convert(c.Binary("multiply", yw, c.Binary("subtract", gw, s)), in)), nil
		}})
}
