package native

import (
	"context"
	"fmt"
	"sync"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// grid is a replica × partition grid of processes running concurrently in
// goroutines. Processes meet at rendezvous points (collectives), pass
// values over send/recv channels, and share the infeed and outfeed queues.
// The grid's context is cancelled as soon as any process fails, so that no
// member waits forever for a peer that has stopped.
type grid struct {
	replicas, partitions int
	ctx                  context.Context
	cancel               context.CancelCauseFunc

	mu     sync.Mutex
	points map[string]*rendezvous
	chans  map[int64]chan Value

	infeedMu sync.Mutex
	infeed   []Value // queued tensors, consumed in order
	outfeed  []Value
}

type rendezvous struct {
	vals    []Value
	arrived []bool
	n       int
	done    chan struct{}
}

func newGrid(ctx context.Context, replicas, partitions int) *grid {
	if replicas < 1 {
		replicas = 1
	}
	if partitions < 1 {
		partitions = 1
	}
	g := &grid{replicas: replicas, partitions: partitions}
	if replicas*partitions == 1 {
		// One process: no sibling can fail and cancel it, and a run of a
		// small program should not pay for a context of its own.
		g.ctx, g.cancel = ctx, func(error) {}
		return g
	}
	g.ctx, g.cancel = context.WithCancelCause(ctx)
	return g
}

// id returns the flattened (replica-major) process id.
func (g *grid) id(pr *process) int { return pr.replica*g.partitions + pr.partition }

// exchange implements Env.Collective: the n-th call of a process for
// (op name, key, group) meets the n-th call of every other member.
func (g *grid) exchange(pr *process, op *stablehlo.Op, key string, group []int, v Value) ([]Value, error) {
	me := g.id(pr)
	idx := -1
	for i, id := range group {
		if id < 0 || id >= g.replicas*g.partitions {
			return nil, fmt.Errorf("process id %d in group %v is outside the %dx%d grid", id, group, g.replicas, g.partitions)
		}
		if id == me {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("process %d is not a member of group %v", me, group)
	}
	if len(group) == 1 {
		return []Value{v}, nil
	}
	base := fmt.Sprintf("%s|%s|%v", op.Name, key, group)
	if pr.seq == nil {
		pr.seq = map[string]int{}
	}
	n := pr.seq[base]
	pr.seq[base] = n + 1
	name := fmt.Sprintf("%s|#%d", base, n)

	g.mu.Lock()
	if g.points == nil {
		g.points = map[string]*rendezvous{}
	}
	rv, ok := g.points[name]
	if !ok {
		rv = &rendezvous{vals: make([]Value, len(group)), arrived: make([]bool, len(group)), done: make(chan struct{})}
		g.points[name] = rv
	}
	if rv.arrived[idx] {
		g.mu.Unlock()
		return nil, fmt.Errorf("process %d appears twice in group %v", me, group)
	}
	rv.vals[idx], rv.arrived[idx] = v, true
	rv.n++
	if rv.n == len(group) {
		delete(g.points, name)
		close(rv.done)
	}
	g.mu.Unlock()

	select {
	case <-rv.done:
		return append([]Value(nil), rv.vals...), nil
	case <-pr.ctx.Done():
		return nil, fmt.Errorf("waiting for group %v: %w", group, context.Cause(pr.ctx))
	}
}

// channel returns the send/recv queue of a channel handle.
func (g *grid) channel(h int64) chan Value {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.chans == nil {
		g.chans = map[int64]chan Value{}
	}
	c, ok := g.chans[h]
	if !ok {
		c = make(chan Value, 1024)
		g.chans[h] = c
	}
	return c
}

func (g *grid) send(ctx context.Context, h int64, v Value) error {
	select {
	case g.channel(h) <- v:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("send on channel %d: %w", h, context.Cause(ctx))
	}
}

func (g *grid) recv(ctx context.Context, h int64) (Value, error) {
	select {
	case v := <-g.channel(h):
		return v, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("recv on channel %d: %w", h, context.Cause(ctx))
	}
}

func (g *grid) popInfeed() (Value, error) {
	g.infeedMu.Lock()
	defer g.infeedMu.Unlock()
	if len(g.infeed) == 0 {
		return nil, fmt.Errorf("infeed queue is empty")
	}
	v := g.infeed[0]
	g.infeed = g.infeed[1:]
	return v, nil
}

func (g *grid) pushOutfeed(vs []Value) {
	g.infeedMu.Lock()
	defer g.infeedMu.Unlock()
	g.outfeed = append(g.outfeed, vs...)
}

// runGrid runs fn(replica, partition) on every process of g concurrently,
// returning the first error (which also cancels the others).
func (p *program) runGrid(g *grid, fn func(pr *process) error) error {
	var wg sync.WaitGroup
	errs := make([]error, g.replicas*g.partitions)
	for r := 0; r < g.replicas; r++ {
		for q := 0; q < g.partitions; q++ {
			pr := &process{prog: p, ctx: g.ctx, grid: g, replica: r, partition: q}
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				defer func() {
					if rec := recover(); rec != nil {
						errs[i] = fmt.Errorf("process (replica %d, partition %d) panicked: %v", pr.replica, pr.partition, rec)
						g.cancel(errs[i])
					}
				}()
				if err := fn(pr); err != nil {
					if g.replicas*g.partitions > 1 {
						err = fmt.Errorf("process (replica %d, partition %d): %w", pr.replica, pr.partition, err)
					}
					errs[i] = err
					g.cancel(err)
				}
			}(g.id(pr))
		}
	}
	wg.Wait()
	// Report the root cause rather than a peer's "waiting" error.
	if cause := context.Cause(g.ctx); cause != nil {
		for _, e := range errs {
			if e == cause {
				return e
			}
		}
		if g.ctx.Err() != nil {
			for _, e := range errs {
				if e != nil {
					return e
				}
			}
			return cause
		}
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// valueTensor returns v as a tensor or an error naming what it is.
func valueTensor(v Value, what string) (*literal.Literal, error) {
	l, ok := v.(*literal.Literal)
	if !ok {
		return nil, fmt.Errorf("%s is %T, want a tensor", what, v)
	}
	return l, nil
}
