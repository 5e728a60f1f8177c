package aten

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Reading by index: index.Tensor (advanced indexing), index_select,
// gather, embedding, one_hot. StableHLO gather clamps out-of-range starts
// where PyTorch raises; negative indices are wrapped once first, as
// PyTorch does.

func init() {
	// Boolean mask indices make the shape data-dependent: the lowering
	// then reports ErrHostOnly and the host kernel runs instead.
	Register(Entry{Name: "aten::index.Tensor", Kind: Lowered, Lower: lowerIndexTensor, Host: hostIndexTensor})
	Register(Entry{Name: "aten::_unsafe_index.Tensor", Kind: Lowered, Lower: lowerIndexTensor, Host: hostIndexTensor})
	lower("aten::index_select", lowerIndexSelect)
	lower("aten::gather", lowerGather)
	lower("aten::take_along_dim", lowerTakeAlongDim)
	lower("aten::embedding", lowerEmbedding)
	lower("aten::one_hot", lowerOneHot)
}

// wrapIndex converts an index tensor to int64 and adds size to negative
// entries.
func wrapIndex(c *LowerCtx, idx *stablehlo.Value, size int64) (*stablehlo.Value, error) {
	dt := c.DType(idx)
	if !dt.IsInteger() {
		if dt == dtype.Bool {
			return nil, c.Errorf("boolean mask indices have a data-dependent shape: %w", ErrHostOnly)
		}
		return nil, c.Errorf("tensors used as indices must be long, int, byte or bool tensors, got %v", dt)
	}
	if dt == dtype.U8 {
		return nil, c.Errorf("uint8 mask indices have a data-dependent shape: %w", ErrHostOnly)
	}
	i := c.Convert(idx, dtype.I64)
	if dt.IsUnsigned() {
		return i, nil
	}
	shape := c.Shape(i)
	neg := c.Compare("LT", i, c.SplatInt(dtype.I64, shape, 0))
	return c.Select(neg, c.Binary("add", i, c.SplatInt(dtype.I64, shape, size)), i), nil
}

// advIndex describes an advanced-indexing expression x[indices].
type advIndex struct {
	dims     []int64 // indexed dims of x, ascending
	batch    []int64 // broadcast shape of the index tensors
	ind      *stablehlo.Value
	moveTo   int     // where the batch dims go in PyTorch's result (-1: front, as gathered)
	rest     []int64 // sizes of the dims not indexed, in order
	resShape []int64 // PyTorch's result shape
}

func buildAdvIndex(c *LowerCtx, x *stablehlo.Value, idx []*stablehlo.Value) (*advIndex, error) {
	shape := c.Shape(x)
	if len(idx) > len(shape) {
		return nil, c.Errorf("too many indices for tensor of dimension %d (got %d)", len(shape), len(idx))
	}
	ai := &advIndex{moveTo: -1}
	var wrapped []*stablehlo.Value
	var shapes [][]int64
	for d, t := range idx {
		if t == nil {
			continue
		}
		w, err := wrapIndex(c, t, shape[d])
		if err != nil {
			return nil, err
		}
		ai.dims = append(ai.dims, int64(d))
		wrapped = append(wrapped, w)
		shapes = append(shapes, c.Shape(w))
	}
	if len(wrapped) == 0 {
		return nil, nil
	}
	b, err := broadcastShapes(shapes...)
	if err != nil {
		return nil, c.Errorf("shape mismatch: indexing tensors could not be broadcast together: %w", err)
	}
	ai.batch = b
	nb := len(b)
	parts := make([]*stablehlo.Value, len(wrapped))
	col := append(append([]int64(nil), b...), 1)
	for i, w := range wrapped {
		parts[i] = c.Reshape(c.BroadcastTo(w, b), col)
	}
	ai.ind = emitConcat(c, parts, nb)
	adjacent := true
	for i := 1; i < len(ai.dims); i++ {
		if ai.dims[i] != ai.dims[i-1]+1 {
			adjacent = false
		}
	}
	indexed := map[int64]bool{}
	for _, d := range ai.dims {
		indexed[d] = true
	}
	for d, s := range shape {
		if !indexed[int64(d)] {
			ai.rest = append(ai.rest, s)
		}
	}
	if adjacent && ai.dims[0] > 0 {
		ai.moveTo = int(ai.dims[0])
		ai.resShape = append(append(append([]int64(nil), shape[:ai.moveTo]...), b...), shape[ai.dims[len(ai.dims)-1]+1:]...)
	} else {
		ai.resShape = append(append([]int64(nil), b...), ai.rest...)
	}
	return ai, nil
}

// toTorchOrder is the permutation from gather order (batch, rest) to
// PyTorch's order (rest before, batch, rest after).
func (ai *advIndex) toTorchOrder() []int64 {
	nb, p := int64(len(ai.batch)), int64(ai.moveTo)
	n := nb + int64(len(ai.rest))
	perm := make([]int64, 0, n)
	for i := nb; i < nb+p; i++ {
		perm = append(perm, i)
	}
	for i := int64(0); i < nb; i++ {
		perm = append(perm, i)
	}
	for i := nb + p; i < n; i++ {
		perm = append(perm, i)
	}
	return perm
}

func lowerIndexTensor(c *LowerCtx, a *Args) ([]Value, error) {
	if hasMaskIndex(c, a.Value("indices").List) {
		// Not recorded in c: nothing was emitted, the host kernel takes over.
		return nil, fmt.Errorf("%s with a boolean mask index: %w", a.Schema.QualifiedName(), ErrHostOnly)
	}
	x := a.Tensor("self")
	idx := a.Tensors("indices")
	if a.Err() != nil {
		return nil, a.Err()
	}
	ai, err := buildAdvIndex(c, x, idx)
	if err != nil {
		return nil, err
	}
	if ai == nil {
		return one(x), nil
	}
	shape := c.Shape(x)
	sizes := append([]int64(nil), shape...)
	for _, d := range ai.dims {
		sizes[d] = 1
	}
	nb := int64(len(ai.batch))
	offs := make([]int64, len(ai.rest))
	for i := range offs {
		offs[i] = nb + int64(i)
	}
	g := &stablehlo.GatherDims{OffsetDims: offs, CollapsedSliceDims: ai.dims, StartIndexMap: ai.dims, IndexVectorDim: nb}
	out := emitGather(c, x, ai.ind, g, sizes)
	if ai.moveTo > 0 {
		out = emitTranspose(c, out, ai.toTorchOrder())
	}
	return one(out), nil
}

func lowerIndexSelect(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	idx := a.Tensor("index")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if c.Rank(idx) > 1 {
		return nil, c.Errorf("index_select(): Index is supposed to be a vector")
	}
	scalar := len(shape) == 0
	if scalar {
		x = c.Reshape(x, []int64{1})
		shape = []int64{1}
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	idx = c.Reshape(idx, []int64{numelOf(c.Shape(idx))})
	w, err := wrapIndex(c, idx, shape[d])
	if err != nil {
		return nil, err
	}
	out := takeAlongV(c, x, d, w)
	if scalar && numelOf(c.Shape(out)) == 1 {
		// A 0-d tensor indexed by one index stays 0-d.
		out = c.Reshape(out, nil)
	}
	return one(out), nil
}

// fullIndices builds, for an index tensor along dim, the [..., rank]
// coordinates of every element: iota in the other dims.
func fullIndices(c *LowerCtx, idx *stablehlo.Value, dim, rank int) *stablehlo.Value {
	ishape := c.Shape(idx)
	col := append(append([]int64(nil), ishape...), 1)
	parts := make([]*stablehlo.Value, rank)
	for d := 0; d < rank; d++ {
		if d == dim {
			parts[d] = c.Reshape(idx, col)
		} else {
			parts[d] = c.Reshape(c.Iota(dtype.I64, ishape, d), col)
		}
	}
	return emitConcat(c, parts, len(ishape))
}

// gatherAlong implements torch.gather for a wrapped int64 index of the
// same rank as x.
func gatherAlong(c *LowerCtx, x *stablehlo.Value, d int, idx *stablehlo.Value) *stablehlo.Value {
	r := c.Rank(x)
	ind := fullIndices(c, idx, d, r)
	sizes := make([]int64, r)
	for i := range sizes {
		sizes[i] = 1
	}
	all := seqI64(r)
	g := &stablehlo.GatherDims{CollapsedSliceDims: all, StartIndexMap: all, IndexVectorDim: int64(r)}
	return emitGather(c, x, ind, g, sizes)
}

func lowerGather(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	dim := a.Int("dim")
	idx := a.Tensor("index")
	if a.Err() != nil {
		return nil, a.Err()
	}
	shape := c.Shape(x)
	if len(shape) == 0 {
		x, shape = c.Reshape(x, []int64{1}), []int64{1}
		idx = c.Reshape(idx, []int64{numelOf(c.Shape(idx))})
	}
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	ishape := c.Shape(idx)
	if len(ishape) != len(shape) {
		return nil, c.Errorf("gather(): index tensor must have the same number of dimensions as input tensor")
	}
	for i := range ishape {
		if i != d && ishape[i] > shape[i] {
			return nil, c.Errorf("gather(): size of dimension %d of index (%d) must not exceed that of input (%d)", i, ishape[i], shape[i])
		}
	}
	if numelOf(ishape) == 0 {
		// Nothing to gather (the input may be empty too).
		return one(c.Splat(c.DType(x), c.Shape(a.Tensor("index")), 0)), nil
	}
	w, err := wrapIndex(c, idx, shape[d])
	if err != nil {
		return nil, err
	}
	out := gatherAlong(c, x, d, w)
	return one(c.Reshape(out, c.Shape(a.Tensor("index")))), nil
}

func lowerTakeAlongDim(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	idx := a.Tensor("indices")
	dim, hasDim := a.OptInt("dim")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if !hasDim || c.Rank(x) == 0 {
		x = c.Reshape(x, []int64{numelOf(c.Shape(x))})
		idx = c.Reshape(idx, []int64{numelOf(c.Shape(idx))})
		if !hasDim {
			dim = 0
		}
	}
	shape := c.Shape(x)
	d, err := canonDim(dim, len(shape))
	if err != nil {
		return nil, err
	}
	ishape := c.Shape(idx)
	if len(ishape) != len(shape) {
		return nil, c.Errorf("take_along_dim(): input and indices should have the same number of dimensions")
	}
	xb, ib := append([]int64(nil), shape...), append([]int64(nil), ishape...)
	xb[d], ib[d] = 1, 1
	bs, err := broadcastShapes(xb, ib)
	if err != nil {
		return nil, c.Errorf("take_along_dim(): %w", err)
	}
	xs, is := append([]int64(nil), bs...), append([]int64(nil), bs...)
	xs[d], is[d] = shape[d], ishape[d]
	x, idx = c.BroadcastTo(x, xs), c.BroadcastTo(idx, is)
	w, err := wrapIndex(c, idx, shape[d])
	if err != nil {
		return nil, err
	}
	return one(gatherAlong(c, x, d, w)), nil
}

func lowerEmbedding(c *LowerCtx, a *Args) ([]Value, error) {
	w := a.Tensor("weight")
	idx := a.Tensor("indices")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.Rank(w) != 2 {
		return nil, c.Errorf("embedding: 'weight' must be 2-D, got %v", c.Shape(w))
	}
	dt := c.DType(idx)
	if dt != dtype.I64 && dt != dtype.I32 {
		return nil, c.Errorf("embedding(): expected indices of type Long or Int, got %v", dt)
	}
	wi, err := wrapIndex(c, idx, c.Shape(w)[0])
	if err != nil {
		return nil, err
	}
	return one(takeAlongV(c, w, 0, wi)), nil
}

func lowerOneHot(c *LowerCtx, a *Args) ([]Value, error) {
	x := a.Tensor("self")
	n := a.Int("num_classes")
	if a.Err() != nil {
		return nil, a.Err()
	}
	if c.DType(x) != dtype.I64 {
		return nil, c.Errorf("one_hot is only applicable to index tensor of type LongTensor")
	}
	if n < 0 {
		return nil, c.Errorf("one_hot with num_classes=-1 infers the class count from the data: %w", ErrUnsupported)
	}
	shape := c.Shape(x)
	out := append(append([]int64(nil), shape...), n)
	xb := c.BroadcastInDim(x, out, seqI64(len(shape)))
	eq := c.Compare("EQ", xb, c.Iota(dtype.I64, out, len(shape)))
	return one(c.Convert(eq, dtype.I64)), nil
}
