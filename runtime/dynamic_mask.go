package runtime

import (
	"fmt"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// maskedAttention lowers scaled_dot_product_attention with the key
// positions at or past the actual length masked out, and the padded key
// and value rows zeroed (so that nothing computed there, not even a NaN,
// reaches a valid position).
func (r *run) maskedAttention(n *fx.Node, length *literal.Literal) error {
	e, ok := aten.Lookup(n.Target)
	if !ok {
		return fmt.Errorf("op %s is not supported", n.Target)
	}
	args, err := r.bind(e, n, false)
	if err != nil {
		return err
	}
	c := r.seg.ctx
	c.Loc = stablehlo.Loc{File: n.Name}
	lenV := r.seg.param(length)
	keep := func(v *stablehlo.Value, dim int) *stablehlo.Value {
		shape := c.Shape(v)
		return c.Compare("LT", c.Iota(dtype.I64, shape, dim), c.BroadcastInDim(lenV, shape, nil))
	}
	for _, name := range []string{"key", "value"} {
		i := args.Schema.Param(name)
		v := args.Values[i].T
		if v == nil {
			return fmt.Errorf("%s is not a tensor", name)
		}
		args.Values[i] = aten.TensorValue(c.Select(keep(v, c.Rank(v)-2), v, c.Like(v, 0)))
	}
	k := args.Values[args.Schema.Param("key")].T
	S := c.Shape(k)[c.Rank(k)-2]
	mask := c.Compare("LT", c.Iota(dtype.I64, []int64{S}, 0), c.BroadcastInDim(lenV, []int64{S}, nil))
	args.Values[args.Schema.Param("attn_mask")] = aten.TensorValue(mask)
	res, err := e.Call(c, args)
	if err != nil {
		return err
	}
	return r.define(n, res)
}
