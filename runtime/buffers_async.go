package runtime

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// An executable that runs asynchronously on host literals
// (backend.AsyncExecutable without buffers of its own) still lets a run
// go on lowering while it computes: its results are futureBuffers, with
// the dtypes and shapes of the module's results, that wait for the run
// when read. One wait serves every result of the run.

type futureRun struct {
	pending backend.Pending
	mu      sync.Mutex
	outs    []*literal.Literal
	err     error
	got     bool
}

// wait returns the run's outputs, calling Pending.Wait once.
func (f *futureRun) wait(ctx context.Context) ([]*literal.Literal, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.got {
		outs, err := f.pending.Wait(ctx)
		if err != nil && ctx.Err() != nil {
			return nil, err // the run goes on: a later wait may still get it
		}
		f.outs, f.err, f.got = outs, err, true
	}
	return f.outs, f.err
}

type futureBuffer struct {
	run      *futureRun
	index    int
	device   string
	dt       dtype.DType
	shape    []int64
	released bool
}

// runFuture starts exe on args, read on the host, and returns its
// results as futures of the module's result types.
func runFuture(ctx context.Context, device string, exe backend.AsyncExecutable, args []backend.Buffer, results []stablehlo.Type) ([]backend.Buffer, error) {
	types := make([]*stablehlo.TensorType, len(results))
	for i, t := range results {
		tt, ok := t.(*stablehlo.TensorType)
		if !ok || !tt.IsStatic() {
			return nil, fmt.Errorf("result %d is %v: only static tensors are run asynchronously", i, t)
		}
		types[i] = tt
	}
	lits := make([]*literal.Literal, len(args))
	for i, a := range args {
		l, err := a.ToHost(ctx)
		if err != nil {
			return nil, fmt.Errorf("argument %d: %w", i, err)
		}
		lits[i] = l
	}
	p, err := exe.RunAsync(ctx, lits)
	if err != nil {
		return nil, err
	}
	fr := &futureRun{pending: p}
	outs := make([]backend.Buffer, len(types))
	for i, t := range types {
		outs[i] = &futureBuffer{run: fr, index: i, device: device, dt: t.DType(), shape: slices.Clone(t.Shape)}
	}
	return outs, nil
}

func (b *futureBuffer) DType() dtype.DType     { return b.dt }
func (b *futureBuffer) Shape() []int64         { return slices.Clone(b.shape) }
func (b *futureBuffer) Device() string         { return b.device }
func (b *futureBuffer) Ready() <-chan struct{} { return b.run.pending.Done() }
func (b *futureBuffer) Release()               { b.released = true }

func (b *futureBuffer) Await(ctx context.Context) error {
	_, err := b.ToHost(ctx)
	return err
}

func (b *futureBuffer) ToHost(ctx context.Context) (*literal.Literal, error) {
	if b.released {
		return nil, backend.ErrReleased
	}
	outs, err := b.run.wait(ctx)
	if err != nil {
		return nil, err
	}
	if b.index >= len(outs) {
		return nil, fmt.Errorf("the run returned %d results, want at least %d", len(outs), b.index+1)
	}
	l := outs[b.index]
	if l == nil || l.DType != b.dt || !slices.Equal(l.Shape, b.shape) {
		return nil, fmt.Errorf("result %d is %v, want %s%v", b.index, l, b.dt, b.shape)
	}
	return l, nil
}
