//go:build cgo

package pjrt

// Buffers this package moves itself through the PJRT C API (capi.h):
// host to device without waiting, and device to host with the buffer's
// type and dimensions read from the plugin.

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// deviceBuffer is a buffer this package transferred.
type deviceBuffer struct {
	buf  *C.PJRT_Buffer
	done *C.PJRT_Event // the plugin is done with the host copy; may be nil
}

// toDevice starts the copy of l to dev and returns without waiting for
// it: the plugin orders an execution that reads the buffer after the copy.
func (a capi) toDevice(client, dev unsafe.Pointer, l *literal.Literal) (deviceBuffer, error) {
	pt, err := toPJRT(l.DType)
	if err != nil {
		return deviceBuffer{}, err
	}
	cdims := (*C.int64_t)(C.calloc(C.size_t(max(len(l.Shape), 1)), 8))
	defer C.free(unsafe.Pointer(cdims))
	for i, d := range l.Shape {
		unsafe.Slice(cdims, len(l.Shape))[i] = C.int64_t(d)
	}
	var src unsafe.Pointer
	if len(l.Data) > 0 {
		src = unsafe.Pointer(&l.Data[0])
	}
	var b deviceBuffer
	err = a.toError(C.tt_to_device(a.p, (*C.PJRT_Client)(client), (*C.PJRT_Device)(dev), src, C.size_t(len(l.Data)),
		C.int(pt), cdims, C.size_t(len(l.Shape)), &b.buf, &b.done))
	if err == nil && b.buf == nil {
		err = errors.New("out of host memory for the transfer")
	}
	if err != nil {
		if b.done != nil {
			C.tt_event_destroy(a.p, b.done)
		}
		return deviceBuffer{}, err
	}
	return b, nil
}

// release destroys the buffer and its transfer event.
func (b *deviceBuffer) release(a capi) {
	if b.buf != nil {
		C.tt_buffer_destroy(a.p, b.buf)
		b.buf = nil
	}
	if b.done != nil {
		C.tt_event_destroy(a.p, b.done)
		b.done = nil
	}
}

// bufferShape reads a buffer's element type and dimensions.
func (a capi) bufferShape(b *C.PJRT_Buffer) (dtype.DType, []int64, error) {
	if b == nil {
		return dtype.Invalid, nil, errors.New("the plugin returned no buffer")
	}
	var typ C.int
	var cdims *C.int64_t
	var n C.size_t
	if err := a.toError(C.tt_buffer_shape(a.p, b, &typ, &cdims, &n)); err != nil {
		return dtype.Invalid, nil, err
	}
	dt, err := fromBufferType(int(typ))
	if err != nil {
		return dtype.Invalid, nil, err
	}
	if cdims == nil && n > 0 {
		return dtype.Invalid, nil, fmt.Errorf("the plugin reports rank %d but no dimensions", n)
	}
	shape := make([]int64, int(n))
	for i, d := range unsafe.Slice(cdims, int(n)) {
		shape[i] = int64(d)
	}
	return dt, shape, nil
}

// toHost copies output buffer b to a new literal.
func (a capi) toHost(b *C.PJRT_Buffer) (*literal.Literal, error) {
	dt, shape, err := a.bufferShape(b)
	if err != nil {
		return nil, err
	}
	l, err := literal.New(dt, shape)
	if err != nil {
		return nil, err
	}
	// The copy goes straight into the literal's Go memory: it holds no Go
	// pointers, and tt_to_host waits for the copy before it returns, so
	// the plugin does not keep it.
	var one [1]byte
	dst := unsafe.Pointer(&one[0])
	if len(l.Data) > 0 {
		dst = unsafe.Pointer(&l.Data[0])
	}
	if err := a.toError(C.tt_to_host(a.p, b, dst, C.size_t(len(l.Data)), C.int(len(shape)))); err != nil {
		return nil, fmt.Errorf("copy to host: %w", err)
	}
	return l, nil
}

// fromBufferType maps a PJRT_Buffer_Type to ours.
func fromBufferType(t int) (dtype.DType, error) {
	for _, p := range dtypePairs {
		if int(p.pj) == t {
			return p.ours, nil
		}
	}
	return dtype.Invalid, fmt.Errorf("PJRT element type %d is not supported: %w", t, backend.ErrNotImplemented)
}
