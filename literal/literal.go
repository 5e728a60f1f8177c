// Package literal holds host tensors: an element type, a shape and the
// elements in row-major order, little-endian, one dtype.Size() per element.
//
// It is the one in-memory tensor format of the project: dense constants in
// StableHLO, values in the native executor, weights read from archives and
// safetensors files all use it.
package literal

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/limits"
)

// MaxElements bounds the size of any literal made from untrusted input.
const MaxElements = 1 << 34

// MaxBytes bounds one allocation of a literal: a hostile or mistaken shape
// gets an error instead of exhausting memory. It defaults to 8 GiB and can
// be set with the environment variable TORCHTPU_MAX_TENSOR_BYTES (see
// package limits).
var MaxBytes = limits.Default().TensorBytes

// Literal is a dense host tensor.
type Literal struct {
	DType dtype.DType
	Shape []int64
	Data  []byte // NumElements(Shape) * DType.Size() bytes
	// Frozen marks bytes that never change while the literal lives (a
	// program's weights loaded from an archive, a constant's value): only
	// then may a cache keyed on the literal's identity (the native
	// backend's prepacked weights and folded steps) stand for its
	// contents. Buffers written in place (the eager device's, memory a
	// caller lends through the C ABI) are never frozen.
	Frozen bool
}

// NumElements returns the product of the dims, or an error on a negative
// dim or overflow past MaxElements.
func NumElements(shape []int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %v", d, shape)
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > MaxElements {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, int64(MaxElements))
		}
		n = int64(lo)
	}
	return n, nil
}

// New allocates a zero-filled literal.
func New(dt dtype.DType, shape []int64) (*Literal, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if dt.Size() == 0 {
		return nil, fmt.Errorf("literal of invalid dtype %v", dt)
	}
	if b := n * int64(dt.Size()); b > MaxBytes {
		return nil, fmt.Errorf("%v%v would take %d bytes, over the %d-byte limit per tensor (TORCHTPU_MAX_TENSOR_BYTES)", dt, shape, b, MaxBytes)
	}
	return Wrap(dt, shape, make([]byte, n*int64(dt.Size()))), nil
}

// Wrap returns a literal of dtype dt and a copy of shape over data (not
// copied, not checked). The literal and its shape take one allocation for
// ranks up to 4: an engine making thousands of small results per second
// feels the second one.
func Wrap(dt dtype.DType, shape []int64, data []byte) *Literal {
	if len(shape) > 4 {
		return &Literal{DType: dt, Shape: append([]int64(nil), shape...), Data: data}
	}
	b := &struct {
		l Literal
		s [4]int64
	}{}
	n := copy(b.s[:], shape)
	b.l = Literal{DType: dt, Shape: b.s[:n:n], Data: data}
	return &b.l
}

// FromBytes wraps data, checking its length against the shape.
func FromBytes(dt dtype.DType, shape []int64, data []byte) (*Literal, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if want := n * int64(dt.Size()); int64(len(data)) != want {
		return nil, fmt.Errorf("%v%v needs %d bytes, have %d", dt, shape, want, len(data))
	}
	return &Literal{DType: dt, Shape: append([]int64(nil), shape...), Data: data}, nil
}

// Len is the number of elements.
func (l *Literal) Len() int { return len(l.Data) / l.DType.Size() }

// Rank is the number of dims.
func (l *Literal) Rank() int { return len(l.Shape) }

// Clone returns a deep copy.
func (l *Literal) Clone() *Literal {
	return &Literal{DType: l.DType, Shape: append([]int64(nil), l.Shape...), Data: append([]byte(nil), l.Data...)}
}

// String describes the literal's type, e.g. "f32[2,3]".
func (l *Literal) String() string { return fmt.Sprintf("%v%v", l.DType, l.Shape) }

// Strides returns row-major strides in elements.
func Strides(shape []int64) []int64 {
	s := make([]int64, len(shape))
	acc := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		s[i] = acc
		acc *= shape[i]
	}
	return s
}

// Float64 reads element i as a float64 (real part for complex; 0/1 for bool).
func (l *Literal) Float64(i int) float64 {
	d := l.DType
	sz := d.Size()
	b := l.Data[i*sz : i*sz+sz]
	switch {
	case d.IsFloat() || d.IsComplex():
		return decodeFloat(d, b)
	case d.IsUnsigned():
		return float64(l.Uint64(i))
	default:
		return float64(l.Int64(i))
	}
}

// Int64 reads element i as an int64 (sign- or zero-extended).
func (l *Literal) Int64(i int) int64 {
	d := l.DType
	sz := d.Size()
	b := l.Data[i*sz : i*sz+sz]
	switch d {
	case dtype.Bool, dtype.U2, dtype.U4, dtype.U8:
		return int64(b[0])
	case dtype.I2, dtype.I4, dtype.I8:
		return int64(int8(b[0]))
	case dtype.I16:
		return int64(int16(binary.LittleEndian.Uint16(b)))
	case dtype.U16:
		return int64(binary.LittleEndian.Uint16(b))
	case dtype.I32:
		return int64(int32(binary.LittleEndian.Uint32(b)))
	case dtype.U32:
		return int64(binary.LittleEndian.Uint32(b))
	case dtype.I64, dtype.U64, dtype.Index:
		return int64(binary.LittleEndian.Uint64(b))
	}
	return int64(decodeFloat(d, b))
}

// Uint64 reads element i as a uint64 (the bits of Int64 for signed types).
func (l *Literal) Uint64(i int) uint64 { return uint64(l.Int64(i)) }

// SetInt64 stores v into element i, truncating to the dtype's width
// (wrap-around for integers; converted for floats).
func (l *Literal) SetInt64(i int, v int64) {
	d := l.DType
	sz := d.Size()
	b := l.Data[i*sz : i*sz+sz]
	switch d {
	case dtype.Bool:
		if v != 0 {
			b[0] = 1
		} else {
			b[0] = 0
		}
	case dtype.I2:
		b[0] = byte(int8(v << 62 >> 62))
	case dtype.I4:
		b[0] = byte(int8(v << 60 >> 60))
	case dtype.U2:
		b[0] = byte(v & 3)
	case dtype.U4:
		b[0] = byte(v & 15)
	case dtype.I8, dtype.U8:
		b[0] = byte(v)
	case dtype.I16, dtype.U16:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case dtype.I32, dtype.U32:
		binary.LittleEndian.PutUint32(b, uint32(v))
	case dtype.I64, dtype.U64, dtype.Index:
		binary.LittleEndian.PutUint64(b, uint64(v))
	default:
		encodeFloat(d, b, float64(v))
	}
}

// SetFloat64 stores v into element i of a float (or complex: real part,
// imaginary 0) literal. Integer literals get the value truncated toward zero.
func (l *Literal) SetFloat64(i int, v float64) {
	d := l.DType
	sz := d.Size()
	b := l.Data[i*sz : i*sz+sz]
	if d.IsFloat() || d.IsComplex() {
		encodeFloat(d, b, v)
		return
	}
	l.SetInt64(i, int64(v))
}

// Complex128 reads element i as a complex number.
func (l *Literal) Complex128(i int) complex128 {
	switch l.DType {
	case dtype.C64:
		b := l.Data[i*8:]
		return complex(float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))))
	case dtype.C128:
		b := l.Data[i*16:]
		return complex(math.Float64frombits(binary.LittleEndian.Uint64(b)), math.Float64frombits(binary.LittleEndian.Uint64(b[8:])))
	}
	return complex(l.Float64(i), 0)
}

// SetComplex128 stores v into element i of a complex literal.
func (l *Literal) SetComplex128(i int, v complex128) {
	switch l.DType {
	case dtype.C64:
		b := l.Data[i*8:]
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(real(v))))
		binary.LittleEndian.PutUint32(b[4:], math.Float32bits(float32(imag(v))))
	case dtype.C128:
		b := l.Data[i*16:]
		binary.LittleEndian.PutUint64(b, math.Float64bits(real(v)))
		binary.LittleEndian.PutUint64(b[8:], math.Float64bits(imag(v)))
	default:
		l.SetFloat64(i, real(v))
	}
}

func decodeFloat(d dtype.DType, b []byte) float64 {
	switch d {
	case dtype.F32, dtype.C64:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	case dtype.F64, dtype.C128:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	case dtype.F16:
		return dtype.F16ToFloat64(binary.LittleEndian.Uint16(b))
	case dtype.BF16:
		return float64(dtype.BF16ToFloat32(binary.LittleEndian.Uint16(b)))
	default:
		return dtype.MiniFloatToFloat64(d, b[0])
	}
}

func encodeFloat(d dtype.DType, b []byte, v float64) {
	switch d {
	case dtype.F32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	case dtype.C64:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
		binary.LittleEndian.PutUint32(b[4:], 0)
	case dtype.F64:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	case dtype.C128:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		binary.LittleEndian.PutUint64(b[8:], 0)
	case dtype.F16:
		binary.LittleEndian.PutUint16(b, dtype.Float64ToF16(v))
	case dtype.BF16:
		binary.LittleEndian.PutUint16(b, dtype.Float64ToBF16(v))
	default:
		b[0] = dtype.Float64ToMiniFloat(d, v)
	}
}
