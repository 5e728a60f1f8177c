package pjrt

import (
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/pjrt/legalize"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// maxSpecializations bounds the executables one polymorphic program keeps
// (least recently used first out).
const maxSpecializations = 32

// polyExecutable runs a shape-polymorphic module (? dims): no plugin
// compiles one, so each call is specialised to its shapes (and to the
// values of the arguments the shapes depend on) by the legalize
// pipeline, compiled once per such signature and cached.
type polyExecutable struct {
	name string
	// text is the module after inlining, printed: each specialisation
	// parses a fresh copy (refinement rewrites it in place).
	text      string
	nargs     int
	argTypes  []stablehlo.Type // @main's declared argument types
	shapeArgs []int
	// compile legalizes a static module for the plugin and compiles it.
	compile func(ctx context.Context, s *legalize.State) (backend.Executable, error)
	// bucket maps the size of a call's ? dims to the size it runs at.
	bucket func(int64) int64

	mu       sync.Mutex
	cache    map[string]*list.Element // of polyEntry
	order    *list.List               // most recent first
	compiles int
	// outShapes caches the exact result shapes of a call's signature
	// (refinement without a compile), for slicing bucketed results.
	outShapes map[string][][]int64
}

type polyEntry struct {
	key string
	exe backend.Executable
	// A bucketed entry: outs says, per result, the padded dims (dim → c:
	// B+c long, sliced to n+c); refused says why the bucket cannot be
	// used (the call then runs at its exact shapes).
	bucketed bool
	outs     []map[int]int64
	refused  error
}

var _ backend.AsyncExecutable = (*polyExecutable)(nil)

// newPoly prepares m for specialisation: calls are inlined (a function
// called at two shapes becomes two copies) and the shape arguments found.
func newPoly(ctx context.Context, name string, m *stablehlo.Module, bucket func(int64) int64,
	compile func(context.Context, *legalize.State) (backend.Executable, error)) (*polyExecutable, error) {
	m, err := legalize.Clone(m)
	if err != nil {
		return nil, err
	}
	s := &legalize.State{Ctx: ctx, Module: m}
	if err := legalize.Run(s, legalize.Options{Only: []string{"inline"}}); err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", name, err)
	}
	shapeArgs, err := legalize.ShapeArgs(m)
	if err != nil {
		return nil, fmt.Errorf("pjrt %s: %w", name, err)
	}
	var sb strings.Builder
	if err := stablehlo.Print(&sb, m); err != nil {
		return nil, fmt.Errorf("pjrt %s: print module: %w", name, err)
	}
	main := m.Func("main")
	return &polyExecutable{name: name, text: sb.String(), nargs: len(main.Type.Inputs), argTypes: append([]stablehlo.Type(nil), main.Type.Inputs...), shapeArgs: shapeArgs,
		compile: compile, bucket: bucket, cache: map[string]*list.Element{}, order: list.New(), outShapes: map[string][][]int64{}}, nil
}

// signature is the cache key of a call: every argument's type, and the
// values of the shape arguments.
func (p *polyExecutable) signature(args []*literal.Literal) (string, error) {
	if len(args) != p.nargs {
		return "", fmt.Errorf("pjrt %s: the program takes %d arguments, got %d", p.name, p.nargs, len(args))
	}
	var sb strings.Builder
	for i, a := range args {
		if a == nil {
			return "", fmt.Errorf("pjrt %s: argument %d is nil", p.name, i)
		}
		fmt.Fprintf(&sb, "%v%v;", a.DType, a.Shape)
	}
	for _, i := range p.shapeArgs {
		sb.WriteString("=")
		for j := 0; j < args[i].Len(); j++ {
			fmt.Fprintf(&sb, "%d,", args[i].Int64(j))
		}
	}
	return sb.String(), nil
}

// lookup returns the cached entry of key.
func (p *polyExecutable) lookup(key string) *polyEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.cache[key]; ok {
		p.order.MoveToFront(e)
		return e.Value.(*polyEntry)
	}
	return nil
}

// store caches an entry (keeping the first one stored under a key).
func (p *polyExecutable) store(ent *polyEntry) *polyEntry {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ent.exe != nil {
		p.compiles++
	}
	if e, ok := p.cache[ent.key]; ok {
		return e.Value.(*polyEntry)
	}
	p.cache[ent.key] = p.order.PushFront(ent)
	for p.order.Len() > maxSpecializations {
		last := p.order.Back()
		p.order.Remove(last)
		delete(p.cache, last.Value.(*polyEntry).key)
	}
	return ent
}

// parse returns a fresh copy of the (inlined) program.
func (p *polyExecutable) parse() (*stablehlo.Module, error) {
	mods, err := stablehlo.Parse(p.name, []byte(p.text))
	if err != nil || len(mods) != 1 {
		return nil, fmt.Errorf("pjrt %s: reparse the polymorphic program: %v", p.name, err)
	}
	return mods[0], nil
}

// argsFor describes a call for the legalize pipeline.
func (p *polyExecutable) argsFor(args []*literal.Literal) []legalize.Arg {
	isShape := map[int]bool{}
	for _, i := range p.shapeArgs {
		isShape[i] = true
	}
	la := make([]legalize.Arg, len(args))
	for i, a := range args {
		la[i].Type = stablehlo.Tensor(a.DType, a.Shape...)
		if isShape[i] {
			la[i].Value = a
		}
	}
	return la
}

// specialise returns the executable for the call's signature, compiling
// it on first use.
func (p *polyExecutable) specialise(ctx context.Context, args []*literal.Literal) (backend.Executable, error) {
	key, err := p.signature(args)
	if err != nil {
		return nil, err
	}
	if e := p.lookup(key); e != nil {
		return e.exe, nil
	}
	m, err := p.parse()
	if err != nil {
		return nil, err
	}
	exe, err := p.compile(ctx, &legalize.State{Ctx: ctx, Module: m, Args: p.argsFor(args)})
	if err != nil {
		return nil, err
	}
	return p.store(&polyEntry{key: key, exe: exe}).exe, nil
}

// Run specialises the program to the call and runs it: at a bucket when
// the policy gives one and the program allows it, else at its shapes.
func (p *polyExecutable) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	if outs, ok, err := p.runBucketed(ctx, args); ok || err != nil {
		return outs, err
	}
	exe, err := p.specialise(ctx, args)
	if err != nil {
		return nil, err
	}
	return exe.Run(ctx, args)
}

// RunAsync specialises the program (compiling synchronously when the
// signature is new) and starts the run; a bucketed run is synchronous.
func (p *polyExecutable) RunAsync(ctx context.Context, args []*literal.Literal) (backend.Pending, error) {
	if outs, ok, err := p.runBucketed(ctx, args); ok || err != nil {
		if err != nil {
			return nil, err
		}
		return backend.Done(outs), nil
	}
	exe, err := p.specialise(ctx, args)
	if err != nil {
		return nil, err
	}
	return backend.Start(ctx, exe, args)
}

// Specializations reports how many signatures were compiled.
func (p *polyExecutable) Specializations() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.compiles
}
