package stablehlo

import (
	"math"
	"strconv"
	"strings"

	"github.com/torchtpu/torchtpu/literal"
)

// Attr is an MLIR attribute value. The concrete types are listed below;
// the printer and parser cover each of them.
type Attr interface{ isAttr() }

// NamedAttr is one entry of an attribute dictionary.
type NamedAttr struct {
	Name  string
	Value Attr
}

// IntAttr is an integer, e.g. `1 : i32` (Type nil means `: i64` or untyped
// where the syntax allows it).
type IntAttr struct {
	Value int64
	Type  Type
}

// FloatAttr is a float, e.g. `1.0 : f32`.
type FloatAttr struct {
	Value float64
	Type  Type
}

// BoolAttr is true/false.
type BoolAttr bool

// StringAttr is a quoted string.
type StringAttr string

// UnitAttr is an attribute present without a value.
type UnitAttr struct{}

// ArrayAttr is [a, b, ...].
type ArrayAttr []Attr

// DenseArrayAttr is array<i64: 1, 2> (also i1, i32, f32, f64 arrays;
// floats are stored as their bits converted with math.Float64bits only when
// Elem is a float type, in Floats).
type DenseArrayAttr struct {
	Elem   string // "i64", "i1", "i32", "f32", ...
	Ints   []int64
	Floats []float64
}

// DenseAttr is dense<...> : tensor<...>: a constant tensor. When Splat is
// set, Value holds one element and stands for the whole Type.
type DenseAttr struct {
	Type  *TensorType
	Value *literal.Literal
	Splat bool
}

// TypeAttr is a type used as an attribute.
type TypeAttr struct{ Type Type }

// SymbolRefAttr is @name.
type SymbolRefAttr string

// DictAttr is {a = 1, b = 2}.
type DictAttr []NamedAttr

// EnumAttr is #dialect<kind VALUE>, e.g. #stablehlo<comparison_direction EQ>.
type EnumAttr struct {
	Dialect string // "stablehlo", "chlo"
	Kind    string // "comparison_direction"
	Value   string // "EQ"
}

// GatherDims is #stablehlo.gather<...>.
type GatherDims struct {
	OffsetDims               []int64
	CollapsedSliceDims       []int64
	OperandBatchingDims      []int64
	StartIndicesBatchingDims []int64
	StartIndexMap            []int64
	IndexVectorDim           int64
}

// ScatterDims is #stablehlo.scatter<...>.
type ScatterDims struct {
	UpdateWindowDims           []int64
	InsertedWindowDims         []int64
	InputBatchingDims          []int64
	ScatterIndicesBatchingDims []int64
	ScatterDimsToOperandDims   []int64
	IndexVectorDim             int64
}

// DotDims is #stablehlo.dot<...>.
type DotDims struct {
	LhsBatchingDims    []int64
	RhsBatchingDims    []int64
	LhsContractingDims []int64
	RhsContractingDims []int64
}

// ConvDims is #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]> (or
// the raw form with named fields).
type ConvDims struct {
	InputBatchDim          int64
	InputFeatureDim        int64
	InputSpatialDims       []int64
	KernelInputFeatureDim  int64
	KernelOutputFeatureDim int64
	KernelSpatialDims      []int64
	OutputBatchDim         int64
	OutputFeatureDim       int64
	OutputSpatialDims      []int64
}

// StructAttr is any other #dialect.name<field = value, ...> attribute, e.g.
// #stablehlo.channel_handle<handle = 1, type = 0>; fields keep their order.
type StructAttr struct {
	Name   string // "stablehlo.channel_handle"
	Fields []NamedAttr
}

// OpaqueAttr is an attribute the project does not model, kept verbatim so
// that printing reproduces it.
type OpaqueAttr struct{ Text string }

func (*IntAttr) isAttr()        {}
func (*FloatAttr) isAttr()      {}
func (BoolAttr) isAttr()        {}
func (StringAttr) isAttr()      {}
func (UnitAttr) isAttr()        {}
func (ArrayAttr) isAttr()       {}
func (*DenseArrayAttr) isAttr() {}
func (*DenseAttr) isAttr()      {}
func (*TypeAttr) isAttr()       {}
func (SymbolRefAttr) isAttr()   {}
func (DictAttr) isAttr()        {}
func (*EnumAttr) isAttr()       {}
func (*GatherDims) isAttr()     {}
func (*ScatterDims) isAttr()    {}
func (*DotDims) isAttr()        {}
func (*ConvDims) isAttr()       {}
func (*StructAttr) isAttr()     {}
func (*OpaqueAttr) isAttr()     {}

// Get returns the named attribute, or nil.
func (d DictAttr) Get(name string) Attr {
	for _, a := range d {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// FormatFloat prints a float so that it parses back to the same bits
// (MLIR style: always with a '.' or exponent).
func FormatFloat(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "0x" + strconv.FormatUint(math.Float64bits(v), 16)
	}
	s := strconv.FormatFloat(v, 'e', -1, 64)
	if !strings.Contains(s, ".") { // MLIR float literals need a '.': 1e-01 -> 1.0e-01
		k := strings.IndexByte(s, 'e')
		s = s[:k] + ".0" + s[k:]
	}
	return s
}
