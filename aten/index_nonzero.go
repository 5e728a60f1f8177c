package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// nonzero_static: the coordinates of the first `size` nonzero elements
// (row-major), padded with fill_value — a static shape, so it lowers: each
// nonzero element's slot is the running count of nonzeros before it.
// argwhere is nonzero, on the host.

func init() {
	decomp("aten::nonzero_static", lowerNonzeroStatic) // uses cumsum
	Register(Entry{Name: "aten::argwhere", Kind: HostFallback, Host: hostNonzero})
}

func lowerNonzeroStatic(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size, fill := a.Int("size"), a.Int("fill_value")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if size < 0 {
		return nil, c.Errorf("nonzero_static: 'size' must be an non-negative integer, got %d", size)
	}
	shape := c.Shape(x)
	r := int64(len(shape))
	n := numelOf(shape)
	out := c.SplatInt(dtype.I64, []int64{size, r}, fill)
	if n == 0 || size == 0 || r == 0 {
		return one(out), nil
	}
	flat := c.Reshape(x, []int64{n})
	nz := c.Compare("NE", flat, c.Like(flat, 0))
	slot := c.Call1("aten::cumsum", TensorValue(nz), IntValue(0))
	slot = c.Binary("subtract", c.Convert(slot, dtype.I64), c.SplatInt(dtype.I64, []int64{n}, 1))
	// Elements that are zero or past size go to row `size`, which the
	// scatter drops as out of bounds.
	keep := c.Binary("and", nz, c.Compare("LT", slot, c.SplatInt(dtype.I64, []int64{n}, size)))
	slot = c.Select(keep, slot, c.SplatInt(dtype.I64, []int64{n}, size))
	// Coordinates of every element, [n, r].
	strides := make([]int64, r)
	acc := int64(1)
	for i := r - 1; i >= 0; i-- {
		strides[i] = acc
		acc *= shape[i]
	}
	lin := c.Iota(dtype.I64, []int64{n}, 0)
	cols := make([]*stablehlo.Value, r)
	for i := int64(0); i < r; i++ {
		q := c.Binary("divide", lin, c.SplatInt(dtype.I64, []int64{n}, strides[i]))
		q = c.Binary("remainder", q, c.SplatInt(dtype.I64, []int64{n}, shape[i]))
		cols[i] = c.Reshape(q, []int64{n, 1})
	}
	coords := emitConcat(c, cols, 1)
	s := &stablehlo.ScatterDims{UpdateWindowDims: []int64{1}, InsertedWindowDims: []int64{0},
		ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	return one(emitScatter(c, out, c.Reshape(slot, []int64{n, 1}), coords, s, nil)), nil
}
