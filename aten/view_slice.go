package aten

import (
	"math"

	"github.com/torchtpu/torchtpu/stablehlo"
)

// Slicing views: slice, select, narrow, the splits (multi-output),
// diagonal, unfold and as_strided.

func init() {
	Register(Entry{Name: "aten::slice.Tensor", Kind: Lowered, Lower: lowerSliceTensor})
	Register(Entry{Name: "aten::slice_copy.Tensor", Kind: Lowered, Lower: lowerSliceTensor})
	Register(Entry{Name: "aten::select.int", Kind: Lowered, Lower: lowerSelectInt})
	Register(Entry{Name: "aten::select_copy.int", Kind: Lowered, Lower: lowerSelectInt})
	Register(Entry{Name: "aten::narrow", Kind: Lowered, Lower: lowerNarrow})
	Register(Entry{Name: "aten::narrow_copy", Kind: Lowered, Lower: lowerNarrow})
	Register(Entry{Name: "aten::split.Tensor", Kind: Lowered, Lower: lowerSplit})
	Register(Entry{Name: "aten::split_copy.Tensor", Kind: Lowered, Lower: lowerSplit})
	Register(Entry{Name: "aten::split.sizes", Kind: Lowered, Lower: lowerSplitSizes})
	Register(Entry{Name: "aten::split_with_sizes", Kind: Lowered, Lower: lowerSplitSizes})
	Register(Entry{Name: "aten::split_with_sizes_copy", Kind: Lowered, Lower: lowerSplitSizes})
	Register(Entry{Name: "aten::chunk", Kind: Lowered, Lower: lowerChunk})
	Register(Entry{Name: "aten::unbind.int", Kind: Lowered, Lower: lowerUnbind})
	Register(Entry{Name: "aten::unbind_copy.int", Kind: Lowered, Lower: lowerUnbind})
	Register(Entry{Name: "aten::diagonal", Kind: Lowered, Lower: lowerDiagonal})
	Register(Entry{Name: "aten::diagonal_copy", Kind: Lowered, Lower: lowerDiagonal})
	Register(Entry{Name: "aten::unfold", Kind: Lowered, Lower: lowerUnfold})
	Register(Entry{Name: "aten::unfold_copy", Kind: Lowered, Lower: lowerUnfold})
	Register(Entry{Name: "aten::as_strided", Kind: Lowered, Lower: lowerAsStrided})
	Register(Entry{Name: "aten::as_strided_copy", Kind: Lowered, Lower: lowerAsStrided})
}

func lowerSliceTensor(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	start, hasStart := a.OptInt("start")
	end, hasEnd := a.OptInt("end")
	step := a.Int("step")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	if len(shape) == 0 {
		return nil, c.Errorf("slice() cannot be applied to a 0-dim tensor")
	}
	if !hasStart {
		start = 0
	}
	if !hasEnd {
		end = math.MaxInt64
	}
	first, n, err := sliceRange(shape[d], start, end, step)
	if err != nil {
		return nil, err
	}
	return one(sliceDim(c, x, d, first, n, step)), nil
}

// selectIndex takes index i along dim and drops the dim.
func selectIndex(c *LowerCtx, x *stablehlo.Value, d int, i int64) *stablehlo.Value {
	shape := c.Shape(x)
	s := sliceDim(c, x, d, i, 1, 1)
	out := append(append([]int64(nil), shape[:d]...), shape[d+1:]...)
	return c.Reshape(s, out)
}

func lowerSelectInt(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim, index := a.Int("dim"), a.Int("index")
	if a.Err() != nil {
		return nil, a.Err()
	}
	d, index, err := selectPos(c, "select", c.Shape(x), dim, index)
	if err != nil {
		return nil, err
	}
	return one(selectIndex(c, x, d, index)), nil
}

// selectPos checks select's dim and index (op names the op in the errors)
// against shape and returns both canonical.
func selectPos(c *LowerCtx, op string, shape []int64, dim, index int64) (int, int64, error) {
	d, err := nonScalarDim(c, op, shape, dim)
	if err != nil {
		return 0, 0, err
	}
	n := shape[d]
	if index < -n || index >= n {
		return 0, 0, c.Errorf("%s(): index %d out of range for tensor of size %v at dimension %d", op, index, shape, dim)
	}
	if index < 0 {
		index += n
	}
	return d, index, nil
}

// nonScalarDim is canonDim for the ops (op names it in the error) that
// refuse a 0-dim tensor before they look at dim.
func nonScalarDim(c *LowerCtx, op string, shape []int64, dim int64) (int, error) {
	if len(shape) == 0 {
		return 0, c.Errorf("%s() cannot be applied to a 0-dim tensor", op)
	}
	return canonDim(dim, len(shape))
}

func lowerNarrow(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim, start, length := a.Int("dim"), a.Int("start"), a.Int("length")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := nonScalarDim(c, "narrow", shape, dim)
	if err != nil {
		return nil, err
	}
	n := shape[d]
	if start < -n || start > n {
		return nil, c.Errorf("narrow(): start %d out of range for dimension of size %d", start, n)
	}
	if start < 0 {
		start += n
	}
	if length < 0 || start+length > n {
		return nil, c.Errorf("narrow(): start (%d) + length (%d) exceeds dimension size (%d)", start, length, n)
	}
	return one(sliceDim(c, x, d, start, length, 1)), nil
}

// splitPieces slices x along d into consecutive pieces of the given sizes.
func splitPieces(c *LowerCtx, x *stablehlo.Value, d int, sizes []int64) []Value {
	out := make([]Value, len(sizes))
	off := int64(0)
	for i, s := range sizes {
		out[i] = TensorValue(sliceDim(c, x, d, off, s, 1))
		off += s
	}
	return out
}

func lowerSplit(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size, dim := a.Int("split_size"), a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil || len(shape) == 0 {
		return nil, c.Errorf("split: bad dim %d for shape %v", dim, shape)
	}
	n := shape[d]
	if size < 0 || (size == 0 && n != 0) {
		return nil, c.Errorf("split expects split_size be non-negative, but got split_size=%d", size)
	}
	var sizes []int64
	if size == 0 {
		sizes = []int64{0}
	}
	for off := int64(0); off < n; off += size {
		sizes = append(sizes, min(size, n-off))
	}
	if n == 0 && size > 0 {
		sizes = []int64{0}
	}
	return []Value{ListValue(splitPieces(c, x, d, sizes)...)}, nil
}

func lowerSplitSizes(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	sizes := a.Ints(a.Schema.Params[1].Name)
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil || len(shape) == 0 {
		return nil, c.Errorf("split_with_sizes: bad dim %d for shape %v", dim, shape)
	}
	total := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return nil, c.Errorf("split_with_sizes expects split_sizes have only non-negative entries, but got %v", sizes)
		}
		total += s
	}
	if total != shape[d] {
		return nil, c.Errorf("split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%v", shape[d], dim, sizes)
	}
	return []Value{ListValue(splitPieces(c, x, d, sizes)...)}, nil
}

func lowerChunk(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	chunks, dim := a.Int("chunks"), a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if chunks <= 0 {
		return nil, c.Errorf("chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil || len(shape) == 0 {
		return nil, c.Errorf("chunk: bad dim %d for shape %v", dim, shape)
	}
	n := shape[d]
	size := (n + chunks - 1) / chunks
	if size == 0 {
		// PyTorch: split_size 0 when the dim is empty gives chunks pieces.
		sizes := make([]int64, chunks)
		return []Value{ListValue(splitPieces(c, x, d, sizes)...)}, nil
	}
	var sizes []int64
	for off := int64(0); off < n; off += size {
		sizes = append(sizes, min(size, n-off))
	}
	return []Value{ListValue(splitPieces(c, x, d, sizes)...)}, nil
}

func lowerUnbind(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) == 0 {
		return nil, c.Errorf("unbind: dimension specified as %d but tensor has no dimensions", dim)
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	out := make([]Value, shape[d])
	for i := range out {
		out[i] = TensorValue(selectIndex(c, x, d, int64(i)))
	}
	return []Value{ListValue(out...)}, nil
}

func lowerDiagonal(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	offset, dim1, dim2 := a.Int("offset"), a.Int("dim1"), a.Int("dim2")
	if a.Err() != nil {
		return nil, a.Err()
	}
	r := c.Rank(x)
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
	return one(diagonalOf(c, x, offset, d1, d2)), nil
}

// diagonalOf takes the diagonal x[..., i, ..., i+offset, ...] over dims d1
// and d2 (distinct): both dims are removed and the diagonal appended last.
func diagonalOf(c *LowerCtx, x *stablehlo.Value, offset int64, d1, d2 int) *stablehlo.Value {
	shape := c.Shape(x)
	r := len(shape)
	var n int64
	if offset >= 0 {
		n = max(0, min(shape[d1], shape[d2]-offset))
	} else {
		n = max(0, min(shape[d1]+offset, shape[d2]))
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
	sizes := append([]int64(nil), shape...)
	sizes[d1], sizes[d2] = 1, 1
	// With offset dims 0..r-3 the gathered (diagonal) dim comes last.
	g := &stablehlo.GatherDims{OffsetDims: seqI64(r - 2), CollapsedSliceDims: []int64{int64(min(d1, d2)), int64(max(d1, d2))},
		StartIndexMap: []int64{int64(d1), int64(d2)}, IndexVectorDim: 1}
	return emitGather(c, x, ind, g, sizes)
}

func lowerUnfold(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim, size, step := a.Int("dimension"), a.Int("size"), a.Int("step")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) == 0 {
		// A 0-d tensor unfolds to [size] (size 0 or 1).
		if dim != 0 && dim != -1 {
			return nil, c.Errorf("Dimension out of range (expected to be in range of [-1, 0], but got %d)", dim)
		}
		if size < 0 || size > 1 {
			return nil, c.Errorf("unfold: maximum size for tensor at dimension 0 is 1 but size is %d", size)
		}
		if step <= 0 {
			return nil, c.Errorf("unfold: step is %d but must be > 0", step)
		}
		return one(c.BroadcastInDim(x, []int64{size}, nil)), nil
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	if size < 0 || size > shape[d] {
		return nil, c.Errorf("unfold: maximum size for tensor at dimension %d is %d but size is %d", d, shape[d], size)
	}
	if step <= 0 {
		return nil, c.Errorf("unfold: step is %d but must be > 0", step)
	}
	w := (shape[d]-size)/step + 1
	idx := make([]int64, 0, w*size)
	for i := int64(0); i < w; i++ {
		for j := int64(0); j < size; j++ {
			idx = append(idx, i*step+j)
		}
	}
	g := takeAlong(c, x, d, []int64{w, size}, idx) // dims: ..., w, size, ...
	r := len(shape) + 1
	perm := make([]int64, 0, r)
	for i := 0; i < r; i++ {
		if i != d+1 {
			perm = append(perm, int64(i))
		}
	}
	perm = append(perm, int64(d+1))
	return one(emitTranspose(c, g, perm)), nil
}

// lowerAsStrided reads the input as a contiguous buffer (the layout every
// tensor has here) and gathers the strided elements.
func lowerAsStrided(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	size, stride := a.Ints("size"), a.Ints("stride")
	off, _ := a.OptInt("storage_offset")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if len(size) != len(stride) {
		return nil, c.Errorf("as_strided: mismatch in length of strides and shape")
	}
	numel := numelOf(c.Shape(x))
	idx, err := stridedIndex(c, "as_strided", size, stride, off, numel)
	if err != nil {
		return nil, err
	}
	flat := c.Reshape(x, []int64{numel})
	g := takeAlong(c, flat, 0, []int64{int64(len(idx))}, idx)
	return one(c.Reshape(g, size)), nil
}

// stridedIndex lists, in row-major order of size, the flat position of each
// element that size, stride and offset off select from a contiguous buffer
// of numel elements; op names the op in the errors.
func stridedIndex(c *LowerCtx, op string, size, stride []int64, off, numel int64) ([]int64, error) {
	total, err := checkedNumel(size)
	if err != nil {
		return nil, c.Errorf("%s: %w", op, err)
	}
	idx := make([]int64, total)
	for i := int64(0); i < total; i++ {
		rem, p := i, off
		for k := len(size) - 1; k >= 0; k-- {
			p += (rem % size[k]) * stride[k]
			rem /= size[k]
		}
		if p < 0 || p >= numel {
			return nil, c.Errorf("%s: size %v, stride %v, offset %d reach element %d of a tensor with %d elements", op, size, stride, off, p, numel)
		}
		idx[i] = p
	}
	return idx, nil
}
