package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Ops that build a tensor out of the pieces of others: meshgrid,
// cartesian_prod, combinations, block_diag, diag / diag_embed / diagflat,
// column_stack, dstack and _chunk_cat.

func init() {
	decomp("aten::meshgrid", func(c *LowerCtx, a *Args) ([]Value, error) {
		return meshgrid(c, a.Tensors("tensors"), "ij")
	})
	decomp("aten::meshgrid.indexing", func(c *LowerCtx, a *Args) ([]Value, error) {
		return meshgrid(c, a.Tensors("tensors"), a.Str("indexing"))
	})
	decomp("aten::cartesian_prod", lowerCartesianProd)
	lower("aten::combinations", lowerCombinations)
	lower("aten::block_diag", lowerBlockDiag)
	lower("aten::diag_embed", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		off, d1, d2 := a.Int("offset"), a.Int("dim1"), a.Int("dim2")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return diagEmbed(c, x, off, d1, d2)
	})
	decomp("aten::diag", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		off := a.Int("diagonal")
		if a.Err() != nil {
			return nil, a.Err()
		}
		switch c.Rank(x) {
		case 1:
			return diagEmbed(c, x, off, 0, 1)
		case 2:
			return c.Call("aten::diagonal", []Value{TensorValue(x), IntValue(off)}, nil)
		}
		return nil, c.Errorf("diag(): Supports 1D or 2D tensors. Got %dD", c.Rank(x))
	})
	decomp("aten::diagflat", func(c *LowerCtx, a *Args) ([]Value, error) {
		x := a.Tensor("self")
		off := a.Int("offset")
		if a.Err() != nil {
			return nil, a.Err()
		}
		return diagEmbed(c, c.Reshape(x, []int64{numelOf(c.Shape(x))}), off, 0, 1)
	})
	decomp("aten::column_stack", func(c *LowerCtx, a *Args) ([]Value, error) {
		xs := a.Tensors("tensors")
		if a.Err() == nil && len(xs) == 0 {
			return nil, c.Errorf("column_stack expects a non-empty TensorList")
		}
		cols := make([]*stablehlo.Value, len(xs))
		for i, x := range xs {
			cols[i] = x
			if c.Rank(x) <= 1 {
				cols[i] = c.Reshape(x, []int64{numelOf(c.Shape(x)), 1})
			}
		}
		return c.Call("aten::hstack", []Value{TensorsValue(cols)}, nil)
	})
	decomp("aten::dstack", func(c *LowerCtx, a *Args) ([]Value, error) {
		xs := a.Tensors("tensors")
		if a.Err() == nil && len(xs) == 0 {
			return nil, c.Errorf("dstack expects a non-empty TensorList")
		}
		ys := make([]*stablehlo.Value, len(xs))
		for i, x := range xs {
			ys[i] = c.Call1("aten::atleast_3d", TensorValue(x))
		}
		return c.Call("aten::cat", []Value{TensorsValue(ys), IntValue(2)}, nil)
	})
	Register(Entry{Name: "aten::_chunk_cat", Kind: Decomposed, Lower: lowerChunkCat,
		Schema: "_chunk_cat(Tensor[] tensors, int dim, int num_chunks) -> Tensor"})
}

func meshgrid(c *LowerCtx, xs []*stablehlo.Value, indexing string) ([]Value, error) {
	if c.Err() != nil {
		return nil, c.Err()
	}
	if len(xs) == 0 {
		return nil, c.Errorf("torch.meshgrid expects a non-empty TensorList")
	}
	if indexing != "ij" && indexing != "xy" {
		return nil, c.Errorf("torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", indexing)
	}
	shape := make([]int64, len(xs))
	for i, x := range xs {
		if c.Rank(x) > 1 {
			return nil, c.Errorf("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %v", c.Shape(x))
		}
		if c.DType(x) != c.DType(xs[0]) {
			return nil, c.Errorf("torch.meshgrid: Expected all tensors in the tensor list to have the same dtype")
		}
		shape[i] = numelOf(c.Shape(x))
	}
	// xy: the first two dims are swapped (tensor 0 runs along dim 1).
	dimOf := func(i int) int64 { return int64(i) }
	if indexing == "xy" && len(xs) >= 2 {
		shape[0], shape[1] = shape[1], shape[0]
		dimOf = func(i int) int64 {
			switch i {
			case 0:
				return 1
			case 1:
				return 0
			}
			return int64(i)
		}
	}
	out := make([]*stablehlo.Value, len(xs))
	for i, x := range xs {
		v := c.Reshape(x, []int64{numelOf(c.Shape(x))})
		out[i] = c.BroadcastInDim(v, shape, []int64{dimOf(i)})
	}
	return []Value{TensorsValue(out)}, nil
}

func lowerCartesianProd(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	for _, x := range xs {
		if c.Rank(x) != 1 {
			return nil, c.Errorf("Expect a 1D vector, but got shape %v", c.Shape(x))
		}
	}
	if len(xs) == 1 {
		return one(xs[0]), nil
	}
	grid, err := meshgrid(c, xs, "ij")
	if err != nil {
		return nil, err
	}
	cols := make([]*stablehlo.Value, len(xs))
	for i, g := range grid[0].List {
		cols[i] = c.Reshape(g.T, []int64{numelOf(c.Shape(g.T))})
	}
	return c.Call("aten::stack", []Value{TensorsValue(cols), IntValue(1)}, nil)
}

// maxCombinations bounds the index table combinations builds at lowering
// time.
const maxCombinations = 1 << 22

// lowerCombinations gathers the r-element combinations of a vector in
// lexicographic order of their indices (itertools.combinations, or
// combinations_with_replacement): the index table depends on the length
// only.
func lowerCombinations(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	r, repl := a.Int("r"), a.Bool("with_replacement")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(x) != 1 {
		return nil, c.Errorf("Expect a 1D vector, but got shape %v", c.Shape(x))
	}
	if r < 0 {
		return nil, c.Errorf("Expect a non-negative number, but got %d", r)
	}
	if r == 0 {
		return one(c.Splat(c.DType(x), []int64{0}, 0)), nil
	}
	n := c.Shape(x)[0]
	var idx []int64
	cur := make([]int64, r)
	var rec func(pos int, start int64) bool
	rec = func(pos int, start int64) bool {
		if pos == int(r) {
			idx = append(idx, cur...)
			return int64(len(idx)) <= maxCombinations*r
		}
		for v := start; v < n; v++ {
			cur[pos] = v
			next := v + 1
			if repl {
				next = v
			}
			if !rec(pos+1, next) {
				return false
			}
		}
		return true
	}
	if !rec(0, 0) {
		return nil, c.Errorf("combinations: more than %d combinations of %d elements", maxCombinations, n)
	}
	count := int64(len(idx)) / r
	flat := takeAlong(c, x, 0, []int64{count * r}, idx)
	return one(c.Reshape(flat, []int64{count, r})), nil
}

func lowerBlockDiag(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	if a.Err() != nil {
		return nil, a.Err()
	}
	ops := make([]Operand, len(xs))
	for i, x := range xs {
		if c.Rank(x) > 2 {
			return nil, c.Errorf("torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %d has %d dimensions", i, c.Rank(x))
		}
		ops[i] = TensorOperand(x)
	}
	if len(xs) == 0 {
		return one(c.Splat(dtype.F32, []int64{1, 0}, 0)), nil
	}
	dt := c.ResultType(ops...)
	mats := make([]*stablehlo.Value, len(xs))
	var rows, cols int64
	for i, x := range xs {
		s := c.Shape(x)
		switch len(s) {
		case 0:
			x = c.Reshape(x, []int64{1, 1})
		case 1:
			x = c.Reshape(x, []int64{1, s[0]})
		}
		mats[i] = c.Convert(x, dt)
		rows += c.Shape(mats[i])[0]
		cols += c.Shape(mats[i])[1]
	}
	zero := c.Splat(dt, nil, 0)
	var off int64
	for i, m := range mats {
		w := c.Shape(m)[1]
		mats[i] = emitPad(c, m, zero, []int64{0, off}, []int64{0, cols - off - w})
		off += w
	}
	if rows == 0 {
		return one(c.Splat(dt, []int64{0, cols}, 0)), nil
	}
	return one(emitConcat(c, mats, 0)), nil
}

// diagEmbed places the last dim of x on the diagonal (offset off) of the
// new dims dim1 and dim2 of the result: element (.., i, .., j, ..) is
// x[.., min(i, j)] where j - i == off, zero elsewhere.
func diagEmbed(c *LowerCtx, x *stablehlo.Value, off, dim1, dim2 int64) ([]Value, error) {
	s := c.Shape(x)
	r := len(s) + 1
	d1, err1 := canonDim(dim1, r)
	d2, err2 := canonDim(dim2, r)
	if err1 != nil || err2 != nil {
		return nil, c.Errorf("diag_embed: dims %d and %d out of range for a %d-d result", dim1, dim2, r)
	}
	if d1 == d2 {
		return nil, c.Errorf("diagonal dimensions cannot be identical %d, %d", dim1, dim2)
	}
	if len(s) == 0 {
		return nil, c.Errorf("diag_embed: expected a tensor of at least one dimension")
	}
	n := s[len(s)-1]
	m := n + max(off, -off)
	dt := c.DType(x)
	// Pad the diagonal to m, then broadcast it along the dim it does not
	// run on: dim1 for off >= 0 (value x[i]), dim2 for off < 0 (x[j]).
	lo := make([]int64, len(s))
	hi := make([]int64, len(s))
	hi[len(s)-1] = m - n
	xp := emitPad(c, x, c.Splat(dt, nil, 0), lo, hi)
	out := make([]int64, 0, r)
	var bdims []int64
	k := 0
	for i := 0; i < r; i++ {
		if i == d1 || i == d2 {
			out = append(out, m)
			continue
		}
		out = append(out, s[k])
		bdims = append(bdims, int64(i))
		k++
	}
	on := d1
	if off < 0 {
		on = d2
	}
	bdims = append(bdims, int64(on))
	v := c.BroadcastInDim(xp, out, bdims)
	ii := c.Iota(dtype.I64, out, d1)
	jj := c.Iota(dtype.I64, out, d2)
	mask := c.Compare("EQ", c.Binary("subtract", jj, ii), c.SplatInt(dtype.I64, out, off))
	return one(c.Select(mask, v, c.Splat(dt, out, 0))), nil
}

// lowerChunkCat pads each tensor's dim to a multiple of num_chunks, views
// it as [leading dims..., num_chunks, rest] and concatenates along dim+1.
func lowerChunkCat(c *LowerCtx, a *Args) ([]Value, error) {
	xs := a.Tensors("tensors")
	dim, chunks := a.Int("dim"), a.Int("num_chunks")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if chunks < 1 {
		return nil, c.Errorf("_chunk_cat expects positive num_chunks")
	}
	if len(xs) == 0 {
		return nil, c.Errorf("_chunk_cat expects a non-empty input tensor list")
	}
	same := true
	for _, x := range xs {
		if numelOf(c.Shape(x)) == 0 {
			return nil, c.Errorf("_chunk_cat expects non-empty tensor")
		}
		if c.DType(x) != c.DType(xs[0]) {
			return nil, c.Errorf("_chunk_cat expects all input tensors with the same dtype")
		}
		same = same && c.Rank(x) == c.Rank(xs[0])
	}
	d := int(dim)
	if same {
		var err error
		if d, err = canonDim(dim, c.Rank(xs[0])); err != nil {
			return nil, c.Errorf("_chunk_cat: %w", err)
		}
	} else if dim < 0 {
		return nil, c.Errorf("_chunk_cat expects non-negative dim when input tensors have different ndims")
	}
	lead := c.Shape(xs[0])[:min(d, c.Rank(xs[0]))]
	parts := make([]*stablehlo.Value, len(xs))
	for i, x := range xs {
		s := c.Shape(x)
		if d >= len(s) {
			return nil, c.Errorf("_chunk_cat expects dim < ndim for all input tensors")
		}
		for j := 0; j < d; j++ {
			if s[j] != lead[j] {
				return nil, c.Errorf("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors")
			}
		}
		padded := (s[d] + chunks - 1) / chunks * chunks
		if padded != s[d] {
			lo := make([]int64, len(s))
			hi := make([]int64, len(s))
			hi[d] = padded - s[d]
			x = emitPad(c, x, c.Splat(c.DType(x), nil, 0), lo, hi)
		}
		rest := numelOf(c.Shape(x)[d:]) / chunks
		parts[i] = c.Reshape(x, append(append([]int64(nil), lead...), chunks, rest))
	}
	return one(emitConcat(c, parts, d+1)), nil
}
