package stablehlo

import "fmt"

func init() {
	registerInfer(inferGather, "stablehlo.gather")
	registerInfer(inferDynamicGather, "stablehlo.dynamic_gather")
	registerInfer(inferScatter, "stablehlo.scatter")
}

// gatherShape computes the gather result shape (spec: gather, C1-C22 in
// shape form) for the given slice sizes.
func gatherShape(operand, indices *TensorType, g *GatherDims, sizes []int64) ([]int64, error) {
	r := operand.Rank()
	if len(sizes) != r {
		return nil, fmt.Errorf("slice_sizes %v has %d entries for operand rank %d", sizes, len(sizes), r)
	}
	ivd := g.IndexVectorDim
	if ivd < 0 || ivd > int64(indices.Rank()) {
		return nil, fmt.Errorf("index_vector_dim %d out of range for indices rank %d", ivd, indices.Rank())
	}
	nIdx := int64(1)
	if ivd < int64(indices.Rank()) {
		nIdx = indices.Shape[ivd]
	}
	if nIdx != Dynamic && int64(len(g.StartIndexMap)) != nIdx {
		return nil, fmt.Errorf("start_index_map %v has %d entries, index vectors have %d", g.StartIndexMap, len(g.StartIndexMap), nIdx)
	}
	if err := checkUniqueDims("start_index_map", g.StartIndexMap, r); err != nil {
		return nil, err
	}
	removed := append(append([]int64{}, g.CollapsedSliceDims...), g.OperandBatchingDims...)
	if err := checkUniqueDims("collapsed_slice_dims+operand_batching_dims", removed, r); err != nil {
		return nil, err
	}
	if len(g.OperandBatchingDims) != len(g.StartIndicesBatchingDims) {
		return nil, fmt.Errorf("operand_batching_dims %v and start_indices_batching_dims %v differ in length", g.OperandBatchingDims, g.StartIndicesBatchingDims)
	}
	for _, d := range g.CollapsedSliceDims {
		if sizes[d] > 1 {
			return nil, fmt.Errorf("collapsed dim %d has slice size %d, want at most 1", d, sizes[d])
		}
	}
	for i, s := range sizes {
		if s < 0 || (operand.Shape[i] != Dynamic && s > operand.Shape[i]) {
			return nil, fmt.Errorf("slice size %d of dim %d exceeds operand size %d", s, i, operand.Shape[i])
		}
	}
	var offsets []int64
	for d, s := range sizes {
		if !contains(removed, int64(d)) {
			offsets = append(offsets, s)
		}
	}
	if len(offsets) != len(g.OffsetDims) {
		return nil, fmt.Errorf("offset_dims %v has %d entries, the slice keeps %d dims", g.OffsetDims, len(g.OffsetDims), len(offsets))
	}
	var batch []int64
	for d, n := range indices.Shape {
		if int64(d) != ivd {
			batch = append(batch, n)
		}
	}
	rank := len(batch) + len(offsets)
	if err := checkUniqueDims("offset_dims", g.OffsetDims, rank); err != nil {
		return nil, err
	}
	shape := make([]int64, rank)
	bi, oi := 0, 0
	for d := range shape {
		if contains(g.OffsetDims, int64(d)) {
			shape[d] = offsets[oi]
			oi++
		} else {
			shape[d] = batch[bi]
			bi++
		}
	}
	return shape, nil
}

func gatherOperands(op *Op, n int) (*TensorType, *TensorType, *GatherDims, error) {
	if err := wantOperands(op, n); err != nil {
		return nil, nil, nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, nil, nil, err
	}
	g, ok := op.Attr("dimension_numbers").(*GatherDims)
	if !ok {
		return nil, nil, nil, fmt.Errorf("missing attribute dimension_numbers")
	}
	if !ts[1].DType().IsInteger() {
		return nil, nil, nil, fmt.Errorf("start indices %v must be integers", ts[1])
	}
	return ts[0], ts[1], g, nil
}

func inferGather(op *Op) ([]Type, error) {
	operand, indices, g, err := gatherOperands(op, 2)
	if err != nil {
		return nil, err
	}
	sizes, err := intsAttr(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	shape, err := gatherShape(operand, indices, g, sizes)
	if err != nil {
		return nil, err
	}
	return []Type{withShape(operand, shape)}, nil
}

func inferDynamicGather(op *Op) ([]Type, error) {
	if _, _, _, err := gatherOperands(op, 3); err != nil {
		return nil, err
	}
	return givenTypes(op)
}

func inferScatter(op *Op) ([]Type, error) {
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	if len(ts) < 3 || len(ts)%2 != 1 {
		return nil, fmt.Errorf("has %d operands, want inputs, indices and as many updates as inputs", len(ts))
	}
	n := (len(ts) - 1) / 2
	ins, idx, upd := ts[:n], ts[n], ts[n+1:]
	s, ok := op.Attr("scatter_dimension_numbers").(*ScatterDims)
	if !ok {
		return nil, fmt.Errorf("missing attribute scatter_dimension_numbers")
	}
	if !idx.DType().IsInteger() {
		return nil, fmt.Errorf("scatter indices %v must be integers", idx)
	}
	r := ins[0].Rank()
	if err := checkUniqueDims("scatter_dims_to_operand_dims", s.ScatterDimsToOperandDims, r); err != nil {
		return nil, err
	}
	if err := checkUniqueDims("inserted_window_dims+input_batching_dims", append(append([]int64{}, s.InsertedWindowDims...), s.InputBatchingDims...), r); err != nil {
		return nil, err
	}
	for i := range ins {
		if !shapesCompatible(ins[i].Shape, ins[0].Shape) || !shapesCompatible(upd[i].Shape, upd[0].Shape) {
			return nil, fmt.Errorf("inputs and updates must share their shapes")
		}
	}
	wantUpd := len(s.UpdateWindowDims) + idx.Rank()
	if s.IndexVectorDim < int64(idx.Rank()) {
		wantUpd--
	}
	if upd[0].Rank() != wantUpd {
		return nil, fmt.Errorf("updates have rank %d, want %d", upd[0].Rank(), wantUpd)
	}
	if len(s.UpdateWindowDims)+len(s.InsertedWindowDims)+len(s.InputBatchingDims) != r {
		return nil, fmt.Errorf("update_window_dims %v, inserted_window_dims %v and input_batching_dims %v do not cover operand rank %d",
			s.UpdateWindowDims, s.InsertedWindowDims, s.InputBatchingDims, r)
	}
	elems, err := bodyElems(op, 0, scalarsOf(ins))
	if err != nil {
		return nil, fmt.Errorf("update computation: %w", err)
	}
	out := make([]Type, n)
	for i, t := range ins {
		out[i] = withElem(t, elems[i])
	}
	return out, nil
}

func scalarsOf(ts []*TensorType) []*TensorType {
	out := make([]*TensorType, len(ts))
	for i, t := range ts {
		out[i] = scalarOf(t.Elem)
	}
	return out
}
