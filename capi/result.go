package capi

import (
	"fmt"
	goruntime "runtime"
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
		code, err := o.DType.ScalarType()
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

// Taken is one output handed to the caller without a copy: its bytes stay
// pinned in Go memory (runtime.Pinner) until the caller frees the handle,
// so the caller may read and write them in place meanwhile.
type Taken struct {
	lit    *literal.Literal
	pinner goruntime.Pinner
}

func (t *Taken) release() {
	t.pinner.Unpin()
	t.lit = nil
}

// Take moves output i out of result h and pins its bytes: it returns a
// handle that keeps them alive, their address and their length. The
// output is gone from the result afterwards (a second Take is an error).
func Take(h Handle, i int) (Handle, unsafe.Pointer, int64, error) {
	r, err := get[*Result](h, "result")
	if err != nil {
		return 0, nil, 0, err
	}
	if i < 0 || i >= len(r.outs) {
		return 0, nil, 0, fmt.Errorf("output %d out of range (the result has %d)", i, len(r.outs))
	}
	l := r.outs[i]
	if l == nil {
		return 0, nil, 0, fmt.Errorf("output %d is None or was already taken", i)
	}
	if len(l.Data) == 0 {
		return 0, nil, 0, fmt.Errorf("output %d has no bytes to take: allocate it empty", i)
	}
	r.outs[i] = nil
	t := &Taken{lit: l}
	p := unsafe.Pointer(unsafe.SliceData(l.Data))
	t.pinner.Pin(p)
	return put(t), p, int64(len(l.Data)), nil
}
