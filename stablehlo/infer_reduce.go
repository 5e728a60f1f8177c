package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

func init() {
	registerInfer(inferReduce, "stablehlo.reduce")
	registerInfer(inferReduceWindow, "stablehlo.reduce_window")
	registerInfer(inferSelectAndScatter, "stablehlo.select_and_scatter")
	registerInfer(inferSort, "stablehlo.sort")
	registerInfer(inferMap, "stablehlo.map")
	registerInfer(inferAllReduce, "stablehlo.all_reduce")
}

// splitInputsInits splits a variadic (inputs..., inits...) operand list.
func splitInputsInits(op *Op) ([]*TensorType, []*TensorType, error) {
	ts, err := operandTensors(op)
	if err != nil {
		return nil, nil, err
	}
	if len(ts) == 0 || len(ts)%2 != 0 {
		return nil, nil, fmt.Errorf("has %d operands, want inputs and as many init values", len(ts))
	}
	n := len(ts) / 2
	ins, inits := ts[:n], ts[n:]
	for i := range ins {
		if inits[i].Rank() != 0 {
			return nil, nil, fmt.Errorf("init value %d has type %v, want a 0-d tensor", i, inits[i])
		}
		if !shapesCompatible(ins[i].Shape, ins[0].Shape) {
			return nil, nil, fmt.Errorf("input %d shape %v differs from input 0 shape %v", i, ins[i].Shape, ins[0].Shape)
		}
	}
	return ins, inits, nil
}

// bodyElems checks the reduction body and returns the result element types.
func bodyElems(op *Op, region int, inits []*TensorType) ([]ElemType, error) {
	elems := make([]ElemType, len(inits))
	for i, t := range inits {
		elems[i] = t.Elem
	}
	got, err := scalarBody(op, region, elems)
	if err != nil {
		return nil, err
	}
	for i := range got {
		if !elemsCompatible(got[i], inits[i].Elem) && !promotable(inits[i].Elem, got[i]) {
			return nil, fmt.Errorf("body returns %v at %d for an init value of %v", got[i], i, inits[i].Elem)
		}
	}
	return got, nil
}

// promotable reports whether a reduction over a may accumulate in b (same
// kind, not narrower).
func promotable(a, b ElemType) bool {
	x, y := a.DType, b.DType
	switch {
	case x.IsFloat() && y.IsFloat(), x.IsComplex() && y.IsComplex(),
		x.IsSigned() && y.IsSigned(), x.IsUnsigned() && y.IsUnsigned():
		return y.Bits() >= x.Bits()
	}
	return false
}

func inferReduce(op *Op) ([]Type, error) {
	ins, inits, err := splitInputsInits(op)
	if err != nil {
		return nil, err
	}
	dims, err := intsAttr(op, "dimensions")
	if err != nil {
		return nil, err
	}
	if err := checkUniqueDims("dimensions", dims, ins[0].Rank()); err != nil {
		return nil, err
	}
	elems, err := bodyElems(op, 0, inits)
	if err != nil {
		return nil, err
	}
	shape := []int64{}
	for d, n := range ins[0].Shape {
		if !contains(dims, int64(d)) {
			shape = append(shape, n)
		}
	}
	out := make([]Type, len(ins))
	for i := range ins {
		out[i] = &TensorType{Shape: append([]int64{}, shape...), Elem: elems[i]}
	}
	return out, nil
}

func inferReduceWindow(op *Op) ([]Type, error) {
	ins, inits, err := splitInputsInits(op)
	if err != nil {
		return nil, err
	}
	r := ins[0].Rank()
	win, err := intsAttr(op, "window_dimensions")
	if err != nil {
		return nil, err
	}
	strides, err := optInts(op, "window_strides", filled(r, 1))
	if err != nil {
		return nil, err
	}
	bd, err := optInts(op, "base_dilations", filled(r, 1))
	if err != nil {
		return nil, err
	}
	wd, err := optInts(op, "window_dilations", filled(r, 1))
	if err != nil {
		return nil, err
	}
	if len(win) != r || len(strides) != r || len(bd) != r || len(wd) != r {
		return nil, fmt.Errorf("window attributes must each have %d entries", r)
	}
	pad, err := padPairs(op, r)
	if err != nil {
		return nil, err
	}
	elems, err := bodyElems(op, 0, inits)
	if err != nil {
		return nil, err
	}
	shape := make([]int64, r)
	for i := range shape {
		o, err := windowOutput(ins[0].Shape[i], pad[i][0], pad[i][1], win[i], strides[i], bd[i], wd[i])
		if err != nil {
			return nil, fmt.Errorf("dim %d: %w", i, err)
		}
		shape[i] = o
	}
	out := make([]Type, len(ins))
	for i := range ins {
		out[i] = &TensorType{Shape: append([]int64{}, shape...), Elem: elems[i]}
	}
	return out, nil
}

func inferSelectAndScatter(op *Op) ([]Type, error) {
	if err := wantOperands(op, 3); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	x, src, init := ts[0], ts[1], ts[2]
	if init.Rank() != 0 || src.Rank() != x.Rank() {
		return nil, fmt.Errorf("init %v must be 0-d and source %v of the operand's rank %d", init, src, x.Rank())
	}
	if err := checkSourceShape(op, x, src); err != nil {
		return nil, err
	}
	rets, err := regionReturns(op, 0)
	if err != nil {
		return nil, fmt.Errorf("select: %w", err)
	}
	if len(rets) != 1 || AsTensor(rets[0]) == nil || AsTensor(rets[0]).DType() != dtype.Bool || AsTensor(rets[0]).Rank() != 0 {
		return nil, fmt.Errorf("select region must return one tensor<i1>, returns %v", rets)
	}
	elems, err := bodyElems(op, 1, []*TensorType{init})
	if err != nil {
		return nil, fmt.Errorf("scatter: %w", err)
	}
	return []Type{withElem(x, elems[0])}, nil
}

// checkSourceShape checks that a select_and_scatter source has the shape of
// the windowed operand (one value per window).
func checkSourceShape(op *Op, x, src *TensorType) error {
	r := x.Rank()
	win, err := optInts(op, "window_dimensions", filled(r, 1))
	if err != nil {
		return err
	}
	strides, err := optInts(op, "window_strides", filled(r, 1))
	if err != nil {
		return err
	}
	if len(win) != r || len(strides) != r {
		return fmt.Errorf("window_dimensions %v and window_strides %v must have %d entries", win, strides, r)
	}
	pad, err := padPairs(op, r)
	if err != nil {
		return err
	}
	for i := 0; i < r; i++ {
		o, err := windowOutput(x.Shape[i], pad[i][0], pad[i][1], win[i], strides[i], 1, 1)
		if err != nil {
			return fmt.Errorf("dim %d: %w", i, err)
		}
		if !dimsCompatible(o, src.Shape[i]) {
			return fmt.Errorf("source dim %d is %d, the windows give %d", i, src.Shape[i], o)
		}
	}
	return nil
}

func inferSort(op *Op) ([]Type, error) {
	if len(op.Operands) == 0 {
		return nil, fmt.Errorf("needs at least one operand")
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if !shapesCompatible(t.Shape, ts[0].Shape) {
			return nil, fmt.Errorf("operand %d shape %v differs from operand 0 shape %v", i, t.Shape, ts[0].Shape)
		}
	}
	dim, err := optInt(op, "dimension", -1)
	if err != nil {
		return nil, err
	}
	if dim < 0 {
		dim += int64(ts[0].Rank())
	}
	if err := checkDimIndex("dimension", dim, ts[0].Rank()); err != nil && ts[0].Rank() > 0 {
		return nil, err
	}
	want := make([]Type, 0, 2*len(ts))
	for _, t := range ts {
		want = append(want, scalarOf(t.Elem), scalarOf(t.Elem))
	}
	if err := checkBlockArgs(op, 0, want); err != nil {
		return nil, fmt.Errorf("comparator: %w", err)
	}
	rets, err := regionReturns(op, 0)
	if err != nil {
		return nil, fmt.Errorf("comparator: %w", err)
	}
	if len(rets) != 1 || AsTensor(rets[0]) == nil || AsTensor(rets[0]).DType() != dtype.Bool || AsTensor(rets[0]).Rank() != 0 {
		return nil, fmt.Errorf("comparator must return one tensor<i1>, returns %v", rets)
	}
	out := make([]Type, len(ts))
	for i, t := range ts {
		out[i] = withElem(t, t.Elem)
	}
	return out, nil
}

func inferMap(op *Op) ([]Type, error) {
	shape, ts, err := sameShapeOperands(op, len(op.Operands), false)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("needs at least one operand")
	}
	rets, err := regionReturns(op, 0)
	if err != nil {
		return nil, err
	}
	if len(rets) != 1 || AsTensor(rets[0]) == nil {
		return nil, fmt.Errorf("computation must return one tensor, returns %v", rets)
	}
	return []Type{&TensorType{Shape: shape, Elem: AsTensor(rets[0]).Elem}}, nil
}

func inferAllReduce(op *Op) ([]Type, error) {
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	rets, err := regionReturns(op, 0)
	if err != nil {
		return nil, err
	}
	if len(rets) != 1 || AsTensor(rets[0]) == nil {
		return nil, fmt.Errorf("computation must return one 0-d tensor, returns %v", rets)
	}
	e := AsTensor(rets[0]).Elem
	out := make([]Type, len(ts))
	for i, t := range ts {
		if len(ts) > 1 {
			out[i] = withElem(t, t.Elem) // one computation for operands of several types
		} else {
			out[i] = withElem(t, e)
		}
	}
	return out, nil
}
