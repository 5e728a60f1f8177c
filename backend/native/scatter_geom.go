package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Index geometry and element helpers of scatter.

// scatterGeometry validates the scatter dimension numbers against the
// shapes of inputs[0] (x), the indices and updates[0] (u).
func scatterGeometry(op *stablehlo.Op, x, idx, u *literal.Literal, sd *stablehlo.ScatterDims) (*scatterGeom, error) {
	r, ri, ru := x.Rank(), idx.Rank(), u.Rank()
	if !mvIsIndexType(idx.DType) {
		return nil, fmt.Errorf("%s: scatter_indices must have an integer type, got %v", op.Name, idx)
	}
	ivd := sd.IndexVectorDim
	if ivd < 0 || ivd > int64(ri) {
		return nil, fmt.Errorf("%s: index_vector_dim %d out of range for scatter_indices %v", op.Name, ivd, idx)
	}
	g := &scatterGeom{shape: x.Shape}
	vecLen := int64(1)
	is := literal.Strides(idx.Shape)
	if ivd < int64(ri) {
		vecLen, g.vecStride = idx.Shape[ivd], is[ivd]
	}
	if int64(len(sd.ScatterDimsToOperandDims)) != vecLen {
		return nil, fmt.Errorf("%s: scatter_dims_to_operand_dims %v needs %d entries (index vector length)", op.Name, sd.ScatterDimsToOperandDims, vecLen)
	}
	if err := mvAxes(op, "scatter_dims_to_operand_dims", sd.ScatterDimsToOperandDims, r); err != nil {
		return nil, err
	}
	dropped := append(append([]int64{}, sd.InsertedWindowDims...), sd.InputBatchingDims...)
	if err := mvAxes(op, "inserted_window_dims+input_batching_dims", dropped, r); err != nil {
		return nil, err
	}
	if err := mvAxes(op, "scatter_indices_batching_dims", sd.ScatterIndicesBatchingDims, ri); err != nil {
		return nil, err
	}
	if len(sd.ScatterIndicesBatchingDims) != len(sd.InputBatchingDims) || mvContains(sd.ScatterIndicesBatchingDims, ivd) {
		return nil, fmt.Errorf("%s: bad batching dims %v / %v", op.Name, sd.InputBatchingDims, sd.ScatterIndicesBatchingDims)
	}
	for i, d := range sd.InputBatchingDims {
		if x.Shape[d] != idx.Shape[sd.ScatterIndicesBatchingDims[i]] {
			return nil, fmt.Errorf("%s: input batching dim %d of %v does not match scatter_indices dim %d of %v", op.Name, d, x, sd.ScatterIndicesBatchingDims[i], idx)
		}
	}
	for d := int64(0); d < int64(r); d++ {
		if !mvContains(dropped, d) {
			g.winDims = append(g.winDims, d)
		}
	}
	if len(sd.UpdateWindowDims) != len(g.winDims) {
		return nil, fmt.Errorf("%s: update_window_dims %v needs %d entries", op.Name, sd.UpdateWindowDims, len(g.winDims))
	}
	if err := mvAxes(op, "update_window_dims", sd.UpdateWindowDims, ru); err != nil {
		return nil, err
	}
	for j, d := range sd.UpdateWindowDims {
		if j > 0 && d < sd.UpdateWindowDims[j-1] {
			return nil, fmt.Errorf("%s: update_window_dims %v must be sorted", op.Name, sd.UpdateWindowDims)
		}
		if u.Shape[d] > x.Shape[g.winDims[j]] {
			return nil, fmt.Errorf("%s: update window dim %d of %v is larger than input dim %d of %v", op.Name, d, u, g.winDims[j], x)
		}
	}
	for d := int64(0); d < int64(ri); d++ {
		if d != ivd {
			g.idxDim = append(g.idxDim, d)
			g.batchShape = append(g.batchShape, idx.Shape[d])
		}
	}
	for d := int64(0); d < int64(ru); d++ {
		if !mvContains(sd.UpdateWindowDims, d) {
			g.updScatter = append(g.updScatter, d)
		}
	}
	if len(g.updScatter) != len(g.batchShape) {
		return nil, fmt.Errorf("%s: updates %v have %d scatter dims, scatter_indices %v give %d", op.Name, u, len(g.updScatter), idx, len(g.batchShape))
	}
	for k, d := range g.updScatter {
		if u.Shape[d] != g.batchShape[k] {
			return nil, fmt.Errorf("%s: updates %v do not match scatter_indices %v in scatter dim %d", op.Name, u, idx, d)
		}
	}
	g.batchFrom = make([]int, len(sd.InputBatchingDims))
	for i, sdim := range sd.ScatterIndicesBatchingDims {
		g.batchFrom[i] = int(sdim)
		if sdim > ivd {
			g.batchFrom[i]--
		}
	}
	return g, nil
}

// forEachScatter calls fn for every scatter batch position b, with the
// flat offsets of its index vector in the indices and of its window origin
// in the updates (update strides ust).
func forEachScatter(env Env, g *scatterGeom, idx *literal.Literal, ust []int64, fn func(b []int64, iOff, uOff int64) error) error {
	for _, n := range g.batchShape {
		if n == 0 {
			return nil
		}
	}
	is := literal.Strides(idx.Shape)
	nb := len(g.batchShape)
	b := make([]int64, nb)
	var iOff, uOff int64
	for count := 0; ; count++ {
		if err := fn(b, iOff, uOff); err != nil {
			return err
		}
		if count&1023 == 1023 {
			if err := env.Context().Err(); err != nil {
				return err
			}
		}
		k := nb - 1
		for ; k >= 0; k-- {
			b[k]++
			iOff += is[g.idxDim[k]]
			uOff += ust[g.updScatter[k]]
			if b[k] < g.batchShape[k] {
				break
			}
			iOff -= is[g.idxDim[k]] * g.batchShape[k]
			uOff -= ust[g.updScatter[k]] * g.batchShape[k]
			b[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}

// mvIsReplaceRegion reports whether body just returns its last n
// arguments in order (a plain overwrite).
func mvIsReplaceRegion(body *stablehlo.Region, n int) bool {
	blk := body.Entry()
	if blk == nil || len(blk.Ops) != 1 || len(blk.Args) != 2*n {
		return false
	}
	ret := blk.Ops[0]
	if len(ret.Operands) != n {
		return false
	}
	for i, v := range ret.Operands {
		if v != blk.Args[n+i] {
			return false
		}
	}
	return true
}

// mvArgDType is the element type of a region argument type (def when it
// has none).
func mvArgDType(t stablehlo.Type, def dtype.DType) dtype.DType {
	if tt := stablehlo.AsTensor(t); tt != nil && tt.DType() != dtype.Invalid {
		return tt.DType()
	}
	return def
}

// mvConvertTo returns x with element type dt: x itself when it already
// has it (callers that write must clone), else a converted copy (the
// widening conversions the spec's is_promotable allows).
func mvConvertTo(op *stablehlo.Op, x *literal.Literal, dt dtype.DType) (*literal.Literal, error) {
	if x.DType == dt {
		return x.Clone(), nil
	}
	out, err := mvNew(op, dt, x.Shape)
	if err != nil {
		return nil, err
	}
	for i := 0; i < x.Len(); i++ {
		switch {
		case dt.IsComplex():
			out.SetComplex128(i, x.Complex128(i))
		case dt.IsFloat():
			out.SetFloat64(i, x.Float64(i))
		case dt == dtype.Bool:
			if x.Complex128(i) != 0 {
				out.SetInt64(i, 1)
			}
		case x.DType.IsFloat():
			out.SetInt64(i, int64(x.Float64(i)))
		default:
			out.SetInt64(i, x.Int64(i))
		}
	}
	return out, nil
}

// mvScalarCopy returns element i of l as a fresh 0-d literal.
func mvScalarCopy(l *literal.Literal, i int64) *literal.Literal {
	esz := int64(l.DType.Size())
	return &literal.Literal{DType: l.DType, Shape: []int64{}, Data: append([]byte(nil), l.Data[i*esz:(i+1)*esz]...)}
}

// mvScalarView returns element i of l as a 0-d literal sharing its bytes
// (for values that are never written).
func mvScalarView(l *literal.Literal, i int64) *literal.Literal {
	esz := int64(l.DType.Size())
	a := i * esz
	return &literal.Literal{DType: l.DType, Shape: []int64{}, Data: l.Data[a : a+esz : a+esz]}
}
