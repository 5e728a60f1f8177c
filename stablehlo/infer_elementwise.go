package stablehlo

import (
	"fmt"

	"github.com/torchtpu/torchtpu/dtype"
)

// Elementwise op families.
var (
	// UnaryOps keep their operand's type.
	UnaryOps = []string{
		"stablehlo.cbrt", "stablehlo.ceil", "stablehlo.count_leading_zeros", "stablehlo.cosine",
		"stablehlo.exponential", "stablehlo.exponential_minus_one", "stablehlo.floor", "stablehlo.log",
		"stablehlo.log_plus_one", "stablehlo.logistic", "stablehlo.negate", "stablehlo.not",
		"stablehlo.popcnt", "stablehlo.round_nearest_afz", "stablehlo.round_nearest_even",
		"stablehlo.rsqrt", "stablehlo.sign", "stablehlo.sine", "stablehlo.sqrt", "stablehlo.tan",
		"stablehlo.tanh", "stablehlo.reduce_precision",
		"chlo.acos", "chlo.acosh", "chlo.asin", "chlo.asinh", "chlo.atan", "chlo.atanh",
		"chlo.bessel_i1e", "chlo.conj", "chlo.cosh", "chlo.digamma", "chlo.erf", "chlo.erf_inv",
		"chlo.erfc", "chlo.lgamma", "chlo.sinh", "chlo.tan",
	}
	// BinaryOps take two operands of one type and return it.
	BinaryOps = []string{
		"stablehlo.add", "stablehlo.subtract", "stablehlo.multiply", "stablehlo.divide",
		"stablehlo.remainder", "stablehlo.power", "stablehlo.atan2", "stablehlo.maximum",
		"stablehlo.minimum", "stablehlo.and", "stablehlo.or", "stablehlo.xor",
		"stablehlo.shift_left", "stablehlo.shift_right_arithmetic", "stablehlo.shift_right_logical",
		"chlo.next_after", "chlo.polygamma", "chlo.zeta", "chlo.mulhi",
	}
)

func init() {
	registerInfer(inferUnary, UnaryOps...)
	registerInfer(inferBinary, BinaryOps...)
	registerInfer(inferComplexPart, "stablehlo.abs", "stablehlo.real", "stablehlo.imag")
	registerInfer(inferIsFinite, "stablehlo.is_finite", "chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")
	registerInfer(inferComplex, "stablehlo.complex")
	registerInfer(inferCompare, "stablehlo.compare")
	registerInfer(inferSelect, "stablehlo.select")
	registerInfer(inferClamp, "stablehlo.clamp")
	registerInfer(inferConvert, "stablehlo.convert")
	registerInfer(inferBitcastConvert, "stablehlo.bitcast_convert")
}

func inferUnary(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	return []Type{withElem(t, t.Elem)}, nil
}

// sameShapeOperands checks that all operands are tensors of compatible
// shapes and element types; it returns the merged shape and first operand.
func sameShapeOperands(op *Op, n int, sameElem bool) ([]int64, []*TensorType, error) {
	if err := wantOperands(op, n); err != nil {
		return nil, nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, nil, err
	}
	shape := ts[0].Shape
	for i, t := range ts[1:] {
		if !shapesCompatible(shape, t.Shape) {
			return nil, nil, fmt.Errorf("operand %d shape %v differs from operand 0 shape %v (StableHLO does not broadcast)", i+1, t.Shape, ts[0].Shape)
		}
		if sameElem && !elemsCompatible(ts[0].Elem, t.Elem) {
			return nil, nil, fmt.Errorf("operand %d element type %v differs from %v", i+1, t.Elem, ts[0].Elem)
		}
		shape = mergeShapes(shape, t.Shape)
	}
	return shape, ts, nil
}

func inferBinary(op *Op) ([]Type, error) {
	shape, ts, err := sameShapeOperands(op, 2, true)
	if err != nil {
		return nil, err
	}
	return []Type{withShape(ts[0], shape)}, nil
}

// abs, real, imag: complex operands give their part type.
func inferComplexPart(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	if t.Elem.Quant == nil && t.DType().IsComplex() {
		return []Type{withElem(t, Elem(t.DType().ComplexPart()))}, nil
	}
	if op.Name == "stablehlo.imag" && t.Elem.Quant == nil && !t.DType().IsFloat() {
		return nil, fmt.Errorf("operand element type %v is not floating-point or complex", t.Elem)
	}
	return []Type{withElem(t, t.Elem)}, nil
}

func inferIsFinite(op *Op) ([]Type, error) {
	t, err := soleOperand(op)
	if err != nil {
		return nil, err
	}
	return []Type{boolLike(t)}, nil
}

func inferComplex(op *Op) ([]Type, error) {
	shape, ts, err := sameShapeOperands(op, 2, true)
	if err != nil {
		return nil, err
	}
	c := dtype.ComplexOf(ts[0].DType())
	if c == dtype.Invalid {
		return nil, fmt.Errorf("element type %v has no complex counterpart (want f32 or f64)", ts[0].Elem)
	}
	return []Type{&TensorType{Shape: shape, Elem: Elem(c)}}, nil
}

func inferCompare(op *Op) ([]Type, error) {
	shape, ts, err := sameShapeOperands(op, 2, true)
	if err != nil {
		return nil, err
	}
	if _, ok := op.Enum("comparison_direction"); !ok {
		return nil, fmt.Errorf("missing attribute comparison_direction")
	}
	return []Type{boolLike(withShape(ts[0], shape))}, nil
}

func inferSelect(op *Op) ([]Type, error) {
	if err := wantOperands(op, 3); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	pred, a, b := ts[0], ts[1], ts[2]
	if pred.DType() != dtype.Bool {
		return nil, fmt.Errorf("predicate element type %v, want i1", pred.Elem)
	}
	if !shapesCompatible(a.Shape, b.Shape) || !elemsCompatible(a.Elem, b.Elem) {
		return nil, fmt.Errorf("on_true %v and on_false %v differ", a, b)
	}
	if pred.Rank() != 0 && !shapesCompatible(pred.Shape, a.Shape) {
		return nil, fmt.Errorf("predicate shape %v is neither scalar nor the operands' shape %v", pred.Shape, a.Shape)
	}
	shape := mergeShapes(a.Shape, b.Shape)
	if pred.Rank() != 0 {
		shape = mergeShapes(shape, pred.Shape)
	}
	return []Type{withShape(a, shape)}, nil
}

func inferClamp(op *Op) ([]Type, error) {
	if err := wantOperands(op, 3); err != nil {
		return nil, err
	}
	ts, err := operandTensors(op)
	if err != nil {
		return nil, err
	}
	lo, x, hi := ts[0], ts[1], ts[2]
	for i, b := range []*TensorType{lo, hi} {
		if !elemsCompatible(b.Elem, x.Elem) {
			return nil, fmt.Errorf("bound %d element type %v differs from operand %v", i, b.Elem, x.Elem)
		}
		if b.Rank() != 0 && !shapesCompatible(b.Shape, x.Shape) {
			return nil, fmt.Errorf("bound shape %v is neither scalar nor the operand shape %v", b.Shape, x.Shape)
		}
	}
	return []Type{withElem(x, x.Elem)}, nil
}

func inferConvert(op *Op) ([]Type, error) {
	t, r, err := soleOperandAndResult(op)
	if err != nil {
		return nil, err
	}
	if !shapesCompatible(t.Shape, r.Shape) {
		return nil, fmt.Errorf("result shape %v differs from operand shape %v", r.Shape, t.Shape)
	}
	return []Type{r}, nil
}

func inferBitcastConvert(op *Op) ([]Type, error) {
	t, r, err := soleOperandAndResult(op)
	if err != nil {
		return nil, err
	}
	ib, ob := t.DType().Bits(), r.DType().Bits()
	if ib == 0 || ob == 0 || (ib > ob && ib%ob != 0) || (ob > ib && ob%ib != 0) {
		return nil, fmt.Errorf("cannot reinterpret %v as %v", t.Elem, r.Elem)
	}
	switch {
	case ib == ob:
		if !shapesCompatible(t.Shape, r.Shape) {
			return nil, fmt.Errorf("result shape %v differs from operand shape %v", r.Shape, t.Shape)
		}
	case ib > ob: // result gains a trailing dim of ib/ob
		if r.Rank() != t.Rank()+1 || !shapesCompatible(r.Shape[:t.Rank()], t.Shape) || !dimsCompatible(r.Shape[t.Rank()], int64(ib/ob)) {
			return nil, fmt.Errorf("result %v must be operand shape %v plus a trailing dim of %d", r, t.Shape, ib/ob)
		}
	default: // operand loses its trailing dim of ob/ib
		if t.Rank() != r.Rank()+1 || !shapesCompatible(t.Shape[:r.Rank()], r.Shape) || !dimsCompatible(t.Shape[r.Rank()], int64(ob/ib)) {
			return nil, fmt.Errorf("operand %v must be result shape %v plus a trailing dim of %d", t, r.Shape, ob/ib)
		}
	}
	return []Type{r}, nil
}
