package runtime

import (
	"context"
	"sync"

	"github.com/torchtpu/torchtpu/literal"
)

// Future is the pending result of Program.RunAsync. Reading it (Wait)
// synchronises with the run.
type Future struct {
	done  chan struct{}
	outs  []*literal.Literal
	stats *Stats
	err   error
}

// asyncState orders the asynchronous runs of one program.
type asyncState struct {
	mu   sync.Mutex
	last *Future
}

// RunAsync starts a run and returns at once. Runs of one program execute
// in the order they were started (a program's weights, buffers and caches
// are updated by each run, like work queued on one stream), so a caller
// can queue several and overlap its own work with theirs; segments within
// a run execute one after the other. On a device whose executables run
// asynchronously (backend.AsyncExecutable: PJRT) each segment is enqueued
// and the run waits for it only where it needs host values: a host
// fallback, the next segment's inputs, the outputs. ctx reaches those
// waits, so cancelling it ends the run there (device work already
// enqueued completes and is discarded). With Options.DebugSync the run
// happens before RunAsync returns. Do not mix RunAsync with concurrent
// Run calls on the same program.
func (p *Program) RunAsync(ctx context.Context, inputs []*literal.Literal) *Future {
	st := p.state()
	f := &Future{done: make(chan struct{})}
	if st.opts.DebugSync {
		f.outs, f.stats, f.err = p.Run(ctx, inputs)
		close(f.done)
		return f
	}
	st.async.mu.Lock()
	prev := st.async.last
	st.async.last = f
	st.async.mu.Unlock()
	go func() {
		defer close(f.done)
		if prev != nil {
			<-prev.done
		}
		if err := ctx.Err(); err != nil {
			f.err = err
			return
		}
		f.outs, f.stats, f.err = p.Run(ctx, inputs)
	}()
	return f
}

// Wait blocks until the run is done (or ctx ends: the run goes on) and
// returns its outputs.
func (f *Future) Wait(ctx context.Context) ([]*literal.Literal, *Stats, error) {
	select {
	case <-f.done:
		return f.outs, f.stats, f.err
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
}

// Ready reports whether Wait would return at once.
func (f *Future) Ready() bool {
	select {
	case <-f.done:
		return true
	default:
		return false
	}
}
