// Package dtype defines the element types shared by every layer of torchtpu:
// StableHLO element types, PyTorch scalar types and the host tensor layout.
//
// One enum serves all of them. A DType names how one element is stored in a
// host buffer (see Size) and how it is spelled in StableHLO (see MLIR) and in
// PyTorch (see Torch).
package dtype

import "fmt"

// DType is an element type.
type DType uint8

// Element types. Sub-byte integers and f8/f6/f4 floats are stored one
// element per byte in host buffers (sign-extended for signed integers).
const (
	Invalid DType = iota
	Bool          // i1
	I2
	I4
	I8
	I16
	I32
	I64
	U2
	U4
	U8
	U16
	U32
	U64
	F4E2M1FN
	F6E2M3FN
	F6E3M2FN
	F8E3M4
	F8E4M3
	F8E4M3FN
	F8E4M3FNUZ
	F8E4M3B11FNUZ
	F8E5M2
	F8E5M2FNUZ
	F8E8M0FNU
	BF16
	F16
	F32
	F64
	C64
	C128
	Index // MLIR index type; stored as int64
	numDTypes
)

type info struct {
	mlir  string
	torch string // PyTorch's name without the "torch." prefix, "" if none
	size  int    // bytes per element in a host buffer
	bits  int    // bit width of the value
}

var infos = [numDTypes]info{
	Invalid:       {"invalid", "", 0, 0},
	Bool:          {"i1", "bool", 1, 1},
	I2:            {"i2", "", 1, 2},
	I4:            {"i4", "", 1, 4},
	I8:            {"i8", "int8", 1, 8},
	I16:           {"i16", "int16", 2, 16},
	I32:           {"i32", "int32", 4, 32},
	I64:           {"i64", "int64", 8, 64},
	U2:            {"ui2", "", 1, 2},
	U4:            {"ui4", "", 1, 4},
	U8:            {"ui8", "uint8", 1, 8},
	U16:           {"ui16", "uint16", 2, 16},
	U32:           {"ui32", "uint32", 4, 32},
	U64:           {"ui64", "uint64", 8, 64},
	F4E2M1FN:      {"f4E2M1FN", "float4_e2m1fn_x2", 1, 4},
	F6E2M3FN:      {"f6E2M3FN", "", 1, 6},
	F6E3M2FN:      {"f6E3M2FN", "", 1, 6},
	F8E3M4:        {"f8E3M4", "", 1, 8},
	F8E4M3:        {"f8E4M3", "", 1, 8},
	F8E4M3FN:      {"f8E4M3FN", "float8_e4m3fn", 1, 8},
	F8E4M3FNUZ:    {"f8E4M3FNUZ", "float8_e4m3fnuz", 1, 8},
	F8E4M3B11FNUZ: {"f8E4M3B11FNUZ", "", 1, 8},
	F8E5M2:        {"f8E5M2", "float8_e5m2", 1, 8},
	F8E5M2FNUZ:    {"f8E5M2FNUZ", "float8_e5m2fnuz", 1, 8},
	F8E8M0FNU:     {"f8E8M0FNU", "float8_e8m0fnu", 1, 8},
	BF16:          {"bf16", "bfloat16", 2, 16},
	F16:           {"f16", "float16", 2, 16},
	F32:           {"f32", "float32", 4, 32},
	F64:           {"f64", "float64", 8, 64},
	C64:           {"complex<f32>", "complex64", 8, 64},
	C128:          {"complex<f64>", "complex128", 16, 128},
	Index:         {"index", "", 8, 64},
}

var byMLIR = func() map[string]DType {
	m := map[string]DType{}
	for d := Bool; d < numDTypes; d++ {
		m[infos[d].mlir] = d
	}
	return m
}()

var byTorch = func() map[string]DType {
	m := map[string]DType{}
	for d := Bool; d < numDTypes; d++ {
		if infos[d].torch != "" {
			m[infos[d].torch] = d
		}
	}
	return m
}()

func (d DType) valid() bool { return d > Invalid && d < numDTypes }

// String returns the MLIR spelling.
func (d DType) String() string {
	if !d.valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return infos[d].mlir
}

// MLIR returns the StableHLO spelling, e.g. "f32", "ui8", "complex<f32>".
func (d DType) MLIR() string { return d.String() }

// Torch returns PyTorch's name ("float32"), or "" when PyTorch has none.
func (d DType) Torch() string {
	if !d.valid() {
		return ""
	}
	return infos[d].torch
}

// Size is the number of bytes one element takes in a host buffer.
func (d DType) Size() int {
	if !d.valid() {
		return 0
	}
	return infos[d].size
}

// Bits is the bit width of the value (1 for Bool, 4 for I4, 64 for C64).
func (d DType) Bits() int {
	if !d.valid() {
		return 0
	}
	return infos[d].bits
}

// IsBool reports whether d is the 1-bit boolean type.
func (d DType) IsBool() bool { return d == Bool }

// IsSigned reports whether d is a signed integer type.
func (d DType) IsSigned() bool { return d >= I2 && d <= I64 }

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool { return d >= U2 && d <= U64 }

// IsInteger reports whether d is a signed or unsigned integer (not Bool).
func (d DType) IsInteger() bool { return d.IsSigned() || d.IsUnsigned() || d == Index }

// IsFloat reports whether d is a real floating-point type.
func (d DType) IsFloat() bool { return d >= F4E2M1FN && d <= F64 }

// IsComplex reports whether d is complex.
func (d DType) IsComplex() bool { return d == C64 || d == C128 }

// ComplexPart returns the element type of the real and imaginary parts.
func (d DType) ComplexPart() DType {
	switch d {
	case C64:
		return F32
	case C128:
		return F64
	}
	return Invalid
}

// ComplexOf returns the complex type whose parts are d.
func ComplexOf(d DType) DType {
	switch d {
	case F32:
		return C64
	case F64:
		return C128
	}
	return Invalid
}

// ParseMLIR parses a StableHLO element type spelling.
func ParseMLIR(s string) (DType, error) {
	if d, ok := byMLIR[s]; ok {
		return d, nil
	}
	return Invalid, fmt.Errorf("unknown element type %q", s)
}

// ParseTorch parses a PyTorch dtype name, with or without "torch.".
func ParseTorch(s string) (DType, error) {
	if len(s) > 6 && s[:6] == "torch." {
		s = s[6:]
	}
	switch s { // aliases PyTorch accepts
	case "float", "f32":
		s = "float32"
	case "double":
		s = "float64"
	case "half":
		s = "float16"
	case "long":
		s = "int64"
	case "int":
		s = "int32"
	case "short":
		s = "int16"
	case "cfloat":
		s = "complex64"
	case "cdouble":
		s = "complex128"
	}
	if d, ok := byTorch[s]; ok {
		return d, nil
	}
	return Invalid, fmt.Errorf("unknown torch dtype %q", s)
}

// All returns every valid dtype, in enum order.
func All() []DType {
	out := make([]DType, 0, numDTypes-1)
	for d := Bool; d < numDTypes; d++ {
		out = append(out, d)
	}
	return out
}
