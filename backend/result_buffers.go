package backend

import "context"

// Result buffers: a caller that has the memory its results go to (the C
// ABI writing into PyTorch's output tensors) hands it down with the run's
// context, so that an executable on host memory can compute a result
// straight into it instead of into memory of its own that is then copied.
// It is a hint: an executable may ignore it, and the caller still copies
// any result whose bytes are not the buffer's.

type resultBuffersKey struct{}

// WithResultBuffers returns ctx carrying dst: dst[i], when not nil, is
// where result i's bytes may be written (dense, row-major, exactly the
// result's size). The memory must stay valid for the call, and an
// executable must neither keep it nor hand it to another run after it.
func WithResultBuffers(ctx context.Context, dst [][]byte) context.Context {
	return context.WithValue(ctx, resultBuffersKey{}, dst)
}

// ResultBuffers returns the buffers WithResultBuffers put in ctx, or nil.
func ResultBuffers(ctx context.Context) [][]byte {
	d, _ := ctx.Value(resultBuffersKey{}).([][]byte)
	return d
}
