package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// embedding_bag: rows of weight gathered at indices and reduced per bag
// (sum, mean, max). Bags come from offsets, which are data: each index's
// bag is computed at run time by counting the offsets at or below its
// position, and rows are scatter-reduced into the [bags, D] output. Empty
// bags give zeros; padding_idx rows take no part.
//
// The auxiliary outputs (offset2bag, bag_size, max_indices) follow
// PyTorch's CPU kernel, including its shapes per mode.

func init() {
	for _, n := range []string{"aten::embedding_bag", "aten::embedding_bag.padding_idx", "aten::_embedding_bag", "aten::_embedding_bag_forward_only"} {
		lower(n, lowerEmbeddingBag)
	}
}

func lowerEmbeddingBag(c *LowerCtx, a *Args) ([]Value, error) {
	w, idx, offs := a.Tensor("weight"), a.Tensor("indices"), a.Tensor("offsets")
	mode := a.Int("mode")
	psw := a.OptTensor("per_sample_weights")
	inclLast := a.Bool("include_last_offset")
	pad, hasPad := int64(-1), false
	if a.Schema.Param("padding_idx") >= 0 {
		pad, hasPad = a.OptInt("padding_idx")
	}
	if a.Err() != nil {
		return nil, a.Err()
	}
	ws := c.Shape(w)
	if len(ws) != 2 {
		return nil, c.Errorf("embedding_bag: weight has to be a 2D Tensor, got %v", ws)
	}
	V, D := ws[0], ws[1]
	if hasPad && pad < 0 && a.Schema.Overload == "padding_idx" {
		pad += V
	}
	if !hasPad || (pad < 0 && a.Schema.Overload != "padding_idx") {
		hasPad = false
	}
	if c.Rank(idx) == 2 {
		// 2-D input: fixed-size bags, offsets are 0, L, 2L, ...
		is := c.Shape(idx)
		idx = c.Reshape(idx, []int64{is[0] * is[1]})
		offs = c.Binary("multiply", c.Iota(dtype.I64, []int64{is[0]}, 0), c.SplatInt(dtype.I64, []int64{is[0]}, is[1]))
		if psw != nil {
			psw = c.Reshape(psw, []int64{is[0] * is[1]})
		}
	}
	if c.Rank(idx) != 1 || c.Rank(offs) != 1 {
		return nil, c.Errorf("embedding_bag: input has to be 1D or 2D Tensor, but got Tensor of dimension %d", c.Rank(idx))
	}
	if mode < 0 || mode > 2 {
		return nil, c.Errorf("embedding_bag: unknown mode %d", mode)
	}
	if psw != nil && mode != 0 {
		return nil, c.Errorf("embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got mode=%d)", mode)
	}
	N := c.Shape(idx)[0]
	B := c.Shape(offs)[0]
	if inclLast {
		B--
	}
	if B < 0 {
		return nil, c.Errorf("embedding_bag: include_last_offset needs at least one offset")
	}
	dt := c.DType(w)
	cdt := OpMath(dt)
	ii := c.Convert(idx, dtype.I64)
	oi := c.Convert(sliceDim(c, c.Convert(offs, dtype.I64), 0, 0, B, 1), dtype.I64)
	// seg[i] = #{k : offsets[k] <= i} - 1
	pos := c.Iota(dtype.I64, []int64{N}, 0)
	seg, err := countBelow(c, oi, pos, true, dtype.I64)
	if err != nil {
		return nil, err
	}
	seg = c.Binary("subtract", seg, c.SplatInt(dtype.I64, []int64{N}, 1))
	valid := c.Compare("GE", seg, c.SplatInt(dtype.I64, []int64{N}, 0))
	if hasPad {
		valid = c.Binary("and", valid, c.Compare("NE", ii, c.SplatInt(dtype.I64, []int64{N}, pad)))
	}
	safeSeg := c.Select(valid, seg, c.SplatInt(dtype.I64, []int64{N}, 0))
	wi, err := wrapIndex(c, ii, V)
	if err != nil {
		return nil, err
	}
	rows := takeAlongV(c, c.Convert(w, cdt), 0, wi) // [N, D]
	nd := []int64{N, D}
	vb := c.BroadcastInDim(valid, nd, []int64{0})
	count := scatterSlices(c, c.SplatInt(dtype.I64, []int64{B}, 0), 0, safeSeg,
		c.Convert(valid, dtype.I64), combineOp("add"))
	empty := c.BroadcastInDim(c.Compare("EQ", count, c.SplatInt(dtype.I64, []int64{B}, 0)), []int64{B, D}, []int64{0})
	var out *stablehlo.Value
	switch mode {
	case 0, 1:
		if psw != nil {
			rows = c.Binary("multiply", rows, c.BroadcastInDim(c.Convert(psw, cdt), nd, []int64{0}))
		}
		sumValid := vb
		if inclLast && !hasPad {
			// PyTorch's CPU sum/mean path without padding_idx ends the last
			// bag at the last offset, while bag_size (the mean's divisor)
			// and the other paths run to the end of indices.
			last := c.BroadcastInDim(c.Reshape(sliceDim(c, c.Convert(offs, dtype.I64), 0, B, 1, 1), nil), []int64{N}, nil)
			sumValid = c.BroadcastInDim(c.Binary("and", valid, c.Compare("LT", pos, last)), nd, []int64{0})
		}
		rows = c.Select(sumValid, rows, c.Splat(cdt, nd, 0))
		out = scatterSlices(c, c.Splat(cdt, []int64{B, D}, 0), 0, safeSeg, rows, combineOp("add"))
		if mode == 1 {
			cnt := c.BroadcastInDim(c.Convert(count, cdt), []int64{B, D}, []int64{0})
			out = c.Select(empty, c.Splat(cdt, []int64{B, D}, 0), c.Binary("divide", out, cnt))
		}
	case 2:
		rows = c.Select(vb, rows, c.BroadcastInDim(lowestConst(c, cdt), nd, nil))
		out = scatterSlices(c, c.BroadcastInDim(lowestConst(c, cdt), []int64{B, D}, nil), 0, safeSeg, rows, combineOp("maximum"))
		out = c.Select(empty, c.Splat(cdt, []int64{B, D}, 0), out)
	}
	out = c.Convert(out, dt)
	var offset2bag, bagSize, maxIdx *stablehlo.Value
	offset2bag = c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), seg, c.SplatInt(dtype.I64, nil, max(B-1, 0))}, nil)
	switch mode {
	case 0:
		// The sum fast path (no padding_idx, float32/float16 weights)
		// leaves offset2bag empty.
		if !hasPad && (dt == dtype.F32 || dt == dtype.F16) {
			offset2bag = c.SplatInt(dtype.I64, []int64{0}, 0)
		}
		bagSize = c.SplatInt(dtype.I64, []int64{B}, 0)
		maxIdx = c.SplatInt(dtype.I64, []int64{B}, 0)
	case 1:
		bagSize, maxIdx = count, count
	case 2:
		bagSize = count
		// The weight row of the first maximum in each bag and column: the
		// smallest position whose row equals the bag's maximum.
		best := takeAlongV(c, c.Convert(out, cdt), 0, safeSeg) // [N, D]
		hit := c.Binary("and", vb, c.Compare("EQ", rows, best))
		posND := c.BroadcastInDim(pos, nd, []int64{0})
		big := c.SplatInt(dtype.I64, nd, N)
		first := scatterSlices(c, c.SplatInt(dtype.I64, []int64{B, D}, N), 0, safeSeg, c.Select(hit, posND, big), combineOp("minimum"))
		found := c.Compare("LT", first, c.SplatInt(dtype.I64, []int64{B, D}, N))
		fi := c.Op1("stablehlo.clamp", []*stablehlo.Value{c.SplatInt(dtype.I64, nil, 0), first, c.SplatInt(dtype.I64, nil, max(N-1, 0))}, nil)
		rowIdx := c.Reshape(takeAlongV(c, ii, 0, c.Reshape(fi, []int64{B * D})), []int64{B, D})
		maxIdx = c.Select(found, rowIdx, c.SplatInt(dtype.I64, []int64{B, D}, 0))
	}
	return []Value{TensorValue(out), TensorValue(offset2bag), TensorValue(bagSize), TensorValue(maxIdx)}, nil
}
