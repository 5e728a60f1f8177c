package native

import (
	"context"
	"fmt"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native/internal/pool"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// Version identifies the native executor in cache keys.
const Version = "native-interp-1"

func init() {
	backend.Register("cpu", func() (backend.Backend, error) { return &Backend{}, nil })
}

// Backend is the embedded CPU backend ("cpu").
type Backend struct{}

// Name implements backend.Backend.
func (*Backend) Name() string { return "cpu" }

// Version implements backend.Backend.
func (*Backend) Version() string { return Version }

// Compile verifies the module, checks that the entry function and every
// function it refers to can be executed (each op has a kernel, values are
// defined before use) and returns an Executable.
func (*Backend) Compile(ctx context.Context, m *stablehlo.Module, opts backend.Options) (backend.Executable, error) {
	if m == nil {
		return nil, fmt.Errorf("native: compile: nil module")
	}
	if err := stablehlo.Verify(m); err != nil {
		return nil, fmt.Errorf("native: compile: %w", err)
	}
	dumpModule(m)
	p, err := newProgram(m)
	if err != nil {
		return nil, err
	}
	f, err := entryFunc(m, opts.Entry)
	if err != nil {
		return nil, err
	}
	if err := p.planReachable(f); err != nil {
		return nil, fmt.Errorf("native: compile @%s: %w", f.Name, err)
	}
	dumpPlans(p)
	replicas, partitions := opts.Replicas, opts.Partitions
	if replicas == 0 {
		replicas = moduleInt(m, "mhlo.num_replicas")
	}
	if partitions == 0 {
		partitions = moduleInt(m, "mhlo.num_partitions")
	}
	if replicas > 1024 || partitions > 1024 || replicas*partitions > 4096 {
		return nil, fmt.Errorf("native: compile: %d replicas x %d partitions is more than the native backend runs", replicas, partitions)
	}
	return &Executable{prog: p, entry: f, replicas: max(replicas, 1), partitions: max(partitions, 1)}, nil
}

// moduleInt reads an integer attribute of the module (0 when absent).
func moduleInt(m *stablehlo.Module, name string) int {
	for _, a := range m.Attrs {
		if a.Name == name {
			if i, ok := a.Value.(*stablehlo.IntAttr); ok && i.Value > 0 && i.Value < 1<<20 {
				return int(i.Value)
			}
		}
	}
	return 0
}

// entryFunc finds the entry function: name, or "main", or the module's
// only function.
func entryFunc(m *stablehlo.Module, name string) (*stablehlo.Func, error) {
	if name == "" {
		name = "main"
	}
	if f := m.Func(name); f != nil {
		return f, nil
	}
	if name == "main" && len(m.Funcs) == 1 {
		return m.Funcs[0], nil
	}
	return nil, fmt.Errorf("native: module has no function @%s", name)
}

// planReachable plans f and every function named by a symbol reference in
// it (func.call callees, composite decompositions, run_parallel programs).
func (p *program) planReachable(f *stablehlo.Func) error {
	seen := map[*stablehlo.Func]bool{}
	work := []*stablehlo.Func{f}
	for len(work) > 0 {
		f := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[f] {
			continue
		}
		seen[f] = true
		if _, err := p.plan(f); err != nil {
			return err
		}
		err := f.Body.Walk(func(op *stablehlo.Op) error {
			for _, a := range op.Attrs {
				for _, s := range symbolRefs(a.Value) {
					if g, ok := p.funcs[s]; ok && !seen[g] {
						work = append(work, g)
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func symbolRefs(a stablehlo.Attr) []string {
	switch a := a.(type) {
	case stablehlo.SymbolRefAttr:
		return []string{string(a)}
	case stablehlo.ArrayAttr:
		var out []string
		for _, e := range a {
			out = append(out, symbolRefs(e)...)
		}
		return out
	}
	return nil
}

// Executable is a compiled module of the native backend.
type Executable struct {
	prog                 *program
	entry                *stablehlo.Func
	replicas, partitions int
}

// Run executes the entry function. The grid comes from Options or else
// from the module's mhlo.num_replicas / mhlo.num_partitions. With several
// replicas or partitions,
// every process runs the entry function on the same arguments and the
// results of process 0 are returned.
func (e *Executable) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	in := make([]Value, len(args))
	for i, a := range args {
		if a == nil {
			return nil, fmt.Errorf("native: argument #%d of @%s is nil", i, e.entry.Name)
		}
		in[i] = a
	}
	if err := checkArgs(e.entry, in); err != nil {
		return nil, err
	}
	res, err := e.prog.runEntry(ctx, e.entry.Name, in, e.replicas, e.partitions)
	if err != nil {
		return nil, err
	}
	out := make([]*literal.Literal, len(res))
	for i, v := range res {
		l, ok := v.(*literal.Literal)
		if !ok {
			return nil, fmt.Errorf("native: result #%d of @%s is %T, not a tensor", i, e.entry.Name, v)
		}
		out[i] = l
	}
	return out, nil
}

// runEntry runs name on a fresh replicas × partitions grid and returns the
// results of process 0.
func (p *program) runEntry(ctx context.Context, name string, args []Value, replicas, partitions int) ([]Value, error) {
	g := newGrid(ctx, replicas, partitions)
	defer g.cancel(nil)
	var ar *arena
	if p.recycle && replicas*partitions == 1 {
		ar = p.arenas.get()
		defer p.arenas.put(ar)
		ar.dests = backend.ResultBuffers(ctx)
	}
	var res []Value
	if replicas*partitions == 1 {
		// One process: run it on the caller's goroutine. Starting a
		// goroutine and waiting for it wakes another thread per run, which
		// costs more than a small program's whole execution.
		pr := &process{prog: p, ctx: g.ctx, grid: g, arena: ar, prof: profileOf(ctx)}
		if pr.prof != nil {
			pr.prof.ran()
			pool.Account(true) // the helpers' busy time, for the profile
			defer pool.Account(false)
		}
		res, err := pr.callSingle(name, args)
		if err == nil && ar != nil {
			ar.keepResults(res)
		}
		return res, err
	}
	err := p.runGrid(g, func(pr *process) error {
		pr.arena = ar
		r, err := pr.callFunc(name, args)
		if pr.replica == 0 && pr.partition == 0 {
			res = r
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkArgs compares arguments with the function's parameter types.
func checkArgs(f *stablehlo.Func, args []Value) error {
	if f.Type == nil {
		return nil
	}
	if len(args) != len(f.Type.Inputs) {
		return fmt.Errorf("native: @%s takes %d arguments, got %d", f.Name, len(f.Type.Inputs), len(args))
	}
	for i, t := range f.Type.Inputs {
		tt := stablehlo.AsTensor(t)
		if tt == nil {
			continue
		}
		l, ok := args[i].(*literal.Literal)
		if !ok {
			return fmt.Errorf("native: argument #%d of @%s is %T, want %v", i, f.Name, args[i], tt)
		}
		if l.DType != tt.Elem.DType || len(l.Shape) != len(tt.Shape) {
			return fmt.Errorf("native: argument #%d of @%s is %v, want %v", i, f.Name, l, tt)
		}
		for d, n := range tt.Shape {
			if n != stablehlo.Dynamic && n != l.Shape[d] {
				return fmt.Errorf("native: argument #%d of @%s is %v, want %v", i, f.Name, l, tt)
			}
		}
	}
	return nil
}

// callSingle runs the entry function of a one-process grid, turning a
// kernel's panic into an error as runGrid does.
func (pr *process) callSingle(name string, args []Value) (res []Value, err error) {
	defer func() {
		if rec := recover(); rec != nil {
			res, err = nil, fmt.Errorf("process (replica %d, partition %d) panicked: %v", pr.replica, pr.partition, rec)
		}
	}()
	return pr.callFunc(name, args)
}
