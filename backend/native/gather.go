package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// gather, dynamic_gather and the deprecated torch_index_select.

func init() {
	register("stablehlo.gather", kGather)
	register("stablehlo.dynamic_gather", kDynamicGather)
	register("stablehlo.torch_index_select", kTorchIndexSelect)
}

func kGather(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	sizes, err := mvInts(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	return mvGatherOp(env, op, in, sizes)
}

func kDynamicGather(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	s, err := tensorArg(op, in, 2)
	if err != nil {
		return nil, err
	}
	sizes, err := mvIndexList(op, s, "slice_sizes")
	if err != nil {
		return nil, err
	}
	return mvGatherOp(env, op, in, sizes)
}

func mvGatherOp(env Env, op *stablehlo.Op, in []Value, sizes []int64) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	idx, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	g, ok := op.Attr("dimension_numbers").(*stablehlo.GatherDims)
	if !ok {
		return nil, fmt.Errorf("%s: missing attribute dimension_numbers (#stablehlo.gather)", op.Name)
	}
	out, err := mvGather(env, op, x, idx, g, sizes)
	if err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// mvGather implements the spec's gather: for each batch position of the
// start indices, one window of the operand (its start clamped so the
// window fits) is copied into the result.
func mvGather(env Env, op *stablehlo.Op, x, idx *literal.Literal, g *stablehlo.GatherDims, sizes []int64) (*literal.Literal, error) {
	r, ri := x.Rank(), idx.Rank()
	if !mvIsIndexType(idx.DType) {
		return nil, fmt.Errorf("%s: start_indices must have an integer type, got %v", op.Name, idx)
	}
	ivd := g.IndexVectorDim
	if ivd < 0 || ivd > int64(ri) {
		return nil, fmt.Errorf("%s: index_vector_dim %d out of range for start_indices %v", op.Name, ivd, idx)
	}
	vecLen, vecStride := int64(1), int64(0)
	is := literal.Strides(idx.Shape)
	if ivd < int64(ri) {
		vecLen, vecStride = idx.Shape[ivd], is[ivd]
	}
	if int64(len(g.StartIndexMap)) != vecLen {
		return nil, fmt.Errorf("%s: start_index_map %v needs %d entries (index vector length)", op.Name, g.StartIndexMap, vecLen)
	}
	if len(sizes) != r {
		return nil, fmt.Errorf("%s: slice_sizes %v for operand %v", op.Name, sizes, x)
	}
	for d, s := range sizes {
		if s < 0 || s > x.Shape[d] {
			return nil, fmt.Errorf("%s: slice_sizes %v do not fit operand %v", op.Name, sizes, x)
		}
	}
	if err := mvAxes(op, "start_index_map", g.StartIndexMap, r); err != nil {
		return nil, err
	}
	dropped := append(append([]int64{}, g.CollapsedSliceDims...), g.OperandBatchingDims...)
	if err := mvAxes(op, "collapsed_slice_dims+operand_batching_dims", dropped, r); err != nil {
		return nil, err
	}
	if err := mvAxes(op, "start_indices_batching_dims", g.StartIndicesBatchingDims, ri); err != nil {
		return nil, err
	}
	if len(g.StartIndicesBatchingDims) != len(g.OperandBatchingDims) || mvContains(g.StartIndicesBatchingDims, ivd) {
		return nil, fmt.Errorf("%s: bad batching dims %v / %v", op.Name, g.OperandBatchingDims, g.StartIndicesBatchingDims)
	}
	for i, d := range g.OperandBatchingDims {
		if x.Shape[d] != idx.Shape[g.StartIndicesBatchingDims[i]] {
			return nil, fmt.Errorf("%s: operand batching dim %d of %v does not match start_indices dim %d of %v", op.Name, d, x, g.StartIndicesBatchingDims[i], idx)
		}
	}

	// Window: operand dims not dropped, in order, land on offset_dims.
	var winDims, winSizes []int64
	zeroDropped := false
	for d := int64(0); d < int64(r); d++ {
		if mvContains(dropped, d) {
			if sizes[d] > 1 {
				return nil, fmt.Errorf("%s: slice size %d on collapsed or batching dim %d", op.Name, sizes[d], d)
			}
			zeroDropped = zeroDropped || sizes[d] == 0
			continue
		}
		winDims = append(winDims, d)
		winSizes = append(winSizes, sizes[d])
	}
	var batchShape []int64
	for d := 0; d < ri; d++ {
		if int64(d) != ivd {
			batchShape = append(batchShape, idx.Shape[d])
		}
	}
	rr := len(batchShape) + len(winDims)
	if len(g.OffsetDims) != len(winDims) {
		return nil, fmt.Errorf("%s: offset_dims %v needs %d entries", op.Name, g.OffsetDims, len(winDims))
	}
	if err := mvAxes(op, "offset_dims", g.OffsetDims, rr); err != nil {
		return nil, err
	}
	for j := 1; j < len(g.OffsetDims); j++ {
		if g.OffsetDims[j] < g.OffsetDims[j-1] {
			return nil, fmt.Errorf("%s: offset_dims %v must be sorted", op.Name, g.OffsetDims)
		}
	}
	shape := make([]int64, rr)
	var batchRes []int64 // result dim of each batch dim
	for d, j, k := 0, 0, 0; d < rr; d++ {
		if j < len(g.OffsetDims) && g.OffsetDims[j] == int64(d) {
			shape[d] = winSizes[j]
			j++
			continue
		}
		shape[d] = batchShape[k]
		batchRes = append(batchRes, int64(d))
		k++
	}
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := mvTake(env, op, x.DType, shape) // every element is copied
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return out, nil
	}
	if zeroDropped {
		return nil, fmt.Errorf("%s: slice size 0 on a collapsed or batching dim with a non-empty result", op.Name)
	}

	xs, rs := literal.Strides(x.Shape), literal.Strides(shape)
	dstStr := make([]int64, len(winDims))
	srcStr := make([]int64, len(winDims))
	for j, d := range winDims {
		dstStr[j], srcStr[j] = rs[g.OffsetDims[j]], xs[d]
	}
	plan := newCopyPlan(x.DType.Size(), winSizes, dstStr, srcStr)

	// Batch dim k of the result is start_indices dim idxDim[k].
	nb := len(batchShape)
	idxDim := make([]int64, nb)
	for k := range idxDim {
		idxDim[k] = int64(k)
		if int64(k) >= ivd {
			idxDim[k]++
		}
	}
	// For operand batching dim i: which batch counter feeds it.
	batchFrom := make([]int, len(g.OperandBatchingDims))
	for i, sd := range g.StartIndicesBatchingDims {
		batchFrom[i] = int(sd)
		if sd > ivd {
			batchFrom[i]--
		}
	}
	maxStart := make([]int64, len(g.StartIndexMap))
	for j, d := range g.StartIndexMap {
		maxStart[j] = x.Shape[d] - sizes[d]
	}

	b := make([]int64, nb)
	var iOff, dOff int64 // start_indices and result offsets of b
	for {
		sOff := int64(0)
		for j, d := range g.StartIndexMap {
			v := mvIndex(idx, int(iOff+int64(j)*vecStride))
			sOff += mvClamp(v, 0, maxStart[j]) * xs[d]
		}
		for i, d := range g.OperandBatchingDims {
			sOff += b[batchFrom[i]] * xs[d]
		}
		plan.run(out.Data, dOff, x.Data, sOff)

		k := nb - 1
		for ; k >= 0; k-- {
			b[k]++
			iOff += is[idxDim[k]]
			dOff += rs[batchRes[k]]
			if b[k] < batchShape[k] {
				break
			}
			iOff -= is[idxDim[k]] * batchShape[k]
			dOff -= rs[batchRes[k]] * batchShape[k]
			b[k] = 0
		}
		if k < 0 {
			return out, nil
		}
	}
}

// kTorchIndexSelect: result = x.shape[:dim] ++ index.shape[batch_dims:] ++
// x.shape[dim+1:]; the first batch_dims dims of x and index are shared,
// and index values select along dim (clamped into range, as gather does).
func kTorchIndexSelect(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	idx, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	dim, err := mvInt(op, "dim")
	if err != nil {
		return nil, err
	}
	bd, err := mvInt(op, "batch_dims")
	if err != nil {
		return nil, err
	}
	if dim < 0 { // negative values count from the end, as in MHLO
		dim += int64(x.Rank())
	}
	if bd < 0 {
		bd += int64(idx.Rank())
	}
	if !mvIsIndexType(idx.DType) || dim < 0 || dim >= int64(x.Rank()) || bd < 0 || bd > dim || bd > int64(idx.Rank()) {
		return nil, fmt.Errorf("%s: bad dim %d / batch_dims %d for operand %v and index %v", op.Name, dim, bd, x, idx)
	}
	for d := int64(0); d < bd; d++ {
		if x.Shape[d] != idx.Shape[d] {
			return nil, fmt.Errorf("%s: batch dim %d of operand %v and index %v differ", op.Name, d, x, idx)
		}
	}
	shape := append(append(append([]int64{}, x.Shape[:dim]...), idx.Shape[bd:]...), x.Shape[dim+1:]...)
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := mvNew(op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	if out.Len() == 0 {
		return []Value{out}, nil
	}
	p := mvProd((x.Shape[:dim]))
	mid := mvProd((x.Shape[bd:dim]))
	q := mvProd((idx.Shape[bd:]))
	s := mvProd((x.Shape[dim+1:])) * int64(x.DType.Size())
	n := x.Shape[dim]
	if n == 0 {
		return nil, fmt.Errorf("%s: cannot select from the empty dim %d of %v", op.Name, dim, x)
	}
	for pi := int64(0); pi < p; pi++ {
		for qi := int64(0); qi < q; qi++ {
			i := mvClamp(mvIndex(idx, int((pi/mid)*q+qi)), 0, n-1)
			src := (pi*n + i) * s
			dst := (pi*q + qi) * s
			copy(out.Data[dst:dst+s], x.Data[src:src+s])
		}
	}
	return []Value{out}, nil
}

// mvProd multiplies dims (1 for none).
func mvProd(s []int64) int64 {
	n := int64(1)
	for _, d := range s {
		n *= d
	}
	return n
}
