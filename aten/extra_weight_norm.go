package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Weight normalisation (torch.nn.utils.weight_norm and its parametrization,
// as in wav2vec2's positional convolution): w = v · g / ‖v‖ with the norm
// over every dim but dim (all dims for dim = -1). _weight_norm_interface
// also returns the norms, shaped like g.

func init() {
	decomp("aten::_weight_norm", func(c *LowerCtx, a *Args) ([]Value, error) {
		w, _, err := weightNorm(c, a)
		if err != nil {
			return nil, err
		}
		return one(w.T), nil
	})
	decomp("aten::_weight_norm_interface", func(c *LowerCtx, a *Args) ([]Value, error) {
		w, norm, err := weightNorm(c, a)
		if err != nil {
			return nil, err
		}
		return []Value{w, norm}, nil
	})
	decomp("aten::norm_except_dim", func(c *LowerCtx, a *Args) ([]Value, error) {
		v, p, dim := a.Tensor("v"), a.Int("pow"), a.Int("dim")
		if a.Err() != nil {
			return nil, a.Err()
		}
		n, err := normExceptDim(c, v, p, dim)
		if err != nil {
			return nil, err
		}
		return []Value{n}, nil
	})
}

func weightNorm(c *LowerCtx, a *Args) (w, norm Value, err error) {
	v, g, dim := a.Tensor("v"), a.Tensor("g"), a.Int("dim")
	if a.Err() != nil {
		return Value{}, Value{}, a.Err()
	}
	norm, err = normExceptDim(c, v, 2, dim)
	if err != nil {
		return Value{}, Value{}, err
	}
	scale := c.Call1("aten::div.Tensor", TensorValue(g), norm)
	return TensorValue(c.Call1("aten::mul.Tensor", TensorValue(v), TensorValue(scale))), norm, nil
}

// normExceptDim is ATen's norm_except_dim: the p-norm over all dims but
// dim, kept as size-1 dims (a 0-d norm over everything for dim = -1).
func normExceptDim(c *LowerCtx, v *stablehlo.Value, p, dim int64) (Value, error) {
	r := int64(c.Rank(v))
	kw := map[string]Value{}
	if dim != -1 {
		if dim < 0 {
			dim += r
		}
		if dim < 0 || dim >= r {
			return Value{}, fmt.Errorf("norm_except_dim: dim %d out of range for rank %d", dim, r)
		}
		var dims []int64
		for i := int64(0); i < r; i++ {
			if i != dim {
				dims = append(dims, i)
			}
		}
		if len(dims) == 0 { // a 1-D v: the norm over no dims is |v|
			return TensorValue(c.Call1("aten::abs", TensorValue(v))), nil
		}
		kw["dim"] = IntsValue(dims)
		kw["keepdim"] = BoolValue(true)
	}
	out, err := c.Call("aten::linalg_vector_norm", []Value{TensorValue(v), IntValue(p)}, kw)
	if err != nil {
		return Value{}, fmt.Errorf("norm_except_dim: %w", err)
	}
	return out[0], nil
}
