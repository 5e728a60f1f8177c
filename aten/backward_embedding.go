package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// embedding_dense_backward: the rows of grad_output are summed into a
// [num_weights, D] gradient at their indices; rows whose index is
// padding_idx contribute nothing; with scale_grad_by_freq each row is
// first divided by how often its index occurs in indices.

func init() {
	lower("aten::embedding_dense_backward", lowerEmbeddingDenseBackward)
}

func lowerEmbeddingDenseBackward(c *LowerCtx, a *Args) ([]Value, error) {
	g, idx := a.Tensor("grad_output"), a.Tensor("indices")
	num, pad := a.Int("num_weights"), a.Int("padding_idx")
	freq := a.Bool("scale_grad_by_freq")
	if a.Err() != nil {
		return nil, a.Err()
	}
	it := c.DType(idx)
	if it != dtype.I64 && it != dtype.I32 {
		return nil, c.Errorf("embedding_dense_backward: indices must be int64 or int32, got %v", it.Torch())
	}
	is, gs := c.Shape(idx), c.Shape(g)
	if len(gs) != len(is)+1 || !sameShape(gs[:len(is)], is) {
		return nil, c.Errorf("embedding_dense_backward: grad_output %v does not match indices %v", gs, is)
	}
	if num < 0 {
		return nil, c.Errorf("embedding_dense_backward: num_weights must be non-negative, got %d", num)
	}
	dt := c.DType(g)
	cdt := OpMath(dt)
	k, d := prod(is), gs[len(gs)-1]
	ix := c.Convert(c.Reshape(idx, []int64{k}), dtype.I64)
	rows := c.Convert(c.Reshape(g, []int64{k, d}), cdt)
	rowShape := []int64{k, d}
	if freq {
		cnt := rowScatter(c, c.Splat(cdt, []int64{num}, 0), ix, c.Splat(cdt, []int64{k}, 1), addCombine)
		per := rowGather(c, cnt, c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), ix, c.SplatInt(dtype.I64, nil, max(num-1, 0))}, nil))
		rows = c.Binary("divide", rows, c.BroadcastInDim(per, rowShape, []int64{0}))
	}
	if pad >= 0 {
		keep := c.Compare("NE", ix, c.SplatInt(dtype.I64, []int64{k}, pad))
		rows = c.Select(c.BroadcastInDim(keep, rowShape, []int64{0}), rows, c.Splat(cdt, rowShape, 0))
	}
	out := rowScatter(c, c.Splat(cdt, []int64{num, d}, 0), ix, rows, addCombine)
	return one(c.Convert(out, dt)), nil
}
