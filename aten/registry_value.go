package aten

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// ValueKind tags a Value.
type ValueKind uint8

// Value kinds.
const (
	KNone    ValueKind = iota
	KTensor            // a tensor: T while lowering, Lit on the host
	KInt               // Python int / SymInt (concrete)
	KFloat             // Python float
	KBool              // Python bool
	KStr               // str, and device / layout / memory format names
	KDType             // ScalarType
	KList              // int[], float[], bool[], Tensor[], Tensor?[] (elements may be None)
	KComplex           // Python complex
)

func (k ValueKind) String() string {
	return [...]string{"None", "Tensor", "int", "float", "bool", "str", "ScalarType", "list", "complex"}[k]
}

// Value is an argument or result of an op: a tagged union.
//
// While lowering, tensors are StableHLO values (T); in a host fallback they
// are host literals (Lit). Ints, floats and bools are Python scalars; in a
// Tensor slot they are wrapped numbers, which promotion ranks lowest.
type Value struct {
	Kind  ValueKind
	T     *stablehlo.Value
	Lit   *literal.Literal
	I     int64
	F     float64
	B     bool
	S     string
	DType dtype.DType
	List  []Value
	C     complex128
}

// None returns the None value.
func None() Value { return Value{} }

// IntValue makes a Python int.
func IntValue(i int64) Value { return Value{Kind: KInt, I: i} }

// FloatValue makes a Python float.
func FloatValue(f float64) Value { return Value{Kind: KFloat, F: f} }

// ComplexValue makes a Python complex.
func ComplexValue(c complex128) Value { return Value{Kind: KComplex, C: c} }

// BoolValue makes a Python bool.
func BoolValue(b bool) Value { return Value{Kind: KBool, B: b} }

// StrValue makes a string.
func StrValue(s string) Value { return Value{Kind: KStr, S: s} }

// DTypeValue makes a ScalarType.
func DTypeValue(d dtype.DType) Value { return Value{Kind: KDType, DType: d} }

// TensorValue wraps a StableHLO value.
func TensorValue(v *stablehlo.Value) Value { return Value{Kind: KTensor, T: v} }

// LiteralValue wraps a host tensor.
func LiteralValue(l *literal.Literal) Value { return Value{Kind: KTensor, Lit: l} }

// ListValue makes a list.
func ListValue(items ...Value) Value { return Value{Kind: KList, List: items} }

// IntsValue makes an int list.
func IntsValue(xs []int64) Value {
	items := make([]Value, len(xs))
	for i, x := range xs {
		items[i] = IntValue(x)
	}
	return ListValue(items...)
}

// TensorsValue makes a Tensor[] of StableHLO values.
func TensorsValue(vs []*stablehlo.Value) Value {
	items := make([]Value, len(vs))
	for i, v := range vs {
		items[i] = TensorValue(v)
	}
	return ListValue(items...)
}

// IsNone reports whether v is None.
func (v Value) IsNone() bool { return v.Kind == KNone }

// IsScalar reports whether v is a Python int, float, bool or complex.
func (v Value) IsScalar() bool {
	return v.Kind == KInt || v.Kind == KFloat || v.Kind == KBool || v.Kind == KComplex
}

// TensorType returns the type of a lowering-time tensor value, or nil.
func (v Value) TensorType() *stablehlo.TensorType {
	if v.Kind != KTensor || v.T == nil {
		return nil
	}
	t, _ := v.T.Type.(*stablehlo.TensorType)
	return t
}

func (v Value) String() string {
	switch v.Kind {
	case KNone:
		return "None"
	case KTensor:
		if v.Lit != nil {
			return "Tensor(" + v.Lit.String() + ")"
		}
		if v.T != nil {
			return "Tensor(" + v.T.Type.String() + ")"
		}
		return "Tensor(?)"
	case KInt:
		return fmt.Sprint(v.I)
	case KFloat:
		return fmt.Sprint(v.F)
	case KBool:
		if v.B {
			return "True"
		}
		return "False"
	case KStr:
		return fmt.Sprintf("%q", v.S)
	case KDType:
		return "torch." + v.DType.Torch()
	case KComplex:
		return fmt.Sprint(v.C)
	case KList:
		parts := make([]string, len(v.List))
		for i, e := range v.List {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return "?"
}

// Scalar is a Python number in a Scalar slot or a Tensor slot.
type Scalar struct {
	Kind ValueKind // KInt, KFloat, KBool or KComplex
	I    int64
	F    float64
	B    bool
	C    complex128
}

// DType is the dtype PyTorch gives the Python scalar when it becomes a
// tensor: int64, float32 (the default dtype), bool.
func (s Scalar) DType() dtype.DType {
	switch s.Kind {
	case KFloat:
		return dtype.DefaultFloat
	case KBool:
		return dtype.Bool
	case KComplex:
		return dtype.DefaultComplex
	}
	return dtype.DefaultInt
}

// Float returns the value as a float64 (the real part of a complex).
func (s Scalar) Float() float64 {
	switch s.Kind {
	case KComplex:
		return real(s.C)
	case KFloat:
		return s.F
	case KBool:
		if s.B {
			return 1
		}
		return 0
	}
	return float64(s.I)
}

// Int returns the value as an int64 (floats truncate toward zero).
func (s Scalar) Int() int64 {
	switch s.Kind {
	case KComplex:
		return int64(real(s.C))
	case KFloat:
		return int64(s.F)
	case KBool:
		if s.B {
			return 1
		}
		return 0
	}
	return s.I
}

// Operand is what promotion sees of this scalar: a wrapped number.
func (s Scalar) Operand() dtype.Operand {
	d := dtype.I64
	switch s.Kind {
	case KFloat:
		d = dtype.F64
	case KBool:
		d = dtype.Bool
	case KComplex:
		d = dtype.C128
	}
	return dtype.Operand{DType: d, Wrapped: true}
}

func (s Scalar) String() string {
	return s.Value().String()
}

// Value returns the scalar as a Value.
func (s Scalar) Value() Value { return Value{Kind: s.Kind, I: s.I, F: s.F, B: s.B, C: s.C} }

// scalarOf converts a scalar Value.
func scalarOf(v Value) (Scalar, bool) {
	if !v.IsScalar() {
		return Scalar{}, false
	}
	return Scalar{Kind: v.Kind, I: v.I, F: v.F, B: v.B, C: v.C}, true
}
