package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The backward of embedding_bag (dense), as PyTorch's CPU kernel computes
// it (aten/src/ATen/native/EmbeddingBag.cpp):
//   - sum and mean: each index j not equal to padding_idx adds its bag's
//     output gradient to row indices[j], scaled by its per-sample weight,
//     by 1/count(indices[j]) with scale_grad_by_freq, and, for mean, by
//     1/bag_size of its bag (when that is nonzero);
//   - max: each non-empty bag's gradient goes, column by column, to the
//     row that held the maximum (max_indices).
// An empty offset2bag (the forward's sum fast path leaves it so) is
// rebuilt from the offsets: index j's bag is the number of offsets after
// the first that are ≤ j. Indices past the last bag contribute nothing.
// _embedding_bag_per_sample_weights_backward gives, per index, the dot
// product of its bag's gradient with its weight row.

func init() {
	Register(Entry{Name: "aten::_embedding_bag_backward", Kind: Lowered,
		Schema: "_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor",
		Lower:  lowerEmbeddingBagBackward})
	Register(Entry{Name: "aten::_embedding_bag_dense_backward", Kind: Lowered,
		Schema: "_embedding_bag_dense_backward(Tensor grad, Tensor indices, Tensor offset2bag, Tensor bag_size, Tensor maximum_indices, SymInt num_weights, bool scale_grad_by_freq, int mode, Tensor? per_sample_weights, int padding_idx=-1) -> Tensor",
		Lower:  lowerEmbeddingBagBackward})
	Register(Entry{Name: "aten::_embedding_bag_per_sample_weights_backward", Kind: Lowered,
		Schema: "_embedding_bag_per_sample_weights_backward(Tensor grad, Tensor weight, Tensor indices, Tensor offsets, Tensor offset2bag, int mode, int padding_idx=-1) -> Tensor",
		Lower:  lowerEmbeddingBagPSWBackward})
}

// bagOfIndex returns each index's bag (int64 [N]) and whether that bag
// exists (< B), from offset2bag or, when it is empty, from the offsets.
func bagOfIndex(c *LowerCtx, a *Args, op string, N, B int64) (bag, valid *stablehlo.Value, err error) {
	o2b := a.Tensor("offset2bag")
	if a.Err() != nil {
		return nil, nil, a.Err()
	}
	n := []int64{N}
	switch s := c.Shape(o2b); {
	case len(s) == 1 && s[0] == N:
		bag = c.Convert(o2b, dtype.I64)
	case len(s) == 1 && s[0] == 0 && a.Has("offsets"):
		offs := a.Tensor("offsets")
		if c.Rank(offs) != 1 {
			return nil, nil, c.Errorf("%s: offsets must be 1-D, got %v", op, c.Shape(offs))
		}
		k := c.Shape(offs)[0]
		if k < 1 {
			return nil, nil, c.Errorf("%s: offsets is empty", op)
		}
		rest := sliceDim(c, c.Convert(offs, dtype.I64), 0, 1, k-1, 1)
		bag, err = countBelow(c, rest, c.Iota(dtype.I64, n, 0), true, dtype.I64)
		if err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, c.Errorf("%s: offset2bag of shape %v, expected [%d] (or empty, with offsets)", op, s, N)
	}
	valid = c.Binary("and", c.Compare("GE", bag, c.SplatInt(dtype.I64, n, 0)), c.Compare("LT", bag, c.SplatInt(dtype.I64, n, B)))
	bag = c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), bag, c.SplatInt(dtype.I64, nil, max(B-1, 0))}, nil)
	return bag, valid, nil
}

func lowerEmbeddingBagBackward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_embedding_bag_backward"
	g, idx := a.Tensor("grad"), a.Tensor("indices")
	num := a.Int("num_weights")
	freq := a.Bool("scale_grad_by_freq")
	mode := a.Int("mode")
	psw := a.OptTensor("per_sample_weights")
	pad := a.Int("padding_idx")
	if a.Schema.Param("sparse") >= 0 && a.Bool("sparse") {
		return nil, c.Errorf("%s with sparse=True returns a sparse gradient: %w", op, ErrUnsupported)
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	gs := c.Shape(g)
	if len(gs) != 2 || c.Rank(idx) != 1 {
		return nil, c.Errorf("%s: grad must be 2-D [bags, dim] and indices 1-D, got %v and %v", op, gs, c.Shape(idx))
	}
	if num < 0 || mode < 0 || mode > 2 {
		return nil, c.Errorf("%s: num_weights %d, mode %d", op, num, mode)
	}
	if psw != nil && mode != 0 {
		return nil, c.Errorf("%s: per_sample_weights is only supported for mode='sum' (got mode=%d)", op, mode)
	}
	B, D := gs[0], gs[1]
	N := c.Shape(idx)[0]
	dt := c.DType(g)
	cdt := OpMath(dt)
	gc := c.Convert(g, cdt)
	if mode == 2 {
		mi, bs := a.Tensor("maximum_indices"), a.Tensor("bag_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if !sameShape(c.Shape(mi), gs) || c.Type(bs).NumElements() < B {
			return nil, c.Errorf("%s: max mode needs maximum_indices of the grad's shape %v and a bag_size per bag, got %v and %v", op, gs, c.Shape(mi), c.Shape(bs))
		}
		bd := []int64{B, D}
		nonEmpty := c.Compare("NE", sliceDim(c, c.Reshape(c.Convert(bs, dtype.I64), []int64{c.Type(bs).NumElements()}), 0, 0, B, 1), c.SplatInt(dtype.I64, []int64{B}, 0))
		upd := c.Select(c.BroadcastInDim(nonEmpty, bd, []int64{0}), gc, c.Splat(cdt, bd, 0))
		// the flat position row·D + column of each maximum
		flat := c.Binary("add", c.Binary("multiply", c.Convert(mi, dtype.I64), c.SplatInt(dtype.I64, bd, D)), c.Iota(dtype.I64, bd, 1))
		out := rowScatter(c, c.Splat(cdt, []int64{num * D}, 0), c.Reshape(flat, []int64{B * D}), c.Reshape(upd, []int64{B * D}), addCombine)
		return one(c.Convert(c.Reshape(out, []int64{num, D}), dt)), nil
	}
	bag, valid, err := bagOfIndex(c, a, op, N, B)
	if err != nil {
		return nil, err
	}
	n, nd := []int64{N}, []int64{N, D}
	ix := c.Convert(idx, dtype.I64)
	scale := c.Splat(cdt, n, 1)
	if psw != nil {
		scale = c.Binary("multiply", scale, c.Convert(c.Reshape(psw, n), cdt))
	}
	clampIx := c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), ix, c.SplatInt(dtype.I64, nil, max(num-1, 0))}, nil)
	if freq {
		cnt := rowScatter(c, c.Splat(cdt, []int64{num}, 0), ix, c.Splat(cdt, n, 1), addCombine)
		scale = c.Binary("divide", scale, rowGather(c, cnt, clampIx))
	}
	if mode == 1 {
		bs := a.Tensor("bag_size")
		if a.Err() != nil {
			return nil, a.Err()
		}
		if c.Rank(bs) != 1 || c.Shape(bs)[0] < B {
			return nil, c.Errorf("%s: mean mode needs a bag_size per bag, got %v for %d bags", op, c.Shape(bs), B)
		}
		size := c.Convert(rowGather(c, c.Convert(bs, dtype.I64), bag), cdt)
		size = c.Select(c.Compare("EQ", size, c.Splat(cdt, n, 0)), c.Splat(cdt, n, 1), size)
		scale = c.Binary("divide", scale, size)
	}
	keep := valid
	if pad >= 0 {
		keep = c.Binary("and", keep, c.Compare("NE", ix, c.SplatInt(dtype.I64, n, pad)))
	}
	rows := c.Binary("multiply", rowGather(c, gc, bag), c.BroadcastInDim(scale, nd, []int64{0}))
	rows = c.Select(c.BroadcastInDim(keep, nd, []int64{0}), rows, c.Splat(cdt, nd, 0))
	out := rowScatter(c, c.Splat(cdt, []int64{num, D}, 0), ix, rows, addCombine)
	return one(c.Convert(out, dt)), nil
}

func lowerEmbeddingBagPSWBackward(c *LowerCtx, a *Args) ([]Value, error) {
	op := "_embedding_bag_per_sample_weights_backward"
	g, w, idx := a.Tensor("grad"), a.Tensor("weight"), a.Tensor("indices")
	mode, pad := a.Int("mode"), a.Int("padding_idx")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if mode != 0 {
		return nil, c.Errorf("%s: per_sample_weights only supported for mode='sum'", op)
	}
	gs, ws := c.Shape(g), c.Shape(w)
	if len(gs) != 2 || len(ws) != 2 || gs[1] != ws[1] || c.Rank(idx) != 1 {
		return nil, c.Errorf("%s: grad %v, weight %v and indices %v do not match", op, gs, ws, c.Shape(idx))
	}
	N := c.Shape(idx)[0]
	bag, valid, err := bagOfIndex(c, a, op, N, gs[0])
	if err != nil {
		return nil, err
	}
	dt := c.DType(g)
	cdt := OpMath(dt)
	ix := c.Convert(idx, dtype.I64)
	clampIx := c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), ix, c.SplatInt(dtype.I64, nil, max(ws[0]-1, 0))}, nil)
	prodRows := c.Binary("multiply", rowGather(c, c.Convert(g, cdt), bag), rowGather(c, c.Convert(w, cdt), clampIx))
	dot := c.Reduce(prodRows, []int64{1}, "add", 0)
	n := []int64{N}
	keep := valid
	if pad >= 0 {
		keep = c.Binary("and", keep, c.Compare("NE", ix, c.SplatInt(dtype.I64, n, pad)))
	}
	return one(c.Convert(c.Select(keep, dot, c.Splat(cdt, n, 0)), dt)), nil
}
