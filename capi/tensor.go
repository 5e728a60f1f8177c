package capi

import (
	"fmt"
	"math/bits"
	"unsafe"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// MaxRank is the largest tensor rank the ABI accepts.
const MaxRank = 16

// TensorDesc describes caller-owned tensor memory: Data points at the
// first element (storage offset applied), Extent is the number of bytes
// readable from Data (to the end of the storage), Strides are in elements
// as PyTorch counts them (nil: contiguous).
type TensorDesc struct {
	Data    unsafe.Pointer
	Extent  int64
	DType   int32
	Shape   []int64
	Strides []int64
}

// checked validates d and returns its dtype, element count and whether
// it is contiguous.
func (d *TensorDesc) checked() (dt dtype.DType, n int64, contiguous bool, err error) {
	dt, err = dtype.OfScalarType(d.DType)
	if err != nil {
		return dt, 0, false, err
	}
	if len(d.Shape) > MaxRank {
		return dt, 0, false, fmt.Errorf("rank %d is over the limit of %d", len(d.Shape), MaxRank)
	}
	if d.Strides != nil && len(d.Strides) != len(d.Shape) {
		return dt, 0, false, fmt.Errorf("%d strides for %d dims", len(d.Strides), len(d.Shape))
	}
	n, err = literal.NumElements(d.Shape)
	if err != nil {
		return dt, 0, false, err
	}
	size := int64(dt.Size())
	if n == 0 {
		return dt, 0, true, nil
	}
	if d.Data == nil {
		return dt, 0, false, fmt.Errorf("null data pointer for a tensor of %d elements", n)
	}
	if d.Extent < 0 {
		return dt, 0, false, fmt.Errorf("negative byte extent %d", d.Extent)
	}
	// The farthest element addressed, in elements from Data.
	contiguous = true
	var last int64
	want := int64(1)
	for i := len(d.Shape) - 1; i >= 0; i-- {
		dim := d.Shape[i]
		st := want
		if d.Strides != nil {
			st = d.Strides[i]
		}
		if st < 0 {
			return dt, 0, false, fmt.Errorf("negative stride %d in dim %d (flip the tensor on the host first)", st, i)
		}
		if dim > 1 && st != want {
			contiguous = false
		}
		hi, lo := bits.Mul64(uint64(dim-1), uint64(st))
		if hi != 0 || lo > 1<<62 {
			return dt, 0, false, fmt.Errorf("stride %d of dim %d overflows", st, i)
		}
		last += int64(lo)
		if last > 1<<62 {
			return dt, 0, false, fmt.Errorf("strides %v overflow", d.Strides)
		}
		want *= dim
	}
	hi, lo := bits.Mul64(uint64(last+1), uint64(size))
	if hi != 0 || int64(lo) < 0 || int64(lo) > d.Extent {
		return dt, 0, false, fmt.Errorf("shape %v with strides %v addresses %d×%d bytes, past the %d bytes the tensor has",
			d.Shape, d.Strides, last+1, size, d.Extent)
	}
	return dt, n, contiguous, nil
}

// Literal returns d as a literal. Contiguous memory is wrapped in place
// (valid only while the caller keeps it alive: the duration of a call);
// strided memory is gathered into a new contiguous literal.
func (d *TensorDesc) Literal() (*literal.Literal, error) {
	l := new(literal.Literal)
	if err := d.literalInto(l, make([]int64, len(d.Shape))); err != nil {
		return nil, err
	}
	return l, nil
}

// literalInto is Literal writing into l, with shape (len(d.Shape) long)
// as the literal's shape: a caller with many tensors allocates them
// together.
func (d *TensorDesc) literalInto(l *literal.Literal, shape []int64) error {
	return d.literalIntoBuf(l, shape, nil)
}

// literalIntoBuf is literalInto gathering a strided tensor into *buf (grown
// as needed and kept there for the next call) instead of a new literal's
// memory: a bound call's strided inputs (attention heads saved as views of
// a projection) are gathered every call, and fresh memory each time costs
// page faults as well as the copy.
func (d *TensorDesc) literalIntoBuf(l *literal.Literal, shape []int64, buf *[]byte) error {
	dt, n, contiguous, err := d.checked()
	if err != nil {
		return err
	}
	size := int64(dt.Size())
	copy(shape, d.Shape)
	switch {
	case n == 0:
		*l = literal.Literal{DType: dt, Shape: shape, Data: []byte{}}
	case contiguous:
		*l = literal.Literal{DType: dt, Shape: shape, Data: unsafe.Slice((*byte)(d.Data), n*size)}
	default:
		var fresh []byte
		if buf == nil {
			buf = &fresh
		}
		if int64(cap(*buf)) < n*size {
			*buf = make([]byte, n*size)
		}
		data := (*buf)[:n*size]
		literal.Gather(data, unsafe.Slice((*byte)(d.Data), d.Extent), 0, shape, d.Strides, size)
		*l = literal.Literal{DType: dt, Shape: shape, Data: data}
	}
	return nil
}

// Copy returns d as a literal in Go memory (always a copy), for data that
// must outlive the call.
func (d *TensorDesc) Copy() (*literal.Literal, error) {
	l, err := d.Literal()
	if err != nil {
		return nil, err
	}
	if _, _, contiguous, _ := d.checked(); contiguous {
		l = &literal.Literal{DType: l.DType, Shape: l.Shape, Data: append([]byte(nil), l.Data...)}
	}
	return l, nil
}

// CopyTo copies l into caller memory dst of extent bytes, which must hold
// exactly l's bytes (contiguous, same dtype as the caller allocated).
func CopyTo(l *literal.Literal, dst unsafe.Pointer, extent int64) error {
	n := int64(len(l.Data))
	if extent != n {
		return fmt.Errorf("destination has %d bytes, the tensor %v%v has %d", extent, l.DType, l.Shape, n)
	}
	if n == 0 {
		return nil
	}
	if dst == nil {
		return fmt.Errorf("null destination pointer")
	}
	copy(unsafe.Slice((*byte)(dst), n), l.Data)
	return nil
}

// Store writes l into the caller memory d describes, in d's layout
// (strides included), after checking that d is l's dtype and shape and that
// every element it addresses lies inside its extent. A negative DType
// skips the output (the caller wants no copy of it).
func (d *TensorDesc) Store(l *literal.Literal) error {
	dt, n, contiguous, err := d.checked()
	if err != nil {
		return err
	}
	if dt != l.DType || !equalShape(d.Shape, l.Shape) {
		return fmt.Errorf("the result is %s%v, the destination %s%v", l.DType.Torch(), l.Shape, dt.Torch(), d.Shape)
	}
	if n == 0 {
		return nil
	}
	size := int64(dt.Size())
	if contiguous {
		if len(l.Data) > 0 && unsafe.Pointer(&l.Data[0]) == d.Data {
			return nil // computed in place (runtime.WithOutputBuffers)
		}
		copy(unsafe.Slice((*byte)(d.Data), n*size), l.Data)
		return nil
	}
	literal.Scatter(unsafe.Slice((*byte)(d.Data), d.Extent), l.Data, 0, d.Shape, d.Strides, size)
	return nil
}

func equalShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
