package aten

import (
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Operand is a tensor argument as promotion and broadcasting see it:
// either a tensor (V) or a wrapped number (a Python scalar in a Tensor
// slot, Scalar non-nil), which is materialised only once the result dtype
// is known so that its value keeps full precision.
type Operand struct {
	V      *stablehlo.Value
	Scalar *Scalar
}

// Type returns the operand's tensor type (nil for a wrapped number).
func (o Operand) Type() *stablehlo.TensorType {
	if o.V == nil {
		return nil
	}
	t, _ := o.V.Type.(*stablehlo.TensorType)
	return t
}

// Promotion returns the operand as dtype promotion sees it.
func (o Operand) Promotion() dtype.Operand {
	if o.Scalar != nil {
		return o.Scalar.Operand()
	}
	t := o.Type()
	if t == nil {
		return dtype.Operand{}
	}
	return dtype.Operand{DType: t.DType(), ZeroDim: t.Rank() == 0}
}

// TensorOperand makes an Operand of a StableHLO value.
func TensorOperand(v *stablehlo.Value) Operand { return Operand{V: v} }

// ScalarOperand makes an Operand of a Python scalar.
func ScalarOperand(s Scalar) Operand { return Operand{Scalar: &s} }

// Operand returns a Tensor or Scalar argument as an Operand.
func (a *Args) Operand(name string) Operand {
	v := a.Value(name)
	switch {
	case v.Kind == KTensor && v.T != nil:
		return Operand{V: v.T}
	case v.IsScalar():
		s, _ := scalarOf(v)
		return Operand{Scalar: &s}
	}
	a.Errorf("argument %s: want a tensor or number, have %v", name, v)
	return Operand{}
}
