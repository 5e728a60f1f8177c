package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

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
		Lower: softmaxBackward("_softmax_backward_data",
			func(c *LowerCtx, g, y *stablehlo.Value) *stablehlo.Value { return c.Binary("multiply", g, y) },
			func(c *LowerCtx, g, y, s *stablehlo.Value) *stablehlo.Value {
				return c.Binary("multiply", y, c.Binary("subtract", g, s)) // output·(grad - Σ grad·output)
			})})
}
