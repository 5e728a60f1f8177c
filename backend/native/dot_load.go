package native

// Accumulation types of dot and convolution, and decoding of operands
// straight into them (permuted where the kernel needs another layout).

import (
	"encoding/binary"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// accKind is the type a dot or convolution accumulates in.
type accKind int

const (
	accF64 accKind = iota
	accF32
	accC128
	accC64
	accInt
)

// accumulatorFor picks the accumulation type for a result element type:
// f32 for f32 and narrower floats, f64 for f64, complex64/complex128 for
// complex, int64 (wrapped on store) for integers and booleans.
func accumulatorFor(d dtype.DType) accKind {
	switch {
	case d == dtype.F64:
		return accF64
	case d.IsFloat():
		return accF32
	case d == dtype.C64:
		return accC64
	case d == dtype.C128:
		return accC128
	}
	return accInt
}

func toF32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func fromF32s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func toC64s(v []complex128) []complex64 {
	out := make([]complex64, len(v))
	for i, x := range v {
		out[i] = complex64(x)
	}
	return out
}

func fromC64s(v []complex64) []complex128 {
	out := make([]complex128, len(v))
	for i, x := range v {
		out[i] = complex128(x)
	}
	return out
}

// The load functions decode a literal into the accumulation type,
// permuted by idx (from permutedIndex; nil keeps the order).

func loadF64(l *literal.Literal, idx []int) []float64 {
	v := decodeFloats(l)
	if idx == nil {
		return v
	}
	return gatherByIndex(v, idx)
}

func loadF32(l *literal.Literal, idx []int) []float32 {
	if l.DType != dtype.F32 {
		return toF32s(loadF64(l, idx))
	}
	out := make([]float32, l.Len())
	if idx == nil {
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(l.Data[4*i:]))
		}
		return out
	}
	for i, j := range idx {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(l.Data[4*j:]))
	}
	return out
}

func loadC128(l *literal.Literal, idx []int) []complex128 {
	v := decodeComplexes(l)
	if idx == nil {
		return v
	}
	return gatherByIndex(v, idx)
}

func loadI64(l *literal.Literal, idx []int) []int64 {
	v := decodeInts(l)
	if idx == nil {
		return v
	}
	return gatherByIndex(v, idx)
}

// permIndexOrNil is permutedIndex, or nil for the identity permutation.
func permIndexOrNil(shape []int64, perm []int) []int {
	if identityPerm(perm) {
		return nil
	}
	return permutedIndex(shape, perm)
}
