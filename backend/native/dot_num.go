package native

// Numeric buffers shared by the compute kernels (dot, convolution, reduce,
// windows, fft, linalg, quantization): a literal is decoded once into a
// []float64, []int64 or []complex128, the kernel runs plain loops over
// those slices, and the result is encoded back with one rounding to the
// result element type.

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// numClass is how a compute kernel represents an element type.
type numClass int

const (
	clsFloat   numClass = iota // float64
	clsInt                     // int64 (wrap-around to the type's width on store)
	clsComplex                 // complex128
	clsBool                    // int64 0/1
)

func numClassOf(d dtype.DType) numClass {
	switch {
	case d.IsComplex():
		return clsComplex
	case d.IsFloat():
		return clsFloat
	case d.IsBool():
		return clsBool
	}
	return clsInt
}

// decodeFloats decodes every element as a float64 (real part of complex).
func decodeFloats(l *literal.Literal) []float64 {
	n := l.Len()
	out := make([]float64, n)
	switch l.DType {
	case dtype.F32:
		for i := range out {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(l.Data[4*i:])))
		}
	case dtype.F64:
		for i := range out {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(l.Data[8*i:]))
		}
	default:
		for i := range out {
			out[i] = l.Float64(i)
		}
	}
	return out
}

// decodeInts decodes every element as an int64 (sign- or zero-extended; the
// bits for ui64).
func decodeInts(l *literal.Literal) []int64 {
	out := make([]int64, l.Len())
	for i := range out {
		out[i] = l.Int64(i)
	}
	return out
}

// decodeComplexes decodes every element as a complex128.
func decodeComplexes(l *literal.Literal) []complex128 {
	out := make([]complex128, l.Len())
	for i := range out {
		out[i] = l.Complex128(i)
	}
	return out
}

// encodeFloats encodes v into l, rounding once to l's element type.
func encodeFloats(l *literal.Literal, v []float64) {
	switch l.DType {
	case dtype.F32:
		for i, x := range v {
			binary.LittleEndian.PutUint32(l.Data[4*i:], math.Float32bits(float32(x)))
		}
	case dtype.F64:
		for i, x := range v {
			binary.LittleEndian.PutUint64(l.Data[8*i:], math.Float64bits(x))
		}
	default:
		if l.DType.IsFloat() || l.DType.IsComplex() {
			for i, x := range v {
				l.SetFloat64(i, x)
			}
			return
		}
		for i, x := range v {
			l.SetInt64(i, floatToIntSat(l.DType, x))
		}
	}
}

// floatToIntSat converts like stablehlo.convert: NaN to 0, saturating at the
// range of the integer type, truncating toward zero.
func floatToIntSat(d dtype.DType, x float64) int64 {
	if d.IsBool() {
		if x != 0 {
			return 1
		}
		return 0
	}
	if math.IsNaN(x) {
		return 0
	}
	lo, hi := intTypeRange(d)
	if d == dtype.U64 {
		if x <= 0 {
			return 0
		}
		if x >= 18446744073709551615.0 {
			return -1
		}
		return int64(uint64(x))
	}
	if x <= float64(lo) {
		return lo
	}
	if x >= float64(hi) {
		return hi
	}
	return int64(x)
}

// intTypeRange is the range of an integer type (for ui64, hi is MaxInt64).
func intTypeRange(d dtype.DType) (lo, hi int64) {
	b := d.Bits()
	switch {
	case d.IsBool():
		return 0, 1
	case d.IsUnsigned():
		if b >= 64 {
			return 0, math.MaxInt64
		}
		return 0, 1<<b - 1
	case b >= 64 || d == dtype.Index:
		return math.MinInt64, math.MaxInt64
	}
	return -1 << (b - 1), 1<<(b-1) - 1
}

// encodeInts encodes v into l with wrap-around to the integer width (for a
// float type, converted; for i1, nonzero is true).
func encodeInts(l *literal.Literal, v []int64) {
	if l.DType.IsFloat() || l.DType.IsComplex() {
		for i, x := range v {
			l.SetFloat64(i, float64(x))
		}
		return
	}
	for i, x := range v {
		l.SetInt64(i, x)
	}
}

// encodeComplexes encodes v into l, rounding each part once.
func encodeComplexes(l *literal.Literal, v []complex128) {
	for i, x := range v {
		l.SetComplex128(i, x)
	}
}

// roundToDType rounds x as if stored into element type d and read back.
func roundToDType(d dtype.DType, x float64) float64 {
	switch d {
	case dtype.F64, dtype.C128:
		return x
	case dtype.F32, dtype.C64:
		return float64(float32(x))
	case dtype.F16:
		return dtype.F16ToFloat64(dtype.Float64ToF16(x))
	case dtype.BF16:
		return float64(dtype.BF16ToFloat32(dtype.Float64ToBF16(x)))
	}
	if d.IsFloat() {
		return dtype.MiniFloatToFloat64(d, dtype.Float64ToMiniFloat(d, x))
	}
	return x
}

// wrapToWidth truncates x to the width of integer type d and extends it back
// (sign-extension for signed types).
func wrapToWidth(d dtype.DType, x int64) int64 {
	b := d.Bits()
	switch {
	case d.IsBool():
		if x != 0 {
			return 1
		}
		return 0
	case b >= 64:
		return x
	case d.IsUnsigned():
		return x & (1<<b - 1)
	}
	s := 64 - b
	return x << s >> s
}

// computeResultDType is the element dtype of result i: from the op's type when it
// has one, else def.
func computeResultDType(op *stablehlo.Op, i int, def dtype.DType) dtype.DType {
	if i < len(op.Results) {
		if t := stablehlo.AsTensor(op.Results[i].Type); t != nil {
			return t.DType()
		}
	}
	return def
}

// checkComputedShape verifies a computed shape against the op's static
// result type, if any.
func checkComputedShape(op *stablehlo.Op, i int, shape []int64) error {
	t := resultType(op, i)
	if t == nil {
		return nil
	}
	if len(t.Shape) != len(shape) {
		return fmt.Errorf("%s: result #%d has type %v but the operands give shape %v", op.Name, i, t, shape)
	}
	for d := range shape {
		if t.Shape[d] != shape[d] {
			return fmt.Errorf("%s: result #%d has type %v but the operands give shape %v", op.Name, i, t, shape)
		}
	}
	return nil
}

// permutedIndex returns, for each element of the tensor obtained by permuting
// the dims of shape (result dim i = source dim perm[i]), its row-major
// index in the source.
func permutedIndex(shape []int64, perm []int) []int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	out := make([]int, n)
	if n == 0 {
		return out
	}
	src := literal.Strides(shape)
	r := len(perm)
	dims := make([]int, r)
	str := make([]int, r)
	for i, p := range perm {
		dims[i] = int(shape[p])
		str[i] = int(src[p])
	}
	idx := make([]int, r)
	off := 0
	for k := 0; k < n; k++ {
		out[k] = off
		for d := r - 1; d >= 0; d-- {
			idx[d]++
			off += str[d]
			if idx[d] < dims[d] {
				break
			}
			off -= str[d] * dims[d]
			idx[d] = 0
		}
	}
	return out
}

// gatherByIndex returns src permuted by an index table from permutedIndex.
func gatherByIndex[T any](src []T, idx []int) []T {
	out := make([]T, len(idx))
	for i, j := range idx {
		out[i] = src[j]
	}
	return out
}

// identityPerm reports whether perm is 0, 1, 2, ...
func identityPerm(perm []int) bool {
	for i, p := range perm {
		if p != i {
			return false
		}
	}
	return true
}

// prod multiplies dims.
func elemCount(shape []int64) int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	return n
}

// scalarAt wraps one element of l (at flat index i) as a 0-d literal.
func scalarAt(l *literal.Literal, i int) *literal.Literal {
	sz := l.DType.Size()
	return &literal.Literal{DType: l.DType, Shape: []int64{}, Data: append([]byte(nil), l.Data[i*sz:(i+1)*sz]...)}
}

// storeScalarAt copies the 0-d literal s into element i of l.
func storeScalarAt(l *literal.Literal, i int, s *literal.Literal) error {
	sz := l.DType.Size()
	if s.DType != l.DType || len(s.Data) != sz {
		return fmt.Errorf("got %v, want a %v scalar", s, l.DType)
	}
	copy(l.Data[i*sz:], s.Data)
	return nil
}

// promoteTo converts l to element type d when they differ (the widening
// the spec allows from a reduction's inputs to its accumulator type).
func promoteTo(l *literal.Literal, d dtype.DType) (*literal.Literal, error) {
	if l.DType == d {
		return l, nil
	}
	out, err := literal.New(d, l.Shape)
	if err != nil {
		return nil, err
	}
	switch {
	case d.IsComplex():
		encodeComplexes(out, decodeComplexes(l))
	case d.IsFloat():
		encodeFloats(out, decodeFloats(l))
	case l.DType.IsFloat() || l.DType.IsComplex():
		return nil, fmt.Errorf("cannot promote %v to %v", l.DType, d)
	default:
		encodeInts(out, decodeInts(l))
	}
	return out, nil
}
