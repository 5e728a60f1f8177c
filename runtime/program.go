// Package runtime runs an exported program: it binds the symbolic dims to
// the concrete inputs, lowers the graph node by node through the aten
// registry into StableHLO segments, compiles each on a backend and runs it.
//
// A program is one segment unless it holds a host fallback (an op whose
// output shape depends on data, e.g. nonzero): then the graph is cut there,
// the segment before it runs, the host op runs on literals, and lowering
// continues with the now-known sizes in a new segment.
package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
)

// Program is a graph with its weights, ready to run on one backend.
type Program struct {
	Graph *fx.Graph
	// Weights holds parameters, buffers and tensor constants by FQN
	// (InputSpec.Target). Buffer mutations update it after each run.
	Weights map[string]*literal.Literal
	// Constants holds non-tensor constant inputs by name (optional).
	Backend backend.Backend

	lastUse map[string]int // value name → index of the last node using it (len(Nodes) for graph outputs)
	cache   planCache
	// NoCache disables the per-signature plan cache (every run lowers and
	// compiles again).
	NoCache bool
	// Check verifies every lowered segment, and that its printed MLIR text
	// parses back to a module that verifies too (the form PJRT devices
	// receive). For tests and debugging.
	Check bool
	// Fallback is the host-fallback policy: "cpu" (the default, "" too)
	// runs data-dependent ops on the host; "error" refuses them.
	Fallback string
	rt       *rtState  // runtime options, metrics, trace (policy.go)
	res      residency // weights on the device (resident.go)
}

// Stats counts what a run did.
type Stats struct {
	Segments      int            // compiled segments run
	HostFallbacks map[string]int // host-run ops by name
	HostBytes     int64          // bytes moved to and from the host for fallbacks
	// Uploaded and Downloaded count the bytes the run copied host → device
	// and device → host (0 on the native backend, whose buffers are host
	// memory): inputs, weights not yet resident, host fallback values,
	// outputs.
	Uploaded, Downloaded int64
}

// New prepares a program for the backend registered under device ("" means
// "cpu").
func New(g *fx.Graph, weights map[string]*literal.Literal, device string) (*Program, error) {
	if g == nil || g.Signature == nil {
		return nil, fmt.Errorf("runtime: graph without a signature")
	}
	if device == "" {
		device = "cpu"
	}
	b, err := backend.Open(device)
	if err != nil {
		return nil, err
	}
	if weights == nil {
		weights = map[string]*literal.Literal{}
	}
	p := &Program{Graph: g, Weights: weights, Backend: b}
	p.lastUse = map[string]int{}
	for i, n := range g.Nodes {
		for _, in := range n.Inputs {
			for _, name := range in.Arg.ValueNames() {
				p.lastUse[name] = i
			}
		}
	}
	for _, o := range g.Outputs {
		for _, name := range o.ValueNames() {
			p.lastUse[name] = len(g.Nodes)
		}
	}
	// Buffers and parameters stay live to the end: an in-place op on one
	// (a non-functional export) gives it a new value to keep.
	for i, s := range g.Signature.Inputs {
		if (s.Kind == fx.InputBuffer || s.Kind == fx.InputParameter) && i < len(g.Inputs) {
			p.lastUse[g.Inputs[i].Name] = len(g.Nodes)
		}
	}
	return p, nil
}

// UserInputs returns the input specs of the user inputs, in order.
func (p *Program) UserInputs() []fx.InputSpec { return p.Graph.UserInputs() }

// runExactSig executes the program on the user inputs (in the order of the
// user input specs), at their exact shapes, and returns the user outputs;
// key is the inputs' signature.
// Run (dynamic.go) checks, buckets and accounts around it.
//
// A panic inside a lowering or a host kernel is a bug, but it must not take
// the caller down: it is returned as an error naming the node.
func (p *Program) runExactSig(ctx context.Context, key string, inputs []*literal.Literal, io *deviceIO) ([]*literal.Literal, *Stats, error) {
	if !p.NoCache {
		if pl := p.cache.get(key); pl != nil {
			return p.runPlan(ctx, pl, inputs, io)
		}
	}
	r, err := newRun(ctx, p, inputs, io)
	if err != nil {
		return nil, nil, err
	}
	return p.lowerAndRun(ctx, r, key, r.node)
}

// lowerAndRun lowers every node with lower (and runs the segments), collects
// the outputs and caches the run's plan under key. A panic becomes an
// error naming the node.
func (p *Program) lowerAndRun(ctx context.Context, r *run, key string, lower func(i int, n *fx.Node) error) (outs []*literal.Literal, stats *Stats, err error) {
	var cur *fx.Node
	defer func() {
		if e := recover(); e != nil {
			outs, stats = nil, r.stats
			if cur != nil {
				err = nodeError(cur, fmt.Errorf("internal error: %v", e))
			} else {
				err = fmt.Errorf("runtime: internal error: %v", e)
			}
		}
	}()
	for i, n := range p.Graph.Nodes {
		if err := ctx.Err(); err != nil {
			return nil, r.stats, err
		}
		cur = n
		if err := lower(i, n); err != nil {
			return nil, r.stats, nodeError(n, err)
		}
	}
	cur = nil
	if outs, err = r.finish(); err != nil {
		return nil, r.stats, err
	}
	if pl := r.record(outs, r.writes); pl != nil && !p.NoCache {
		p.cache.put(key, pl)
	}
	return outs, r.stats, nil
}

// nodeError names the node, its op and the Python source line.
func nodeError(n *fx.Node, err error) error {
	where := ""
	if line := n.SourceLine(); line != "" {
		where = " at " + strings.TrimSpace(line)
	}
	return fmt.Errorf("node %s (%s)%s: %w", n.Name, n.Target, where, err)
}
