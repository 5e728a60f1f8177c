package native

import (
	"math/rand"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

func mvRandIdx(rng *rand.Rand, dt dtype.DType, lo, hi int64, shape ...int64) *literal.Literal {
	l, _ := literal.New(dt, shape)
	for i := 0; i < l.Len(); i++ {
		l.SetInt64(i, lo+rng.Int63n(hi-lo))
	}
	return l
}

// mvStartIndex reads the index vector of a batch position (the spec's
// start_index), with batch the start_indices coordinates minus ivd.
func mvStartIndex(idx *literal.Literal, ivd int64, batch []int64) []int64 {
	if ivd == int64(idx.Rank()) {
		return []int64{idx.Int64(int(mvFlat(idx.Shape, batch)))}
	}
	pos := append(append(append([]int64{}, batch[:ivd]...), 0), batch[ivd:]...)
	out := make([]int64, idx.Shape[ivd])
	for j := range out {
		pos[ivd] = int64(j)
		out[j] = idx.Int64(int(mvFlat(idx.Shape, pos)))
	}
	return out
}

func mvFlat(shape, idx []int64) int64 {
	st := literal.Strides(shape)
	off := int64(0)
	for d, i := range idx {
		off += i * st[d]
	}
	return off
}

// naiveGather is the spec's formula for one result index.
func naiveGather(x, idx *literal.Literal, g *stablehlo.GatherDims, sizes, ri []int64) []byte {
	var batch, offset []int64
	for d, v := range ri {
		if mvContains(g.OffsetDims, int64(d)) {
			offset = append(offset, v)
		} else {
			batch = append(batch, v)
		}
	}
	start := mvStartIndex(idx, g.IndexVectorDim, batch)
	oi := make([]int64, x.Rank())
	for d := range oi {
		for ds, m := range g.StartIndexMap {
			if m == int64(d) {
				oi[d] += mvClamp(start[ds], 0, x.Shape[d]-sizes[d])
			}
		}
		for i, bd := range g.OperandBatchingDims {
			if bd == int64(d) {
				s := g.StartIndicesBatchingDims[i]
				if s >= g.IndexVectorDim {
					s--
				}
				oi[d] += batch[s]
			}
		}
		if !mvContains(g.CollapsedSliceDims, int64(d)) && !mvContains(g.OperandBatchingDims, int64(d)) {
			oi[d] += offset[0]
			offset = offset[1:]
		}
	}
	return mvElem(x, oi)
}

func TestGatherMatchesSpecFormula(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	cases := []struct {
		x, idx, sizes, res []int64
		g                  *stablehlo.GatherDims
	}{
		{ // the spec's example geometry, with batching dims
			x: []int64{2, 3, 4, 2}, idx: []int64{2, 2, 3, 2}, sizes: []int64{1, 1, 2, 2}, res: []int64{2, 2, 3, 2, 2},
			g: &stablehlo.GatherDims{OffsetDims: []int64{3, 4}, CollapsedSliceDims: []int64{1}, OperandBatchingDims: []int64{0},
				StartIndicesBatchingDims: []int64{1}, StartIndexMap: []int64{2, 1}, IndexVectorDim: 3},
		},
		{ // embedding lookup with an implicit index vector dim
			x: []int64{7, 5}, idx: []int64{4, 3}, sizes: []int64{1, 5}, res: []int64{4, 3, 5},
			g: &stablehlo.GatherDims{OffsetDims: []int64{2}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 2},
		},
		{ // index vector in the middle, offset dims around batch dims
			x: []int64{6, 5, 4}, idx: []int64{3, 2, 2}, sizes: []int64{2, 1, 3}, res: []int64{2, 3, 2, 3},
			g: &stablehlo.GatherDims{OffsetDims: []int64{0, 3}, CollapsedSliceDims: []int64{1}, StartIndexMap: []int64{1, 0}, IndexVectorDim: 1},
		},
	}
	for ci, c := range cases {
		for _, dt := range mvSizes {
			x := mvRand(rng, dt, c.x...)
			idx := mvRandIdx(rng, dtype.I32, -3, 9, c.idx...)
			op := mvOp("stablehlo.gather", []stablehlo.Type{mvT(dt, c.res...)}, map[string]stablehlo.Attr{
				"dimension_numbers": c.g, "slice_sizes": mvI64s(c.sizes...)})
			got := mvRun(t, nil, op, x, idx)[0].(*literal.Literal)
			mvCheckAll(t, "gather case "+string(rune('0'+ci))+" "+dt.String(), got, c.res, func(ri []int64) []byte {
				return naiveGather(x, idx, c.g, c.sizes, ri)
			})

			dyn := mvOp("stablehlo.dynamic_gather", []stablehlo.Type{mvT(dt, c.res...)}, map[string]stablehlo.Attr{"dimension_numbers": c.g})
			got2 := mvRun(t, nil, dyn, x, idx, mvIdxList(c.sizes...))[0].(*literal.Literal)
			if string(got2.Data) != string(got.Data) {
				t.Errorf("dynamic_gather case %d differs from gather", ci)
			}
		}
	}
}

func TestGatherBadDimsDoNotPanic(t *testing.T) {
	x, _ := literal.New(dtype.F32, []int64{4, 5})
	idx := mvIdxList(1, 2)
	for _, g := range []*stablehlo.GatherDims{
		{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{3}, IndexVectorDim: 1},
		{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 4},
		{OffsetDims: []int64{5}, CollapsedSliceDims: []int64{0}, StartIndexMap: []int64{0}, IndexVectorDim: 1},
		{OffsetDims: []int64{1}, CollapsedSliceDims: []int64{0, 0}, StartIndexMap: []int64{0}, IndexVectorDim: 1},
	} {
		op := mvOp("stablehlo.gather", []stablehlo.Type{mvT(dtype.F32, 2, 5)}, map[string]stablehlo.Attr{"dimension_numbers": g, "slice_sizes": mvI64s(1, 5)})
		if _, err := kGather(nil, op, []Value{x, idx}); err == nil {
			t.Errorf("gather with bad dims %+v accepted", g)
		}
	}
}

// torch_index_select with batch dims: out[b, i, j, r] = x[b, idx[b, i, j], r].
func TestTorchIndexSelect(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	x := mvRand(rng, dtype.F16, 2, 5, 3)
	idx := mvRandIdx(rng, dtype.I32, 0, 5, 2, 4, 2)
	for _, attrs := range []map[string]stablehlo.Attr{
		{"dim": &stablehlo.IntAttr{Value: 1}, "batch_dims": &stablehlo.IntAttr{Value: 1}},
		{"dim": &stablehlo.IntAttr{Value: -2}, "batch_dims": &stablehlo.IntAttr{Value: -2}},
	} {
		op := mvOp("stablehlo.torch_index_select", []stablehlo.Type{mvT(dtype.F16, 2, 4, 2, 3)}, attrs)
		got := mvRun(t, nil, op, x, idx)[0].(*literal.Literal)
		mvCheckAll(t, "torch_index_select", got, []int64{2, 4, 2, 3}, func(i []int64) []byte {
			return mvElem(x, []int64{i[0], idx.Int64(int(mvFlat(idx.Shape, i[:3]))), i[3]})
		})
	}
}
