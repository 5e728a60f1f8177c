package aten

import "github.com/torchtpu/torchtpu/stablehlo"

// Odds and ends: shape queries without a family of their own.

func init() {
	lower("aten::sym_is_contiguous.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		return []Value{BoolValue(true)}, nil // the runtime's tensors are dense row-major
	})
}

func init() {
	// resize_ gives self a new shape: a reshape when the element count is
	// unchanged, else the leading elements (PyTorch leaves new storage
	// uninitialised; here it is zero).
	lower("aten::resize_.default", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		size := a.Ints("size")
		n := int64(1)
		for _, d := range size {
			if d < 0 {
				return nil, c.Errorf("resize_: negative dimension %d in %v", d, size)
			}
			n *= d
		}
		have := numel(c.Shape(x), reduceDims(c, nil, true, c.Rank(x)))
		flat := c.Reshape(x, []int64{have})
		switch {
		case n < have:
			flat = c.Op1("stablehlo.slice", []*stablehlo.Value{c.Reshape(x, []int64{have})}, []stablehlo.NamedAttr{
				I64s("start_indices", []int64{0}), I64s("limit_indices", []int64{n}), I64s("strides", []int64{1}),
			})
		case n > have:
			flat = c.Op1("stablehlo.pad", []*stablehlo.Value{flat, c.Splat(c.DType(x), nil, 0)}, []stablehlo.NamedAttr{
				I64s("edge_padding_low", []int64{0}), I64s("edge_padding_high", []int64{n - have}), I64s("interior_padding", []int64{0}),
			})
		}
		return one(c.Reshape(flat, size)), nil
	})
}
