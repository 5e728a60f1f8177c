package stablehlo

import "github.com/torchtpu/torchtpu/dtype"

// Attribute constructors in the forms the printer and XLA expect.

// I64s is array<i64: ...>.
func I64s(xs ...int64) *DenseArrayAttr {
	return &DenseArrayAttr{Elem: "i64", Ints: append([]int64{}, xs...)}
}

// I64 is an `N : i64` integer attribute (Type nil: i64 is MLIR's default,
// as the parser represents it).
func I64(x int64) *IntAttr { return &IntAttr{Value: x} }

// I32 is an `N : i32` integer attribute.
func I32(x int64) *IntAttr { return &IntAttr{Value: x, Type: Elem(dtype.I32)} }

// Enum is #stablehlo<kind VALUE>.
func Enum(kind, value string) *EnumAttr {
	return &EnumAttr{Dialect: "stablehlo", Kind: kind, Value: value}
}

// Comparison directions and types for Compare.
const (
	EQ = "EQ"
	NE = "NE"
	GE = "GE"
	GT = "GT"
	LE = "LE"
	LT = "LT"

	CompareFloat      = "FLOAT"
	CompareTotalOrder = "TOTALORDER"
	CompareSigned     = "SIGNED"
	CompareUnsigned   = "UNSIGNED"
)

// Unary ops.

func (fb *FuncBuilder) unary(name string, x *Value) *Value { return fb.one(name, []*Value{x}) }

func (fb *FuncBuilder) Abs(x *Value) *Value      { return fb.unary("stablehlo.abs", x) }
func (fb *FuncBuilder) Neg(x *Value) *Value      { return fb.unary("stablehlo.negate", x) }
func (fb *FuncBuilder) Exp(x *Value) *Value      { return fb.unary("stablehlo.exponential", x) }
func (fb *FuncBuilder) Expm1(x *Value) *Value    { return fb.unary("stablehlo.exponential_minus_one", x) }
func (fb *FuncBuilder) Log(x *Value) *Value      { return fb.unary("stablehlo.log", x) }
func (fb *FuncBuilder) Log1p(x *Value) *Value    { return fb.unary("stablehlo.log_plus_one", x) }
func (fb *FuncBuilder) Sqrt(x *Value) *Value     { return fb.unary("stablehlo.sqrt", x) }
func (fb *FuncBuilder) Rsqrt(x *Value) *Value    { return fb.unary("stablehlo.rsqrt", x) }
func (fb *FuncBuilder) Cbrt(x *Value) *Value     { return fb.unary("stablehlo.cbrt", x) }
func (fb *FuncBuilder) Tanh(x *Value) *Value     { return fb.unary("stablehlo.tanh", x) }
func (fb *FuncBuilder) Tan(x *Value) *Value      { return fb.unary("stablehlo.tan", x) }
func (fb *FuncBuilder) Logistic(x *Value) *Value { return fb.unary("stablehlo.logistic", x) }
func (fb *FuncBuilder) Sin(x *Value) *Value      { return fb.unary("stablehlo.sine", x) }
func (fb *FuncBuilder) Cos(x *Value) *Value      { return fb.unary("stablehlo.cosine", x) }
func (fb *FuncBuilder) Floor(x *Value) *Value    { return fb.unary("stablehlo.floor", x) }
func (fb *FuncBuilder) Ceil(x *Value) *Value     { return fb.unary("stablehlo.ceil", x) }
func (fb *FuncBuilder) RoundNearestEven(x *Value) *Value {
	return fb.unary("stablehlo.round_nearest_even", x)
}
func (fb *FuncBuilder) RoundNearestAfz(x *Value) *Value {
	return fb.unary("stablehlo.round_nearest_afz", x)
}
func (fb *FuncBuilder) Sign(x *Value) *Value   { return fb.unary("stablehlo.sign", x) }
func (fb *FuncBuilder) Not(x *Value) *Value    { return fb.unary("stablehlo.not", x) }
func (fb *FuncBuilder) Popcnt(x *Value) *Value { return fb.unary("stablehlo.popcnt", x) }
func (fb *FuncBuilder) CountLeadingZeros(x *Value) *Value {
	return fb.unary("stablehlo.count_leading_zeros", x)
}
func (fb *FuncBuilder) IsFinite(x *Value) *Value { return fb.unary("stablehlo.is_finite", x) }
func (fb *FuncBuilder) Real(x *Value) *Value     { return fb.unary("stablehlo.real", x) }
func (fb *FuncBuilder) Imag(x *Value) *Value     { return fb.unary("stablehlo.imag", x) }

// ReducePrecision rounds to a float format of the given exponent and
// mantissa bits, keeping the type.
func (fb *FuncBuilder) ReducePrecision(x *Value, exponentBits, mantissaBits int64) *Value {
	return fb.one("stablehlo.reduce_precision", []*Value{x},
		NamedAttr{"exponent_bits", I32(exponentBits)}, NamedAttr{"mantissa_bits", I32(mantissaBits)})
}

// Binary ops: operands must have the same type (no implicit broadcasting).

func (fb *FuncBuilder) binary(name string, a, b *Value) *Value { return fb.one(name, []*Value{a, b}) }

func (fb *FuncBuilder) Add(a, b *Value) *Value       { return fb.binary("stablehlo.add", a, b) }
func (fb *FuncBuilder) Sub(a, b *Value) *Value       { return fb.binary("stablehlo.subtract", a, b) }
func (fb *FuncBuilder) Mul(a, b *Value) *Value       { return fb.binary("stablehlo.multiply", a, b) }
func (fb *FuncBuilder) Div(a, b *Value) *Value       { return fb.binary("stablehlo.divide", a, b) }
func (fb *FuncBuilder) Rem(a, b *Value) *Value       { return fb.binary("stablehlo.remainder", a, b) }
func (fb *FuncBuilder) Max(a, b *Value) *Value       { return fb.binary("stablehlo.maximum", a, b) }
func (fb *FuncBuilder) Min(a, b *Value) *Value       { return fb.binary("stablehlo.minimum", a, b) }
func (fb *FuncBuilder) Pow(a, b *Value) *Value       { return fb.binary("stablehlo.power", a, b) }
func (fb *FuncBuilder) Atan2(a, b *Value) *Value     { return fb.binary("stablehlo.atan2", a, b) }
func (fb *FuncBuilder) And(a, b *Value) *Value       { return fb.binary("stablehlo.and", a, b) }
func (fb *FuncBuilder) Or(a, b *Value) *Value        { return fb.binary("stablehlo.or", a, b) }
func (fb *FuncBuilder) Xor(a, b *Value) *Value       { return fb.binary("stablehlo.xor", a, b) }
func (fb *FuncBuilder) ShiftLeft(a, b *Value) *Value { return fb.binary("stablehlo.shift_left", a, b) }
func (fb *FuncBuilder) ShiftRightArithmetic(a, b *Value) *Value {
	return fb.binary("stablehlo.shift_right_arithmetic", a, b)
}
func (fb *FuncBuilder) ShiftRightLogical(a, b *Value) *Value {
	return fb.binary("stablehlo.shift_right_logical", a, b)
}

// Complex builds complex numbers from real and imaginary parts.
func (fb *FuncBuilder) Complex(re, im *Value) *Value { return fb.binary("stablehlo.complex", re, im) }

// Compare compares elementwise; dir is EQ, NE, GE, GT, LE or LT; cmpType is
// CompareFloat, CompareTotalOrder, CompareSigned, CompareUnsigned or "" to
// leave it implied by the element type.
func (fb *FuncBuilder) Compare(dir string, a, b *Value, cmpType string) *Value {
	attrs := []NamedAttr{{"comparison_direction", Enum("comparison_direction", dir)}}
	if cmpType != "" {
		attrs = append(attrs, NamedAttr{"compare_type", Enum("comparison_type", cmpType)})
	}
	return fb.one("stablehlo.compare", []*Value{a, b}, attrs...)
}

// Select is pred ? onTrue : onFalse, elementwise (pred may be 0-d).
func (fb *FuncBuilder) Select(pred, onTrue, onFalse *Value) *Value {
	return fb.one("stablehlo.select", []*Value{pred, onTrue, onFalse})
}

// Clamp is min(max(x, lo), hi); lo and hi may be 0-d.
func (fb *FuncBuilder) Clamp(lo, x, hi *Value) *Value {
	return fb.one("stablehlo.clamp", []*Value{lo, x, hi})
}

// Convert casts x elementwise to dtype d.
func (fb *FuncBuilder) Convert(x *Value, d dtype.DType) *Value {
	return fb.ConvertTo(x, Elem(d))
}

// ConvertTo casts x to element type e (possibly quantized).
func (fb *FuncBuilder) ConvertTo(x *Value, e ElemType) *Value {
	t := tensorOf(x)
	if t == nil {
		fb.checkOperands("stablehlo.convert", []*Value{x})
		return nil
	}
	return fb.oneTyped("stablehlo.convert", []*Value{x}, withElem(t, e))
}

// BitcastConvert reinterprets the bits of x as dtype d; when the widths
// differ the result gains or loses a trailing dimension.
func (fb *FuncBuilder) BitcastConvert(x *Value, d dtype.DType) *Value {
	t := tensorOf(x)
	if t == nil {
		fb.checkOperands("stablehlo.bitcast_convert", []*Value{x})
		return nil
	}
	shape := append([]int64{}, t.Shape...)
	ib, ob := t.DType().Bits(), d.Bits()
	switch {
	case ob == 0:
	case ib > ob:
		shape = append(shape, int64(ib/ob))
	case ib < ob && len(shape) > 0:
		shape = shape[:len(shape)-1]
	}
	return fb.oneTyped("stablehlo.bitcast_convert", []*Value{x}, &TensorType{Shape: shape, Elem: Elem(d)})
}
