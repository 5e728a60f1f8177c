// Package backend holds the small interfaces every device implements and
// the registry of backends by device name ("cpu", "cuda", "tpu", ...).
package backend

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// ErrNotImplemented is returned (wrapped) by a backend for an op or
// element type it cannot handle.
var ErrNotImplemented = errors.New("not implemented")

// Options configure a compilation.
type Options struct {
	Replicas   int // 0 means 1
	Partitions int // 0 means 1
	// Entry is the function to compile; "" means "main".
	Entry string
	// Buckets, for a shape-polymorphic program (? dims) on a backend that
	// specialises it per call (PJRT), maps the size of a call's ? dims to
	// the size it runs at: its inputs padded, its outputs sliced back,
	// where the program allows it. nil is the backend's default (powers
	// of two on PJRT devices); a function returning its argument asks for
	// exact shapes.
	Buckets func(n int64) int64
}

// Backend compiles StableHLO modules for one device kind.
type Backend interface {
	// Name is the device name, e.g. "cpu".
	Name() string
	// Version identifies the compiler, for cache keys.
	Version() string
	// Compile prepares m's entry function for execution.
	Compile(ctx context.Context, m *stablehlo.Module, opts Options) (Executable, error)
}

// Executable is a compiled program.
type Executable interface {
	// Run executes the program on host inputs and returns host outputs.
	Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error)
}

// Pending is a run in flight, started by AsyncExecutable.RunAsync.
type Pending interface {
	// Wait returns the run's outputs once it is done, or ctx's error when
	// ctx ends first (the run goes on and cleans up after itself).
	Wait(ctx context.Context) ([]*literal.Literal, error)
	// Done is closed when the run is over.
	Done() <-chan struct{}
}

// AsyncExecutable is an Executable that can enqueue a run and return
// before it is done (a device with its own queue). It is optional: Start
// runs any Executable this way.
type AsyncExecutable interface {
	Executable
	// RunAsync starts a run on host inputs. The caller must not modify
	// args until the run is done; a ctx that ends before the run is
	// enqueued stops it.
	RunAsync(ctx context.Context, args []*literal.Literal) (Pending, error)
}

// Start runs exe on args through RunAsync when exe is an
// AsyncExecutable; otherwise it runs it to completion and returns an
// already finished Pending.
func Start(ctx context.Context, exe Executable, args []*literal.Literal) (Pending, error) {
	if a, ok := exe.(AsyncExecutable); ok {
		return a.RunAsync(ctx, args)
	}
	outs, err := exe.Run(ctx, args)
	if err != nil {
		return nil, err
	}
	return Done(outs), nil
}

// Done returns a finished Pending holding outs.
func Done(outs []*literal.Literal) Pending { return donePending(outs) }

type donePending []*literal.Literal

var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (d donePending) Wait(ctx context.Context) ([]*literal.Literal, error) { return d, nil }
func (d donePending) Done() <-chan struct{}                                { return closed }

// Factory opens a backend; it may fail (no plugin, no device).
type Factory func() (Backend, error)

// IndexedFactory opens device number ordinal of a kind ("tpu:1").
type IndexedFactory func(ordinal int) (Backend, error)

var (
	mu        sync.Mutex
	factories = map[string]Factory{}
	indexed   = map[string]IndexedFactory{}
)

// RegisterIndexed adds a device kind whose devices are addressed as
// "kind" (device 0) and "kind:N". It panics on a duplicate name.
func RegisterIndexed(kind string, f IndexedFactory) {
	Register(kind, func() (Backend, error) { return f(0) })
	mu.Lock()
	defer mu.Unlock()
	indexed[kind] = f
}

// Register adds a backend factory under a device name. It panics on a
// duplicate name (a programming error at start-up).
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("backend: duplicate registration of " + name)
	}
	factories[name] = f
}

// Open returns the backend registered under name.
func Open(name string) (Backend, error) {
	mu.Lock()
	f, ok := factories[name]
	if !ok {
		if kind, n, found := strings.Cut(name, ":"); found {
			if inf, ok2 := indexed[kind]; ok2 {
				if ord, err := strconv.Atoi(n); err == nil && ord >= 0 {
					f, ok = func() (Backend, error) { return inf(ord) }, true
				}
			}
		}
	}
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no backend for device %q (known: %v)", name, Names())
	}
	b, err := f()
	if err != nil {
		return nil, fmt.Errorf("open device %q: %w", name, err)
	}
	return b, nil
}

// Names lists the registered device names, sorted.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	out := make([]string, 0, len(factories))
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
