package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// _unsafe_masked_index and _unsafe_masked_index_put_accumulate (what
// PyTorch's decompositions of padded gathers emit): indices are clamped
// into range, and the mask decides which results are kept (or which
// values are added).

func init() {
	lower("aten::_unsafe_masked_index", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, mask := a.Tensor("self"), a.Tensor("mask")
		idx, fill := a.Value("indices"), a.Scalar("fill")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.DType(mask) != dtype.Bool {
			return nil, c.Errorf("tensors used as masks must be bool tensors")
		}
		shape := c.Shape(x)
		empty := numelOf(shape) == 0
		if empty {
			// Index a tensor of ones of the same rank: only the result's
			// shape matters, every element becomes fill.
			ones := make([]int64, len(shape))
			for i := range ones {
				ones[i] = max(shape[i], 1)
			}
			x = c.Splat(c.DType(x), ones, 0)
			shape = ones
		}
		clamped, err := clampIndices(c, idx, shape, false)
		if err != nil {
			return nil, err
		}
		g := c.Call1("aten::_unsafe_index.Tensor", TensorValue(x), clamped)
		full := c.ScalarFull(fill, c.DType(g), c.Shape(g))
		if empty {
			return one(full), nil
		}
		m := c.BroadcastTo(mask, c.Shape(g))
		return one(c.Select(m, g, full)), nil
	})
	lower("aten::_unsafe_masked_index_put_accumulate", func(c *LowerCtx, a *Args) ([]Value, error) {
		x, mask, vals := a.Tensor("self"), a.Tensor("mask"), a.Tensor("values")
		idx := a.Value("indices")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.DType(mask) != dtype.Bool {
			return nil, c.Errorf("tensors used as masks must be bool tensors")
		}
		shape := c.Shape(x)
		if numelOf(shape) == 0 {
			return one(x), nil
		}
		clamped, err := clampIndices(c, idx, shape, true)
		if err != nil {
			return nil, err
		}
		vs := c.BroadcastShapes(c.Shape(vals), c.Shape(mask))
		if c.Err() != nil {
			return nil, c.Err()
		}
		masked := c.Select(c.BroadcastTo(mask, vs), c.BroadcastTo(vals, vs), c.Splat(c.DType(vals), vs, 0))
		return c.Call("aten::_unsafe_index_put", []Value{TensorValue(x), clamped, TensorValue(masked), BoolValue(true)}, nil)
	})
}

// clampIndices clamps each index tensor of a Tensor?[] list into
// [0, size-1] (or [-size, size-1] with negative).
func clampIndices(c *LowerCtx, idx Value, shape []int64, negative bool) (Value, error) {
	if idx.Kind != KList {
		return Value{}, c.Errorf("indices must be a list of tensors")
	}
	out := make([]Value, len(idx.List))
	for i, v := range idx.List {
		if v.IsNone() {
			out[i] = v
			continue
		}
		if i >= len(shape) {
			return Value{}, c.Errorf("too many indices for tensor of dimension %d", len(shape))
		}
		t := v.T
		if t == nil {
			return Value{}, c.Errorf("index %d is not a tensor", i)
		}
		dt := c.DType(t)
		if dt != dtype.I64 && dt != dtype.I32 {
			return Value{}, c.Errorf("tensors used as indices must be long or int tensors")
		}
		lo := int64(0)
		if negative {
			lo = -shape[i]
		}
		s := c.Shape(t)
		var r *stablehlo.Value = c.Binary("maximum", t, c.SplatInt(dt, s, lo))
		r = c.Binary("minimum", r, c.SplatInt(dt, s, shape[i]-1))
		out[i] = TensorValue(r)
	}
	return ListValue(out...), nil
}
