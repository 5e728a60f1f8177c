package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// View scatters, the functional forms of writing into a view:
// slice_scatter, select_scatter, diagonal_scatter, as_strided_scatter.
// The result is self with the view's elements replaced by src.

func init() {
	lower("aten::slice_scatter", lowerSliceScatter)
	lower("aten::select_scatter", lowerSelectScatter)
	lower("aten::diagonal_scatter", lowerDiagonalScatter)
	lower("aten::as_strided_scatter", lowerAsStridedScatter)
}

// placeStrided writes src into x along dim d at start, start+step, ...:
// src is padded into x's shape (interior padding step-1) and selected with
// a mask padded the same way.
func placeStrided(c *LowerCtx, x, src *stablehlo.Value, d int, start, count, step int64) (*stablehlo.Value, error) {
	shape := c.Shape(x)
	want := append([]int64(nil), shape...)
	want[d] = count
	ss := c.Shape(src)
	if !sameShape(ss, want) {
		v, err := expandTo(c, src, want)
		if err != nil {
			return nil, c.Errorf("slice_scatter: src of shape %v does not match the slice shape %v", ss, want)
		}
		src = v
	}
	if count == 0 {
		return x, nil
	}
	src = c.Convert(src, c.DType(x))
	r := len(shape)
	lo, hi, in := make([]int64, r), make([]int64, r), make([]int64, r)
	lo[d] = start
	in[d] = step - 1
	hi[d] = shape[d] - (start + (count-1)*step + 1)
	pad := func(v, fill *stablehlo.Value) *stablehlo.Value {
		return c.Op1("stablehlo.pad", []*stablehlo.Value{v, fill}, []stablehlo.NamedAttr{
			I64s("edge_padding_low", lo), I64s("edge_padding_high", hi), I64s("interior_padding", in)})
	}
	placed := pad(src, c.SplatInt(c.DType(x), nil, 0))
	mask := pad(c.SplatInt(dtype.Bool, want, 1), c.SplatInt(dtype.Bool, nil, 0))
	return c.Select(mask, placed, x), nil
}

func lowerSliceScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, src := a.Tensor("self"), a.Tensor("src")
	dim := a.Int("dim")
	start, hasStart := a.OptInt("start")
	end, hasEnd := a.OptInt("end")
	step := a.Int("step")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := nonScalarDim(c, "slice_scatter", shape, dim)
	if err != nil {
		return nil, err
	}
	if !hasStart {
		start = 0
	}
	if !hasEnd {
		end = math.MaxInt64
	}
	first, n, err := sliceRange(shape[d], start, end, step)
	if err != nil {
		return nil, c.Errorf("slice_scatter: %w", err)
	}
	out, err := placeStrided(c, x, src, d, first, n, step)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerSelectScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, src := a.Tensor("self"), a.Tensor("src")
	dim, index := a.Int("dim"), a.Int("index")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, index, err := selectPos(c, "select_scatter", shape, dim, index)
	if err != nil {
		return nil, err
	}
	want := append(append([]int64(nil), shape[:d]...), shape[d+1:]...)
	if !sameShape(c.Shape(src), want) {
		return nil, c.Errorf("select_scatter: expected src to have a size equal to the slice of self, got %v and %v", c.Shape(src), want)
	}
	us := append(append(append([]int64(nil), shape[:d]...), 1), shape[d+1:]...)
	out, err := placeStrided(c, x, c.Reshape(src, us), d, index, 1, 1)
	if err != nil {
		return nil, err
	}
	return one(out), nil
}

func lowerDiagonalScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, src := a.Tensor("self"), a.Tensor("src")
	offset, dim1, dim2 := a.Int("offset"), a.Int("dim1"), a.Int("dim2")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	r := len(shape)
	d1, err := canonDim(dim1, r)
	if err != nil {
		return nil, err
	}
	d2, err := canonDim(dim2, r)
	if err != nil {
		return nil, err
	}
	if d1 == d2 || r < 2 {
		return nil, c.Errorf("diagonal dimensions cannot be identical %d, %d", dim1, dim2)
	}
	var n int64
	if offset >= 0 {
		n = max(0, min(shape[d1], shape[d2]-offset))
	} else {
		n = max(0, min(shape[d1]+offset, shape[d2]))
	}
	var want []int64
	for i, s := range shape {
		if i != d1 && i != d2 {
			want = append(want, s)
		}
	}
	want = append(want, n)
	if !sameShape(c.Shape(src), want) {
		return nil, c.Errorf("diagonal_scatter: expected src to have a size equal to the diagonal of self %v, got %v", want, c.Shape(src))
	}
	idx := make([]int64, 0, 2*n)
	for i := int64(0); i < n; i++ {
		r0, c0 := i, i+offset
		if offset < 0 {
			r0, c0 = i-offset, i
		}
		idx = append(idx, r0, c0)
	}
	ind := constI64(c, []int64{n, 2}, idx)
	s := &stablehlo.ScatterDims{UpdateWindowDims: seqI64(r - 2), InsertedWindowDims: []int64{int64(min(d1, d2)), int64(max(d1, d2))},
		ScatterDimsToOperandDims: []int64{int64(d1), int64(d2)}, IndexVectorDim: 1}
	return one(emitScatter(c, x, ind, c.Convert(src, c.DType(x)), s, nil)), nil
}

func lowerAsStridedScatter(c *LowerCtx, a *Args) ([]Value, error) {
	x, src := a.Tensor("self"), a.Tensor("src")
	size, stride := a.Ints("size"), a.Ints("stride")
	off, _ := a.OptInt("storage_offset")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(size) != len(stride) || !sameShape(c.Shape(src), size) {
		return nil, c.Errorf("as_strided_scatter: src of shape %v must match size %v (stride %v)", c.Shape(src), size, stride)
	}
	shape := c.Shape(x)
	numel := numelOf(shape)
	idx, err := stridedIndex(c, "as_strided_scatter", size, stride, off, numel)
	if err != nil {
		return nil, err
	}
	total := int64(len(idx))
	flat := c.Reshape(x, []int64{numel})
	upd := c.Reshape(c.Convert(src, c.DType(x)), []int64{total})
	s := &stablehlo.ScatterDims{InsertedWindowDims: []int64{0}, ScatterDimsToOperandDims: []int64{0}, IndexVectorDim: 1}
	out := emitScatter(c, flat, constI64(c, []int64{total, 1}, idx), upd, s, nil)
	return one(c.Reshape(out, shape)), nil
}
