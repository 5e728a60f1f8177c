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
	shapeArgs []int
	// compile legalizes a static module for the plugin and compiles it.
	compile func(ctx context.Context, s *legalize.State) (backend.Executable, error)

	mu       sync.Mutex
	cache    map[string]*list.Element // of polyEntry
	order    *list.List               // most recent first
	compiles int
}

type polyEntry struct {
	key string
	exe backend.Executable
}

var _ backend.AsyncExecutable = (*polyExecutable)(nil)

// newPoly prepares m for specialisation: calls are inlined (a function
// called at two shapes becomes two copies) and the shape arguments found.
func newPoly(ctx context.Context, name string, m *stablehlo.Module,
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
	return &polyExecutable{name: name, text: sb.String(), nargs: len(m.Func("main").Type.Inputs), shapeArgs: shapeArgs,
		compile: compile, cache: map[string]*list.Element{}, order: list.New()}, nil
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

// specialise returns the executable for the call's signature, compiling
// it on first use.
func (p *polyExecutable) specialise(ctx context.Context, args []*literal.Literal) (backend.Executable, error) {
	key, err := p.signature(args)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	if e, ok := p.cache[key]; ok {
		p.order.MoveToFront(e)
		p.mu.Unlock()
		return e.Value.(*polyEntry).exe, nil
	}
	p.mu.Unlock()
	mods, err := stablehlo.Parse(p.name, []byte(p.text))
	if err != nil || len(mods) != 1 {
		return nil, fmt.Errorf("pjrt %s: reparse the polymorphic program: %v", p.name, err)
	}
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
	exe, err := p.compile(ctx, &legalize.State{Ctx: ctx, Module: mods[0], Args: la})
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.compiles++
	if e, ok := p.cache[key]; ok { // compiled meanwhile by another call
		return e.Value.(*polyEntry).exe, nil
	}
	p.cache[key] = p.order.PushFront(&polyEntry{key: key, exe: exe})
	for p.order.Len() > maxSpecializations {
		last := p.order.Back()
		p.order.Remove(last)
		delete(p.cache, last.Value.(*polyEntry).key)
	}
	return exe, nil
}

// Run specialises the program to the call and runs it.
func (p *polyExecutable) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	exe, err := p.specialise(ctx, args)
	if err != nil {
		return nil, err
	}
	return exe.Run(ctx, args)
}

// RunAsync specialises the program (compiling synchronously when the
// signature is new) and starts the run.
func (p *polyExecutable) RunAsync(ctx context.Context, args []*literal.Literal) (backend.Pending, error) {
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
