package native

import (
	"fmt"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Slicing data movement: slice, dynamic_slice, dynamic_update_slice,
// real_dynamic_slice and concatenate.

func init() {
	register("stablehlo.slice", kSlice)
	register("stablehlo.real_dynamic_slice", kRealDynamicSlice)
	register("stablehlo.dynamic_slice", kDynamicSlice)
	register("stablehlo.dynamic_update_slice", kDynamicUpdateSlice)
	register("stablehlo.concatenate", kConcatenate)
}

func kSlice(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	start, err := mvInts(op, "start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := mvInts(op, "limit_indices")
	if err != nil {
		return nil, err
	}
	strides, err := mvOptInts(op, "strides")
	if err != nil {
		return nil, err
	}
	out, err := mvSlice(env, op, x, start, limit, strides)
	if err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, out.Shape); err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// kRealDynamicSlice is slice with start, limit and strides given as 1-d
// tensors.
func kRealDynamicSlice(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	var v [3][]int64
	for i, what := range []string{"start_indices", "limit_indices", "strides"} {
		l, err := tensorArg(op, in, i+1)
		if err != nil {
			return nil, err
		}
		if v[i], err = mvIndexList(op, l, what); err != nil {
			return nil, err
		}
	}
	out, err := mvSlice(env, op, x, v[0], v[1], v[2])
	if err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, out.Shape); err != nil {
		return nil, err
	}
	return []Value{out}, nil
}

// mvSlice returns x[start:limit:strides] (strides nil means all 1).
func mvSlice(env Env, op *stablehlo.Op, x *literal.Literal, start, limit, strides []int64) (*literal.Literal, error) {
	r := x.Rank()
	if strides == nil {
		strides = make([]int64, r)
		for i := range strides {
			strides[i] = 1
		}
	}
	if len(start) != r || len(limit) != r || len(strides) != r {
		return nil, fmt.Errorf("%s: start %v, limit %v and strides %v must have one entry per dim of %v", op.Name, start, limit, strides, x)
	}
	shape, src, off, bad := sliceBox(x.Shape, start, limit, strides)
	if bad >= 0 {
		d := bad
		return nil, fmt.Errorf("%s: slice [%d:%d:%d] out of range for dim %d of %v", op.Name, start[d], limit[d], strides[d], d, x)
	}
	out, err := mvTake(env, op, x.DType, shape)
	if err != nil {
		return nil, err
	}
	copyBox(x.DType.Size(), shape, out.Data, 0, literal.Strides(shape), x.Data, off, src)
	return out, nil
}

// mvStarts reads the scalar start-index operands in[from:], clamped so a
// box of size sizes fits in shape.
func mvStarts(op *stablehlo.Op, in []Value, from int, shape, sizes []int64) ([]int64, error) {
	if len(in)-from != len(shape) {
		return nil, fmt.Errorf("%s: %d start indices for rank %d", op.Name, len(in)-from, len(shape))
	}
	starts := make([]int64, len(shape))
	for d := range shape {
		l, err := tensorArg(op, in, from+d)
		if err != nil {
			return nil, err
		}
		v, err := mvScalarIndex(op, l, fmt.Sprintf("start index #%d", d))
		if err != nil {
			return nil, err
		}
		if sizes[d] < 0 || sizes[d] > shape[d] {
			return nil, fmt.Errorf("%s: size %d of dim %d does not fit in %v", op.Name, sizes[d], d, shape)
		}
		starts[d] = mvClamp(v, 0, shape[d]-sizes[d])
	}
	return starts, nil
}

func kDynamicSlice(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	sizes, err := mvInts(op, "slice_sizes")
	if err != nil {
		return nil, err
	}
	if len(sizes) != x.Rank() {
		return nil, fmt.Errorf("%s: slice_sizes %v for operand %v", op.Name, sizes, x)
	}
	starts, err := mvStarts(op, in, 1, x.Shape, sizes)
	if err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, sizes); err != nil {
		return nil, err
	}
	out, err := mvNewEnv(env, op, x.DType, sizes)
	if err != nil {
		return nil, err
	}
	xs := literal.Strides(x.Shape)
	off := int64(0)
	for d, s := range starts {
		off += s * xs[d]
	}
	copyBox(x.DType.Size(), sizes, out.Data, 0, literal.Strides(sizes), x.Data, off, xs)
	return []Value{out}, nil
}

func kDynamicUpdateSlice(_ Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	x, err := tensorArg(op, in, 0)
	if err != nil {
		return nil, err
	}
	u, err := tensorArg(op, in, 1)
	if err != nil {
		return nil, err
	}
	if u.DType != x.DType || u.Rank() != x.Rank() {
		return nil, fmt.Errorf("%s: update %v does not match operand %v", op.Name, u, x)
	}
	starts, err := mvStarts(op, in, 2, x.Shape, u.Shape)
	if err != nil {
		return nil, err
	}
	if err := mvCheckShape(op, 0, x.Shape); err != nil {
		return nil, err
	}
	out := x.Clone()
	xs := literal.Strides(x.Shape)
	off := int64(0)
	for d, s := range starts {
		off += s * xs[d]
	}
	copyBox(x.DType.Size(), u.Shape, out.Data, off, xs, u.Data, 0, literal.Strides(u.Shape))
	return []Value{out}, nil
}

func kConcatenate(env Env, op *stablehlo.Op, in []Value) ([]Value, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("%s: no operands", op.Name)
	}
	xs, err := mvTensors(op, in, 0, len(in))
	if err != nil {
		return nil, err
	}
	dim, err := mvInt(op, "dimension")
	if err != nil {
		return nil, err
	}
	first := xs[0]
	if err := mvAxis(op, "dimension", dim, first.Rank()); err != nil {
		return nil, err
	}
	shape := append([]int64{}, first.Shape...)
	shape[dim] = 0
	for i, x := range xs {
		if x.DType != first.DType || x.Rank() != first.Rank() {
			return nil, fmt.Errorf("%s: operand #%d %v does not match operand #0 %v", op.Name, i, x, first)
		}
		for d := range shape {
			if d != int(dim) && x.Shape[d] != first.Shape[d] {
				return nil, fmt.Errorf("%s: operand #%d %v does not match operand #0 %v outside dim %d", op.Name, i, x, first, dim)
			}
		}
		shape[dim] += x.Shape[dim]
	}
	if err := mvCheckShape(op, 0, shape); err != nil {
		return nil, err
	}
	out, err := mvNewEnv(env, op, first.DType, shape)
	if err != nil {
		return nil, err
	}
	concatInto(out, xs, int(dim))
	return []Value{out}, nil
}

// concatInto copies the operands xs side by side along dim into out. A
// result of copyParMin bytes or more is split over the cores along the
// outermost dim before dim that has two entries or more, each part
// copying its share of every operand: operands each below copyParMin (a
// rotary embedding's two halves, 32 KiB each) ran on one core.
func concatInto(out *literal.Literal, xs []*literal.Literal, dim int) {
	esz := int64(out.DType.Size())
	if dim == len(out.Shape)-1 && concatRows(out, xs, esz) {
		return
	}
	ostr := literal.Strides(out.Shape)
	split := -1
	for d := 0; d < dim; d++ {
		if out.Shape[d] > 1 {
			split = d
			break
		}
	}
	w := copyWorkers(int64(len(out.Data)))
	if split < 0 || w < 2 {
		pos := int64(0)
		for _, x := range xs {
			copyBox(int(esz), x.Shape, out.Data, pos*ostr[dim], ostr, x.Data, 0, literal.Strides(x.Shape))
			pos += x.Shape[dim]
		}
		return
	}
	n := int(out.Shape[split])
	runParts(n, min(w, n), func(lo, hi int) {
		pos := int64(0)
		for _, x := range xs {
			shape := append([]int64(nil), x.Shape...)
			shape[split] = int64(hi - lo)
			xstr := literal.Strides(x.Shape)
			p := newCopyPlan(int(esz), shape, ostr, xstr)
			if !p.empty {
				p.runBytes(out.Data, (pos*ostr[dim]+int64(lo)*ostr[split])*esz, x.Data, int64(lo)*xstr[split]*esz)
			}
			pos += x.Shape[dim]
		}
	})
}

// concatRows is concatInto along the last dim where every operand's row
// is short: each output row is its operands' rows one after the other, a
// copy each, the rows split over the cores from copyParMin bytes (a rotary
// embedding's rotate-half, [1, 4, 64, 32] twice: 14-18 µs through a copy
// plan per operand, its odometer stepped per row of 32). False, copying
// nothing, where a row is long enough for copyBox's own loops or a size
// does not add up.
func concatRows(out *literal.Literal, xs []*literal.Literal, esz int64) bool {
	rowBytes := int64(0)
	for _, x := range xs {
		w := x.Shape[len(x.Shape)-1] * esz
		if w > concatRowMax {
			return false
		}
		rowBytes += w
	}
	if rowBytes == 0 || int64(len(out.Data))%rowBytes != 0 {
		return false
	}
	rows := int64(len(out.Data)) / rowBytes
	for _, x := range xs {
		if int64(len(x.Data)) != rows*x.Shape[len(x.Shape)-1]*esz {
			return false
		}
	}
	body := func(lo, hi int) {
		pos := int64(0)
		for _, x := range xs {
			w := x.Shape[len(x.Shape)-1] * esz
			for r := int64(lo); r < int64(hi); r++ {
				copy(out.Data[r*rowBytes+pos:r*rowBytes+pos+w], x.Data[r*w:(r+1)*w])
			}
			pos += w
		}
	}
	runParts(int(rows), min(copyWorkers(int64(len(out.Data))), int(rows)), body)
	return true
}

// concatRowMax is the longest operand row concatRows takes, in bytes.
const concatRowMax = 1024

// sliceBox returns the box a slice of an operand of shape copies: the
// result's shape, the operand's element strides stepping through it and
// the element it starts at; bad is the first dim whose start, limit or
// stride (nil: all 1) does not fit, else -1. start and limit have one
// entry per dim.
func sliceBox(shape, start, limit, strides []int64) (out, src []int64, off int64, bad int) {
	r := len(shape)
	out = make([]int64, r)
	src = literal.Strides(shape)
	for d := 0; d < r; d++ {
		step := int64(1)
		if strides != nil {
			step = strides[d]
		}
		if start[d] < 0 || start[d] > limit[d] || limit[d] > shape[d] || step <= 0 {
			return nil, nil, 0, d
		}
		out[d] = (limit[d] - start[d] + step - 1) / step
		off += start[d] * src[d]
		src[d] *= step
	}
	return out, src, off, -1
}
