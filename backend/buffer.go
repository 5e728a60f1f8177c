package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
)

// Buffer is a tensor's storage on a device. A device buffer is made by
// Upload (host → device) or by running an executable on buffers
// (RunBuffers), read back with ToHost (device → host) and freed with
// Release. A buffer an execution is still computing is not ready yet:
// Ready is closed once it is (or once its computation failed), and Await
// or ToHost wait for it and return the computation's error. A buffer
// nobody releases is freed when it is garbage collected; Release frees
// the device memory at once (after the executions already enqueued on it
// are done). Buffers are safe for concurrent use.
type Buffer interface {
	DType() dtype.DType
	Shape() []int64
	// Device is the name of the backend holding the buffer ("cpu",
	// "xla-cpu:1").
	Device() string
	// Ready is closed when the contents are computed or failed.
	Ready() <-chan struct{}
	// Await waits until the buffer is ready and returns the error of the
	// computation that defines it, or ctx's error when ctx ends first.
	Await(ctx context.Context) error
	// ToHost copies the contents to a host literal, waiting until the
	// buffer is ready.
	ToHost(ctx context.Context) (*literal.Literal, error)
	// Release frees the buffer; using it afterwards is an error. Calling
	// it again does nothing.
	Release()
}

// BufferBackend is a Backend with device memory of its own.
type BufferBackend interface {
	Backend
	// Upload copies l to the device and returns without waiting for the
	// copy; l may be modified once Upload returns.
	Upload(ctx context.Context, l *literal.Literal) (Buffer, error)
}

// BufferExecutable is an Executable that runs on device buffers.
type BufferExecutable interface {
	Executable
	// RunBuffers enqueues a run on args (buffers of the executable's
	// device) and returns its results, which are ready when the run is
	// done. donate[i] lets the run take over argument i's memory for the
	// result the program aliases to it (tf.aliasing_output,
	// jax.buffer_donor): a donated argument is consumed, and reading it
	// afterwards is an error. nil donates nothing.
	RunBuffers(ctx context.Context, args []Buffer, donate []bool) ([]Buffer, error)
}

// ErrReleased is returned (wrapped) when a released or donated buffer is
// used.
var ErrReleased = errors.New("buffer released")

// HostBuffer is a buffer in host memory: a literal, without a copy. It is
// what the native backend ("cpu") and any backend without device memory
// of its own hold data in: uploading and reading it back move no bytes.
// The literal must not be modified while the buffer is in use.
type HostBuffer struct {
	lit      *literal.Literal
	device   string
	released atomic.Bool
}

// NewHostBuffer wraps l as a buffer of device.
func NewHostBuffer(device string, l *literal.Literal) *HostBuffer {
	return &HostBuffer{lit: l, device: device}
}

// Literal returns the wrapped literal (nil once released).
func (h *HostBuffer) Literal() *literal.Literal {
	if h.released.Load() {
		return nil
	}
	return h.lit
}

func (h *HostBuffer) DType() dtype.DType     { return h.lit.DType }
func (h *HostBuffer) Shape() []int64         { return slices.Clone(h.lit.Shape) }
func (h *HostBuffer) Device() string         { return h.device }
func (h *HostBuffer) Ready() <-chan struct{} { return closed }

// Await returns at once: host buffers are always ready.
func (h *HostBuffer) Await(ctx context.Context) error {
	if h.released.Load() {
		return fmt.Errorf("%s buffer %s%v: %w", h.device, h.lit.DType, h.lit.Shape, ErrReleased)
	}
	return nil
}

// ToHost returns the wrapped literal itself: nothing is copied.
func (h *HostBuffer) ToHost(ctx context.Context) (*literal.Literal, error) {
	if err := h.Await(ctx); err != nil {
		return nil, err
	}
	return h.lit, nil
}

// Release drops the buffer; the literal is the garbage collector's.
func (h *HostBuffer) Release() { h.released.Store(true) }

// IsHost reports whether reading buf moves no bytes (a HostBuffer).
func IsHost(buf Buffer) bool {
	_, ok := buf.(*HostBuffer)
	return ok
}

// Upload puts l on b's device: a copy for a BufferBackend, else a
// HostBuffer wrapping l (no copy).
func Upload(ctx context.Context, b Backend, l *literal.Literal) (Buffer, error) {
	if l == nil {
		return nil, fmt.Errorf("upload to %s: nil literal", b.Name())
	}
	if bb, ok := b.(BufferBackend); ok {
		buf, err := bb.Upload(ctx, l)
		if err != nil {
			return nil, fmt.Errorf("upload %s%v to %s: %w", l.DType, l.Shape, b.Name(), err)
		}
		return buf, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return NewHostBuffer(b.Name(), l), nil
}

// RunBuffers runs exe, compiled on b, on buffers: through
// BufferExecutable when exe has it; otherwise the arguments are read on
// the host (for HostBuffers, without a copy), exe runs, and its results
// become HostBuffers of b.
func RunBuffers(ctx context.Context, b Backend, exe Executable, args []Buffer, donate []bool) ([]Buffer, error) {
	if be, ok := exe.(BufferExecutable); ok {
		return be.RunBuffers(ctx, args, donate)
	}
	lits := make([]*literal.Literal, len(args))
	for i, a := range args {
		if a == nil {
			return nil, fmt.Errorf("run on %s: argument %d is nil", b.Name(), i)
		}
		l, err := a.ToHost(ctx)
		if err != nil {
			return nil, fmt.Errorf("run on %s: argument %d: %w", b.Name(), i, err)
		}
		lits[i] = l
	}
	outs, err := exe.Run(ctx, lits)
	if err != nil {
		return nil, err
	}
	bufs := make([]Buffer, len(outs))
	for i, o := range outs {
		bufs[i] = NewHostBuffer(b.Name(), o)
	}
	return bufs, nil
}

// ReleaseAll releases every non-nil buffer of bufs.
func ReleaseAll(bufs []Buffer) {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
}
