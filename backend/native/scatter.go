package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// scatter: results start as the inputs; for every update element in
// row-major order whose result index is in bounds, update_computation
// combines the current result element with the update element. Update
// elements whose result index is out of bounds are skipped, one by one.
// indices_are_sorted / unique_indices do not change the semantics.

func init() {
	register("stablehlo.scatter", kScatter)
}

// scatterGeom is the validated index geometry of one scatter op.
type scatterGeom struct {
	shape      []int64 // inputs' shape
	winDims    []int64 // input dim of each update window dim
	batchShape []int64 // update scatter dims' sizes
	updScatter []int64 // update dim of each scatter batch dim
	idxDim     []int64 // start_indices dim of each scatter batch dim
	batchFrom  []int   // per input batching dim: the batch counter feeding it
	vecStride  int64
}

func kScatter(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) < 3 || len(in)%2 == 0 {
		return nil, fmt.Errorf("%s: want 2N+1 operands (inputs, indices, updates), got %d", op.Name, len(in))
	}
	n := (len(in) - 1) / 2
	xs, err := mvTensors(op, in, 0, n)
	if err != nil {
		return nil, err
	}
	idx, err := tensorArg(op, in, n)
	if err != nil {
		return nil, err
	}
	us, err := mvTensors(op, in, n+1, 2*n+1)
	if err != nil {
		return nil, err
	}
	sd, ok := op.Attr("scatter_dimension_numbers").(*stablehlo.ScatterDims)
	if !ok {
		return nil, fmt.Errorf("%s: missing attribute scatter_dimension_numbers (#stablehlo.scatter)", op.Name)
	}
	if len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
		return nil, fmt.Errorf("%s: missing update_computation region", op.Name)
	}
	body := op.Regions[0]
	for i := range xs {
		if !mvSameShape(xs[i].Shape, xs[0].Shape) || !mvSameShape(us[i].Shape, us[0].Shape) {
			return nil, fmt.Errorf("%s: inputs (%v) or updates (%v) differ in shape", op.Name, xs[i], us[i])
		}
	}
	geo, err := scatterGeometry(op, xs[0], idx, us[0], sd)
	if err != nil {
		return nil, err
	}

	// Element types of the region: results take the first N, updates are
	// converted to the last N.
	args := body.Entry().Args
	if len(args) != 2*n {
		return nil, fmt.Errorf("%s: update_computation takes %d arguments, want %d", op.Name, len(args), 2*n)
	}
	resT := make([]dtype.DType, n)
	updT := make([]dtype.DType, n)
	for i := 0; i < n; i++ {
		resT[i] = mvArgDType(args[i].Type, xs[i].DType)
		updT[i] = mvArgDType(args[n+i].Type, us[i].DType)
	}
	outs := make([]*literal.Literal, n)
	for i, x := range xs {
		if err := mvCheckShape(op, i, x.Shape); err != nil {
			return nil, err
		}
		if x.DType == resT[i] {
			// the result starts as a copy of the input: the arena's buffer
			if outs[i], err = mvTake(env, op, x.DType, x.Shape); err != nil {
				return nil, err
			}
			parallelRange(len(x.Data), 1<<18, func(lo, hi int) { copy(outs[i].Data[lo:hi], x.Data[lo:hi]) })
			continue
		}
		if outs[i], err = mvConvertTo(op, x, resT[i]); err != nil {
			return nil, err
		}
	}
	upds := make([]*literal.Literal, n)
	for i, u := range us {
		upds[i] = u
		if u.DType == updT[i] {
			continue
		}
		if upds[i], err = mvConvertTo(op, u, updT[i]); err != nil {
			return nil, err
		}
	}

	replace := mvIsReplaceRegion(body, n)
	for i := range outs {
		replace = replace && resT[i] == updT[i]
	}
	var bin *scatterBinary
	if !replace && n == 1 {
		bin = mvScatterBinary(body)
	}
	rs := literal.Strides(geo.shape)
	ust := literal.Strides(us[0].Shape)
	if bin != nil && bin.ff != nil && len(geo.winDims) == 0 && len(sd.InputBatchingDims) == 0 &&
		outs[0].DType == dtype.F32 && upds[0].DType == dtype.F32 {
		if err := pointScatterF32(env, geo, sd, idx, ust, outs[0], upds[0], bin); err != nil {
			return nil, err
		}
		return mvValues(outs), nil
	}
	nw := len(geo.winDims)
	winSizes := make([]int64, nw)
	dstStr := make([]int64, nw)
	srcStr := make([]int64, nw)
	for j, d := range sd.UpdateWindowDims {
		winSizes[j] = us[0].Shape[d]
		srcStr[j] = ust[d]
		dstStr[j] = rs[geo.winDims[j]]
	}
	start := make([]int64, len(geo.shape))
	box := make([]int64, nw)
	callArgs := make([]Value, 2*n)

	err = forEachScatter(env, geo, idx, ust, func(b []int64, iOff, uOff int64) error {
		for d := range start {
			start[d] = 0
		}
		for j, d := range sd.ScatterDimsToOperandDims {
			start[d] = mvIndex(idx, int(iOff+int64(j)*geo.vecStride))
		}
		for i, d := range sd.InputBatchingDims {
			start[d] += b[geo.batchFrom[i]]
		}
		// Clip the window to the result; dims outside the window must be
		// in range themselves.
		rOff := int64(0)
		for d := range start {
			if !mvContains(geo.winDims, int64(d)) && (start[d] < 0 || start[d] >= geo.shape[d]) {
				return nil
			}
		}
		for j, d := range geo.winDims {
			lo := mvClamp(-start[d], 0, winSizes[j])
			hi := mvClamp(geo.shape[d]-start[d], 0, winSizes[j])
			if hi <= lo {
				return nil
			}
			box[j] = hi - lo
			uOff += lo * srcStr[j]
			start[d] += lo
		}
		for d := range start {
			rOff += start[d] * rs[d]
		}
		if replace {
			for i := range outs {
				copyBox(outs[i].DType.Size(), box, outs[i].Data, rOff, dstStr, upds[i].Data, uOff, srcStr)
			}
			return nil
		}
		if bin != nil {
			return bin.apply(env, op, outs[0], upds[0], box, rOff, dstStr, uOff, srcStr)
		}
		return mvScatterBox(env, op, body, outs, upds, box, rOff, dstStr, uOff, srcStr, callArgs)
	})
	if err != nil {
		return nil, err
	}
	return mvValues(outs), nil
}

// mvScatterBox applies the update computation over one clipped window.
func mvScatterBox(env Env, op *stablehlo.Op, body *stablehlo.Region, outs, upds []*literal.Literal,
	box []int64, rOff int64, dstStr []int64, uOff int64, srcStr []int64, callArgs []Value) error {
	n := len(outs)
	w := make([]int64, len(box))
	for {
		for i := range outs {
			callArgs[i] = mvScalarCopy(outs[i], rOff)
			callArgs[n+i] = mvScalarView(upds[i], uOff)
		}
		res, err := env.CallRegion(body, callArgs)
		if err != nil {
			return fmt.Errorf("%s: update_computation: %w", op.Name, err)
		}
		if len(res) != n {
			return fmt.Errorf("%s: update_computation returned %d values, want %d", op.Name, len(res), n)
		}
		for i, v := range res {
			l, ok := v.(*literal.Literal)
			if !ok || l.DType != outs[i].DType || l.Len() != 1 {
				return fmt.Errorf("%s: update_computation result #%d is %v, want a %v scalar", op.Name, i, v, outs[i].DType)
			}
			esz := int64(l.DType.Size())
			copy(outs[i].Data[rOff*esz:(rOff+1)*esz], l.Data)
		}
		k := len(box) - 1
		for ; k >= 0; k-- {
			w[k]++
			rOff += dstStr[k]
			uOff += srcStr[k]
			if w[k] < box[k] {
				break
			}
			rOff -= dstStr[k] * box[k]
			uOff -= srcStr[k] * box[k]
			w[k] = 0
		}
		if k < 0 {
			return nil
		}
	}
}
