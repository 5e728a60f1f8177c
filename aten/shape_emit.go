package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Emission helpers for data movement, shared by the view, indexing and nn
// families. They are free functions (not LowerCtx methods) so that the
// LowerCtx API stays the registry's.

func emitTranspose(c *LowerCtx, v *stablehlo.Value, perm []int64) *stablehlo.Value {
	// a transpose of a transpose is one transpose of the first's operand,
	// none where they cancel (a tied weight's gradient, permuted there and
	// back, is then read as the product made it, not through two copies)
	if v != nil && v.Def != nil && v.Def.Name == "stablehlo.transpose" && len(v.Def.Operands) == 1 && v.Def.Operands[0] != nil {
		if q, ok := v.Def.Ints("permutation"); ok && len(q) == len(perm) {
			composed := make([]int64, len(perm))
			for i, p := range perm {
				if p < 0 || int(p) >= len(q) {
					composed = nil
					break
				}
				composed[i] = q[p]
			}
			if composed != nil {
				return emitTranspose(c, v.Def.Operands[0], composed)
			}
		}
	}
	identity := true
	for i, p := range perm {
		if p != int64(i) {
			identity = false
		}
	}
	if identity {
		return v
	}
	return c.Op1("stablehlo.transpose", []*stablehlo.Value{v}, []stablehlo.NamedAttr{I64s("permutation", perm)})
}

// emitSlice emits stablehlo.slice; strides nil means 1.
func emitSlice(c *LowerCtx, v *stablehlo.Value, start, limit, strides []int64) *stablehlo.Value {
	if strides == nil {
		strides = make([]int64, len(start))
		for i := range strides {
			strides[i] = 1
		}
	}
	return c.Op1("stablehlo.slice", []*stablehlo.Value{v}, []stablehlo.NamedAttr{
		I64s("start_indices", start), I64s("limit_indices", limit), I64s("strides", strides)})
}

// sliceDim takes [start, start+count*step) with step along one dim.
func sliceDim(c *LowerCtx, v *stablehlo.Value, dim int, start, count, step int64) *stablehlo.Value {
	shape := c.Shape(v)
	if start == 0 && step == 1 && count == shape[dim] {
		return v
	}
	st := make([]int64, len(shape))
	lim := append([]int64(nil), shape...)
	str := make([]int64, len(shape))
	for i := range str {
		str[i] = 1
	}
	st[dim] = start
	lim[dim] = start + (count-1)*step + 1
	if count == 0 {
		lim[dim] = start
	}
	str[dim] = step
	return emitSlice(c, v, st, lim, str)
}

func emitConcat(c *LowerCtx, vs []*stablehlo.Value, dim int) *stablehlo.Value {
	if len(vs) == 0 {
		c.Errorf("concatenate of no tensors")
		return c.placeholder(stablehlo.Tensor(dtype.F32))
	}
	if len(vs) == 1 {
		return vs[0]
	}
	return c.Op1("stablehlo.concatenate", vs, []stablehlo.NamedAttr{Attr("dimension", &stablehlo.IntAttr{Value: int64(dim)})})
}

func emitReverse(c *LowerCtx, v *stablehlo.Value, dims []int64) *stablehlo.Value {
	if len(dims) == 0 {
		return v
	}
	return c.Op1("stablehlo.reverse", []*stablehlo.Value{v}, []stablehlo.NamedAttr{I64s("dimensions", dims)})
}

// emitPad pads with a 0-d value; negative amounts crop.
func emitPad(c *LowerCtx, v, padValue *stablehlo.Value, lo, hi []int64) *stablehlo.Value {
	return c.Op1("stablehlo.pad", []*stablehlo.Value{v, padValue}, []stablehlo.NamedAttr{
		I64s("edge_padding_low", lo), I64s("edge_padding_high", hi), I64s("interior_padding", make([]int64, len(lo)))})
}

// emitDot emits dot_general with the given dimension numbers and result
// element type (HIGHEST precision: what PyTorch's fp32 matmul computes).
func emitDot(c *LowerCtx, a, b *stablehlo.Value, dd *stablehlo.DotDims, out dtype.DType) *stablehlo.Value {
	// A transposed operand is read in place: the product names its dims
	// in the transpose's operand (the executor reads strided operands, and
	// no transposed copy is made for the product).
	dd = &stablehlo.DotDims{LhsBatchingDims: dd.LhsBatchingDims, RhsBatchingDims: dd.RhsBatchingDims,
		LhsContractingDims: dd.LhsContractingDims, RhsContractingDims: dd.RhsContractingDims}
	a, dd.LhsBatchingDims, dd.LhsContractingDims = throughTranspose(a, dd.LhsBatchingDims, dd.LhsContractingDims)
	b, dd.RhsBatchingDims, dd.RhsContractingDims = throughTranspose(b, dd.RhsBatchingDims, dd.RhsContractingDims)
	hi := &stablehlo.EnumAttr{Dialect: "stablehlo", Kind: "precision", Value: "HIGHEST"}
	attrs := []stablehlo.NamedAttr{
		Attr("dot_dimension_numbers", dd),
		Attr("precision_config", stablehlo.ArrayAttr{hi, hi}),
	}
	op := c.Op("stablehlo.dot_general", []*stablehlo.Value{a, b}, attrs)
	if len(op.Results) == 0 {
		return c.placeholder(stablehlo.Tensor(out))
	}
	r := op.Results[0]
	if c.DType(r) != out {
		return c.Convert(r, out)
	}
	return r
}

// throughTranspose returns the operand of x when x is a transpose whose
// free dims (neither batch nor contracting) keep their order in the
// operand, with the batch and contracting dims named in the operand: a
// dot_general of the operand then has the same result. Otherwise x and
// the dims as given.
func throughTranspose(x *stablehlo.Value, batch, contract []int64) (*stablehlo.Value, []int64, []int64) {
	if x == nil || x.Def == nil || x.Def.Name != "stablehlo.transpose" || len(x.Def.Operands) != 1 {
		return x, batch, contract
	}
	perm, ok := x.Def.Ints("permutation")
	src := x.Def.Operands[0]
	if src == nil {
		return x, batch, contract
	}
	st := stablehlo.AsTensor(src.Type)
	if !ok || st == nil || len(perm) != len(st.Shape) {
		return x, batch, contract
	}
	used := make([]bool, len(perm))
	for _, d := range append(append([]int64(nil), batch...), contract...) {
		if d < 0 || int(d) >= len(perm) || used[d] {
			return x, batch, contract
		}
		used[d] = true
	}
	var free []int64 // the free dims, named in the operand
	for d, u := range used {
		if !u {
			free = append(free, perm[d])
		}
	}
	for i := 1; i < len(free); i++ {
		if free[i] <= free[i-1] {
			return x, batch, contract // the free dims would come out reordered
		}
	}
	through := func(dims []int64) []int64 {
		out := make([]int64, len(dims))
		for i, d := range dims {
			out[i] = perm[d]
		}
		return out
	}
	nb, nc := through(batch), through(contract)
	// Only when the operand is a strided matrix (or a batch of them): each
	// group of dims merges into one, as the executor's fast product needs.
	// A head split seen through ([b, s, h, d] with batch dims b and h) is
	// not, and its copy costs less than a product that gathers.
	if !mergesRowMajor(st.Shape, nb) || !mergesRowMajor(st.Shape, nc) || !mergesRowMajor(st.Shape, free) {
		return x, batch, contract
	}
	return src, nb, nc
}

// mergesRowMajor reports whether dims (in order) of a row-major shape
// are one dim in memory: each next dim (skipping size-1 dims) directly
// inside the previous one.
func mergesRowMajor(shape []int64, dims []int64) bool {
	prev := int64(-1)
	for _, d := range dims {
		if shape[d] == 1 {
			continue
		}
		if prev >= 0 {
			if d <= prev {
				return false
			}
			for between := prev + 1; between < d; between++ {
				if shape[between] != 1 {
					return false
				}
			}
		}
		prev = d
	}
	return true
}

// emitGather emits stablehlo.gather.
// An operand dim smaller than its slice (an empty dim) is padded with
// zeros first: the result has the shape PyTorch gives, empty or filled
// from nothing.
func emitGather(c *LowerCtx, operand, indices *stablehlo.Value, g *stablehlo.GatherDims, sizes []int64) *stablehlo.Value {
	if os := c.Shape(operand); len(os) == len(sizes) {
		lo, hi := make([]int64, len(os)), make([]int64, len(os))
		pad := false
		for i, n := range os {
			if sizes[i] > n {
				hi[i], pad = sizes[i]-n, true
			}
		}
		if pad {
			operand = emitPad(c, operand, c.Splat(c.DType(operand), nil, 0), lo, hi)
		}
	}
	return c.Op1("stablehlo.gather", []*stablehlo.Value{operand, indices}, []stablehlo.NamedAttr{
		Attr("dimension_numbers", g), I64s("slice_sizes", sizes),
		Attr("indices_are_sorted", stablehlo.BoolAttr(false))})
}

// emitScatter emits stablehlo.scatter whose body combines (old, update)
// with combine; nil combine replaces.
func emitScatter(c *LowerCtx, operand, indices, updates *stablehlo.Value, s *stablehlo.ScatterDims,
	combine func(sub *LowerCtx, old, upd *stablehlo.Value) *stablehlo.Value) *stablehlo.Value {
	scalar := stablehlo.Tensor(c.DType(operand))
	r := c.Region([]stablehlo.Type{scalar, scalar}, func(sub *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		if combine == nil {
			return []*stablehlo.Value{a[1]}
		}
		return []*stablehlo.Value{combine(sub, a[0], a[1])}
	})
	op := c.OpRegions("stablehlo.scatter", []*stablehlo.Value{operand, indices, updates}, []stablehlo.NamedAttr{
		Attr("scatter_dimension_numbers", s),
		Attr("indices_are_sorted", stablehlo.BoolAttr(false)),
		Attr("unique_indices", stablehlo.BoolAttr(false))}, []*stablehlo.Region{r})
	if len(op.Results) == 0 {
		return c.placeholder(operand.Type)
	}
	return op.Results[0]
}

// constI64 emits an int64 constant of the given shape and data.
func constI64(c *LowerCtx, shape []int64, data []int64) *stablehlo.Value {
	lit, err := literal.New(dtype.I64, shape)
	if err != nil {
		c.Errorf("constant: %w", err)
		return c.placeholder(stablehlo.Tensor(dtype.I64, shape...))
	}
	for i, x := range data {
		lit.SetInt64(i, x)
	}
	return c.Const(lit)
}

// constF emits a float constant of dt with the given data.
func constF(c *LowerCtx, dt dtype.DType, shape []int64, data []float64) *stablehlo.Value {
	lit, err := literal.New(dt, shape)
	if err != nil {
		c.Errorf("constant: %w", err)
		return c.placeholder(stablehlo.Tensor(dt, shape...))
	}
	for i, x := range data {
		lit.SetFloat64(i, x)
	}
	return c.Const(lit)
}

// takeAlong gathers v along dim at constant indices idx (of shape
// idxShape): the result has dim replaced by idxShape's dims.
func takeAlong(c *LowerCtx, v *stablehlo.Value, dim int, idxShape []int64, idx []int64) *stablehlo.Value {
	ind := constI64(c, idxShape, idx)
	return takeAlongV(c, v, dim, ind)
}

// takeAlongV is takeAlong with an index tensor (int64, in range).
func takeAlongV(c *LowerCtx, v *stablehlo.Value, dim int, ind *stablehlo.Value) *stablehlo.Value {
	shape := c.Shape(v)
	k := int64(c.Rank(ind))
	sizes := append([]int64(nil), shape...)
	sizes[dim] = 1
	var offset []int64
	for i := range shape {
		if i == dim {
			continue
		}
		o := int64(i)
		if i > dim {
			o += k - 1
		}
		offset = append(offset, o)
	}
	g := &stablehlo.GatherDims{OffsetDims: offset, CollapsedSliceDims: []int64{int64(dim)},
		StartIndexMap: []int64{int64(dim)}, IndexVectorDim: k}
	out := emitGather(c, v, ind, g, sizes)
	return out
}

// reduceInit reduces v over dims with a binary body op and an init value
// given as a 0-d tensor.
func reduceInit(c *LowerCtx, v *stablehlo.Value, dims []int64, body string, init *stablehlo.Value) *stablehlo.Value {
	scalar := stablehlo.Tensor(c.DType(v))
	r := c.Region([]stablehlo.Type{scalar, scalar}, func(s *LowerCtx, a []*stablehlo.Value) []*stablehlo.Value {
		return []*stablehlo.Value{s.Binary(body, a[0], a[1])}
	})
	op := c.OpRegions("stablehlo.reduce", []*stablehlo.Value{v, init}, []stablehlo.NamedAttr{I64s("dimensions", dims)}, []*stablehlo.Region{r})
	if len(op.Results) == 0 {
		return c.placeholder(scalar)
	}
	return op.Results[0]
}

// keepDims reshapes a reduction result back to v's rank with the reduced
// dims of size 1.
func keepDims(c *LowerCtx, r *stablehlo.Value, inShape []int64, dims []int64) *stablehlo.Value {
	shape := append([]int64(nil), inShape...)
	for _, d := range dims {
		shape[d] = 1
	}
	return c.Reshape(r, shape)
}

// seqI64 is [0, 1, ..., n-1].
func seqI64(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(i)
	}
	return out
}

// lowestConst is the 0-d start of a max-reduction: -inf for floats, the
// minimum for integers, false for bool.
func lowestConst(c *LowerCtx, dt dtype.DType) *stablehlo.Value {
	switch {
	case dt.IsFloat():
		return c.Splat(dt, nil, math.Inf(-1))
	case dt == dtype.Bool || dt.IsUnsigned():
		return c.SplatInt(dt, nil, 0)
	}
	return c.SplatInt(dt, nil, -1<<(dt.Bits()-1))
}

// highestConst is the 0-d start of a min-reduction.
func highestConst(c *LowerCtx, dt dtype.DType) *stablehlo.Value {
	switch {
	case dt.IsFloat():
		return c.Splat(dt, nil, math.Inf(1))
	case dt == dtype.Bool:
		return c.SplatInt(dt, nil, 1)
	case dt.IsUnsigned():
		return c.SplatInt(dt, nil, -1) // all ones, wrapped to the width
	}
	return c.SplatInt(dt, nil, 1<<(dt.Bits()-1)-1)
}
