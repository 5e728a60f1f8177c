package stablehlo

import (
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/dtype"
)

// Dynamic marks a dimension whose size is unknown until run time ("?").
const Dynamic int64 = -1

// Type is a StableHLO / MLIR type: *TensorType, ElemType (a scalar type as
// used by attributes and quantization), *TupleType, TokenType, *FuncType,
// or *OpaqueType for anything kept verbatim.
type Type interface {
	String() string
	isType()
}

// Quant describes a !quant.uniform element type.
type Quant struct {
	Storage    dtype.DType // i8, ui8, i4, ...
	StorageMin int64       // storage range; equal to the type's range when not written
	StorageMax int64
	HasRange   bool        // the range was written explicitly
	Expressed  dtype.DType // f32, bf16, ...
	Axis       int         // quantized dimension; -1 for per-tensor
	Scales     []float64   // one per tensor, or one per slice along Axis
	ZeroPoints []int64
}

// ElemType is an element type, possibly quantized.
type ElemType struct {
	DType dtype.DType // for a quantized type, the storage type
	Quant *Quant      // nil unless quantized
}

func (ElemType) isType() {}

// Elem returns the non-quantized element type d.
func Elem(d dtype.DType) ElemType { return ElemType{DType: d} }

// IsQuantized reports whether the element type is !quant.uniform.
func (e ElemType) IsQuantized() bool { return e.Quant != nil }

// Equal compares two element types, quantization parameters included.
func (e ElemType) Equal(o ElemType) bool {
	if e.DType != o.DType || (e.Quant == nil) != (o.Quant == nil) {
		return false
	}
	return e.Quant == nil || e.Quant.String() == o.Quant.String()
}

func (e ElemType) String() string {
	if e.Quant != nil {
		return e.Quant.String()
	}
	return e.DType.MLIR()
}

func (q *Quant) String() string {
	var b strings.Builder
	b.WriteString("!quant.uniform<")
	b.WriteString(q.Storage.MLIR())
	if q.HasRange {
		fmt.Fprintf(&b, "<%d:%d>", q.StorageMin, q.StorageMax)
	}
	b.WriteString(":")
	b.WriteString(q.Expressed.MLIR())
	if q.Axis >= 0 {
		fmt.Fprintf(&b, ":%d, {", q.Axis)
		for i := range q.Scales {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "%s:%d", FormatFloat(q.Scales[i]), q.ZeroPoints[i])
		}
		b.WriteString("}>")
		return b.String()
	}
	fmt.Fprintf(&b, ", %s:%d>", FormatFloat(q.Scales[0]), q.ZeroPoints[0])
	return b.String()
}

// TensorType is tensor<d0xd1x...xelem>, with Dynamic for "?" dims.
type TensorType struct {
	Shape []int64
	Elem  ElemType
	// Bounds holds the #stablehlo.bounds encoding (Dynamic where unbounded),
	// nil when the type has none.
	Bounds []int64
}

func (*TensorType) isType() {}

// Tensor returns a tensor type of the plain element type d.
func Tensor(d dtype.DType, shape ...int64) *TensorType {
	return &TensorType{Shape: append([]int64{}, shape...), Elem: Elem(d)}
}

// Rank returns the number of dims.
func (t *TensorType) Rank() int { return len(t.Shape) }

// DType returns the element dtype (the storage type when quantized).
func (t *TensorType) DType() dtype.DType { return t.Elem.DType }

// IsStatic reports whether every dim is known.
func (t *TensorType) IsStatic() bool {
	for _, d := range t.Shape {
		if d == Dynamic {
			return false
		}
	}
	return true
}

// NumElements returns the element count of a static shape.
func (t *TensorType) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Equal compares two tensor types exactly.
func (t *TensorType) Equal(o *TensorType) bool {
	if len(t.Shape) != len(o.Shape) || !t.Elem.Equal(o.Elem) {
		return false
	}
	for i := range t.Shape {
		if t.Shape[i] != o.Shape[i] {
			return false
		}
	}
	return true
}

func (t *TensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.Shape {
		if d == Dynamic {
			b.WriteString("?")
		} else {
			fmt.Fprintf(&b, "%d", d)
		}
		b.WriteString("x")
	}
	b.WriteString(t.Elem.String())
	if t.Bounds != nil {
		b.WriteString(", #stablehlo.bounds<")
		for i, d := range t.Bounds {
			if i > 0 {
				b.WriteString(", ")
			}
			if d == Dynamic {
				b.WriteString("?")
			} else {
				fmt.Fprintf(&b, "%d", d)
			}
		}
		b.WriteString(">")
	}
	b.WriteString(">")
	return b.String()
}

// TupleType is tuple<T0, T1, ...>.
type TupleType struct{ Elems []Type }

func (*TupleType) isType() {}

func (t *TupleType) String() string {
	parts := make([]string, len(t.Elems))
	for i, e := range t.Elems {
		parts[i] = e.String()
	}
	return "tuple<" + strings.Join(parts, ", ") + ">"
}

// TokenType is !stablehlo.token.
type TokenType struct{}

func (TokenType) isType() {}

func (TokenType) String() string { return "!stablehlo.token" }

// FuncType is (inputs) -> results.
type FuncType struct {
	Inputs  []Type
	Results []Type
}

func (*FuncType) isType() {}

func (t *FuncType) String() string {
	in := make([]string, len(t.Inputs))
	for i, e := range t.Inputs {
		in[i] = e.String()
	}
	out := make([]string, len(t.Results))
	for i, e := range t.Results {
		out[i] = e.String()
	}
	return "(" + strings.Join(in, ", ") + ") -> (" + strings.Join(out, ", ") + ")"
}

// OpaqueType is a type the project does not model, kept verbatim.
type OpaqueType struct{ Text string }

func (*OpaqueType) isType() {}

func (t *OpaqueType) String() string { return t.Text }

// AsTensor returns t as a tensor type, or nil.
func AsTensor(t Type) *TensorType {
	tt, _ := t.(*TensorType)
	return tt
}
