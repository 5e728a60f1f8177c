//go:build cgo

package pjrt

/*
#cgo CFLAGS: -I${SRCDIR}/include
#include "pjrt_c_api.h"
*/
import "C"

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Buffer is a PJRT device buffer (a backend.Buffer): an upload, or a
// result of RunBuffers, which is ready when the execution computing it
// is done.
type Buffer struct {
	b     *Backend
	dt    dtype.DType
	shape []int64
	h     *bufHandle
	exec  *execution // the run computing the buffer; nil for uploads
}

var (
	_ backend.Buffer           = (*Buffer)(nil)
	_ backend.BufferBackend    = (*Backend)(nil)
	_ backend.BufferExecutable = (*executable)(nil)
)

// bufHandle owns the C handles of a Buffer. An execution reading the
// buffer holds a use; a release while uses are held destroys the handles
// when the last one ends, so the plugin never sees a destroyed argument.
type bufHandle struct {
	mu       sync.Mutex
	api      capi
	buf      *C.PJRT_Buffer
	hostDone *C.PJRT_Event // an upload's done_with_host_buffer, or nil
	uses     int
	released bool
	donated  bool
}

// acquire returns the C buffer and holds a use of it.
func (h *bufHandle) acquire() (*C.PJRT_Buffer, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.released:
		return nil, backend.ErrReleased
	case h.donated:
		return nil, fmt.Errorf("donated to a run: %w", backend.ErrReleased)
	}
	h.uses++
	return h.buf, nil
}

// unuse ends a use taken by acquire.
func (h *bufHandle) unuse() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.uses--
	if h.uses == 0 && h.released {
		h.destroyLocked()
	}
}

func (h *bufHandle) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.released = true
	if h.uses == 0 {
		h.destroyLocked()
	}
}

// liveBuffers counts the device buffers made and not yet destroyed, in
// every plugin of the process.
var liveBuffers atomic.Int64

// LiveBuffers returns how many PJRT device buffers the process holds: a
// count that grows run after run is a leak, whatever RSS shows.
func LiveBuffers() int64 { return liveBuffers.Load() }

func newHandle(api capi, buf *C.PJRT_Buffer, done *C.PJRT_Event) *bufHandle {
	liveBuffers.Add(1)
	return &bufHandle{api: api, buf: buf, hostDone: done}
}

func (h *bufHandle) destroyLocked() {
	if h.buf != nil {
		liveBuffers.Add(-1)
	}
	b := deviceBuffer{buf: h.buf, done: h.hostDone}
	b.release(h.api)
	h.buf, h.hostDone = nil, nil
}

func (h *bufHandle) markDonated() {
	h.mu.Lock()
	h.donated = true
	h.mu.Unlock()
}

// execution is the completion of one RunBuffers.
type execution struct {
	done chan struct{}
	err  error
}

func newBuffer(b *Backend, h *bufHandle, dt dtype.DType, shape []int64, ex *execution) *Buffer {
	buf := &Buffer{b: b, dt: dt, shape: shape, h: h, exec: ex}
	runtime.AddCleanup(buf, func(h *bufHandle) { h.release() }, h)
	return buf
}

func (p *Buffer) DType() dtype.DType { return p.dt }
func (p *Buffer) Shape() []int64     { return slices.Clone(p.shape) }
func (p *Buffer) Device() string     { return p.b.Name() }

// Ready is closed when the execution computing the buffer is done.
func (p *Buffer) Ready() <-chan struct{} {
	if p.exec == nil {
		return readyChan
	}
	return p.exec.done
}

var readyChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Await waits for the buffer and returns its computation's error.
func (p *Buffer) Await(ctx context.Context) error {
	select {
	case <-p.Ready():
	case <-ctx.Done():
		return ctx.Err()
	}
	if p.exec != nil && p.exec.err != nil {
		return p.exec.err
	}
	p.h.mu.Lock()
	defer p.h.mu.Unlock()
	switch {
	case p.h.released:
		return fmt.Errorf("%s buffer %s%v: %w", p.Device(), p.dt, p.shape, backend.ErrReleased)
	case p.h.donated:
		return fmt.Errorf("%s buffer %s%v was donated to a run: %w", p.Device(), p.dt, p.shape, backend.ErrReleased)
	}
	return nil
}

// ToHost copies the buffer to a new literal.
func (p *Buffer) ToHost(ctx context.Context) (*literal.Literal, error) {
	if err := p.Await(ctx); err != nil {
		return nil, err
	}
	cb, err := p.h.acquire()
	if err != nil {
		return nil, fmt.Errorf("%s buffer %s%v: %w", p.Device(), p.dt, p.shape, err)
	}
	defer p.h.unuse()
	l, err := p.h.api.toHost(cb)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: read buffer %s%v: %w", p.Device(), p.dt, p.shape, err)
	}
	return l, nil
}

// Release frees the device buffer (after the runs enqueued on it).
func (p *Buffer) Release() { p.h.release() }

// Upload copies l to the device; the copy proceeds in the background and
// the plugin orders executions reading the buffer after it.
func (b *Backend) Upload(ctx context.Context, l *literal.Literal) (backend.Buffer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l == nil {
		return nil, fmt.Errorf("pjrt %s: upload of a nil literal", b.Name())
	}
	api := b.shared.api
	db, err := api.toDevice(b.shared.raw, b.rawDevice, l)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: copy %v to the device: %w", b.Name(), l, err)
	}
	h := newHandle(api, db.buf, db.done)
	return newBuffer(b, h, l.DType, slices.Clone(l.Shape), nil), nil
}

// RunBuffers enqueues a run on device buffers and returns its results at
// once; they are ready when the run is done. Arguments stay valid (their
// release waits for the run) unless donated: donate[i] gives argument i's
// memory to the result the program aliases to it, when the program marks
// it donatable and the same buffer is not passed twice.
func (e *executable) RunBuffers(ctx context.Context, args []backend.Buffer, donate []bool) ([]backend.Buffer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(args) != e.nargs {
		return nil, fmt.Errorf("pjrt %s: the program takes %d arguments, got %d", e.b.Name(), e.nargs, len(args))
	}
	pbs := make([]*Buffer, len(args))
	seen := map[*bufHandle]int{}
	for i, a := range args {
		pb, ok := a.(*Buffer)
		if !ok || pb == nil {
			return nil, fmt.Errorf("pjrt %s: argument %d is a %T, not a buffer of this device (upload it first)", e.b.Name(), i, a)
		}
		if pb.b != e.b {
			return nil, fmt.Errorf("pjrt %s: argument %d is a buffer of %s", e.b.Name(), i, pb.Device())
		}
		pbs[i] = pb
		seen[pb.h]++
	}
	give := make([]bool, len(args))
	var keep []int64
	for i, pb := range pbs {
		give[i] = i < len(donate) && donate[i] && e.donate[i] && seen[pb.h] == 1
		if !give[i] {
			keep = append(keep, int64(i))
		}
	}
	raw := make([]deviceBuffer, len(args))
	unuse := func(n int) {
		for _, pb := range pbs[:n] {
			pb.h.unuse()
		}
	}
	for i, pb := range pbs {
		cb, err := pb.h.acquire()
		if err != nil {
			unuse(i)
			return nil, fmt.Errorf("pjrt %s: argument %d (%s%v): %w", e.b.Name(), i, pb.dt, pb.shape, err)
		}
		raw[i] = deviceBuffer{buf: cb}
	}
	api := e.b.shared.api
	l, err := api.execute(e.handle, e.b.rawDevice, raw, keep, e.nout)
	if err != nil {
		unuse(len(pbs))
		return nil, fmt.Errorf("pjrt %s: execute: %w", e.b.Name(), err)
	}
	for i, pb := range pbs {
		if give[i] {
			pb.h.markDonated()
		}
	}
	ex := &execution{done: make(chan struct{})}
	go func() {
		defer close(ex.done)
		if err := <-l.done; err != nil {
			ex.err = fmt.Errorf("pjrt %s: execute: %w", e.b.Name(), err)
		}
		l.releaseEvent()
		unuse(len(pbs))
		runtime.KeepAlive(e)
	}()
	outs := make([]backend.Buffer, len(l.outs))
	for i, o := range l.outs {
		h := newHandle(api, o, nil)
		l.outs[i] = nil // owned by h from here
		dt, shape, err := api.bufferShape(o)
		if err != nil {
			h.release()
			for _, rest := range l.outs[i+1:] {
				newHandle(api, rest, nil).release()
			}
			backend.ReleaseAll(outs[:i])
			return nil, fmt.Errorf("pjrt %s: result %d: %w", e.b.Name(), i, err)
		}
		outs[i] = newBuffer(e.b, h, dt, shape, ex)
	}
	return outs, nil
}
