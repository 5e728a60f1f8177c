package capi

import (
	"fmt"
	"unsafe"

	"github.com/torchtpu/torchtpu/literal"
)

// Result holds a run's outputs in Go memory until the caller copies them
// out and frees the handle. A None output is a nil entry.
type Result struct {
	outs []*literal.Literal
}

func (r *Result) release() { r.outs = nil }

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// OutputMeta is what the caller needs to allocate output i: its dtype
// (c10::ScalarType number, -1 for None) and shape.
type OutputMeta struct {
	DType int32
	Shape []int64
}

// Describe returns the meta of every output of result h.
func Describe(h Handle) ([]OutputMeta, error) {
	r, err := get[*Result](h, "result")
	if err != nil {
		return nil, err
	}
	metas := make([]OutputMeta, len(r.outs))
	for i, o := range r.outs {
		if o == nil {
			metas[i] = OutputMeta{DType: -1}
			continue
		}
		code, err := ScalarTypeOf(o.DType)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		metas[i] = OutputMeta{DType: code, Shape: o.Shape}
	}
	return metas, nil
}

// CopyOut copies output i of result h into dst, which has extent bytes
// and must be contiguous memory of the output's dtype and shape.
func CopyOut(h Handle, i int, dst unsafe.Pointer, extent int64) error {
	r, err := get[*Result](h, "result")
	if err != nil {
		return err
	}
	if i < 0 || i >= len(r.outs) {
		return fmt.Errorf("output %d out of range (the result has %d)", i, len(r.outs))
	}
	if r.outs[i] == nil {
		return fmt.Errorf("output %d is None", i)
	}
	if err := CopyTo(r.outs[i], dst, extent); err != nil {
		return fmt.Errorf("output %d: %w", i, err)
	}
	return nil
}
