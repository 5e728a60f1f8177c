package runtime

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
	"github.com/torchtpu/torchtpu/sym"
)

// run is the state of one execution.
type run struct {
	ctx   context.Context
	p     *Program
	stats *Stats
	// env maps a value name to its current value: a literal (host), a
	// StableHLO value of the open segment, or a Python scalar.
	env map[string]aten.Value
	seg *segment

	// For the plan cache (cache.go): the run's inputs, the weights it
	// started from, the last executed segment and the weights it replaced.
	inputs         []*literal.Literal
	weightsAtStart map[string]*literal.Literal
	lastExe        *accountedExe
	lastParams     []*literal.Literal
	lastResults    []*literal.Literal
	writes         map[string]*literal.Literal
	bindings       map[string]int64 // size symbols bound from the inputs (for the contract check)
	// io holds the run's values on the device (device.go).
	io *deviceIO
	// final is set while the last segment runs (finish).
	final bool
}

// newRun starts a run on inputs; io links them (and later the segments'
// results) to their device buffers.
func newRun(ctx context.Context, p *Program, inputs []*literal.Literal, io *deviceIO) (*run, error) {
	r := &run{ctx: ctx, p: p, stats: &Stats{HostFallbacks: map[string]int{}}, env: map[string]aten.Value{},
		inputs: inputs, weightsAtStart: map[string]*literal.Literal{}, writes: map[string]*literal.Literal{}, io: io}
	io.weightOf = make(map[*literal.Literal]string, len(p.Weights))
	for k := range p.Weights {
		v := p.weightLiteral(io, k) // a shell when the device holds a newer value
		r.weightsAtStart[k] = v
		io.weightOf[v] = k
	}
	g := p.Graph
	bindings := map[string]int64{}
	r.bindings = bindings
	user := 0
	var symInputs []string // SymInt user inputs, bound once the tensors are
	for i, spec := range g.Signature.Inputs {
		var arg fx.Arg
		if i < len(g.Inputs) {
			arg = g.Inputs[i]
		} else {
			arg = spec.Arg
		}
		switch spec.Kind {
		case fx.InputUser:
			if arg.Kind == fx.ArgSymInt && len(arg.SymInts) == 1 && arg.SymInts[0].Name != "" {
				symInputs = append(symInputs, arg.SymInts[0].Name)
				continue
			}
			if arg.Kind != fx.ArgTensor {
				v, err := constArg(spec.Value)
				if err != nil {
					return nil, fmt.Errorf("user input %d: %w", user, err)
				}
				if arg.Name != "" {
					r.env[arg.Name] = v
				}
				continue
			}
			if user >= len(inputs) {
				return nil, fmt.Errorf("program takes at least %d user inputs, %d given", user+1, len(inputs))
			}
			in := inputs[user]
			user++
			if err := bindInput(g, arg.Name, in, bindings); err != nil {
				return nil, fmt.Errorf("user input %d (%s): %w", user-1, arg.Name, err)
			}
			r.env[arg.Name] = aten.LiteralValue(in)
		case fx.InputParameter, fx.InputBuffer, fx.InputTensorConstant:
			w, ok := r.weightsAtStart[spec.Target]
			if !ok {
				return nil, fmt.Errorf("%s %q is missing from the weights", spec.Kind, spec.Target)
			}
			r.env[arg.Name] = aten.LiteralValue(w)
		case fx.InputConstant:
			v, err := constArg(spec.Value)
			if err != nil {
				return nil, fmt.Errorf("constant input %s: %w", spec.Target, err)
			}
			r.env[arg.Name] = v
		case fx.InputToken:
			r.env[arg.Name] = aten.None()
		default:
			return nil, fmt.Errorf("input kind %s is not supported", spec.Kind)
		}
	}
	if user != len(inputs) {
		return nil, fmt.Errorf("program takes %d user inputs, %d given", user, len(inputs))
	}
	if err := r.bindSymInputs(symInputs); err != nil {
		return nil, err
	}
	for s, v := range bindings {
		if rg, ok := g.Ranges[s]; ok && !rg.Contains(v) {
			return nil, fmt.Errorf("symbolic dim %s = %d is outside the exported range %s", s, v, rg)
		}
	}
	// Check every user input against its full (possibly compound) shape.
	for _, spec := range g.Signature.Inputs {
		if spec.Kind != fx.InputUser || spec.Arg.Kind != fx.ArgTensor {
			continue
		}
		m := g.Tensor(spec.Arg.Name)
		v := r.env[spec.Arg.Name]
		if m == nil || v.Lit == nil {
			continue
		}
		want, err := m.EvalShape(bindings)
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", spec.Arg.Name, err)
		}
		if !slices.Equal(want, v.Lit.Shape) {
			return nil, fmt.Errorf("input %s has shape %v, the program expects %v (%s)", spec.Arg.Name, v.Lit.Shape, want, m)
		}
	}
	r.seg = r.newSegment()
	return r, nil
}

// bindInput checks an input's dtype and rank and binds the symbols that
// are a dim on their own.
func bindInput(g *fx.Graph, name string, in *literal.Literal, bindings map[string]int64) error {
	m := g.Tensor(name)
	if m == nil {
		return nil
	}
	if in.DType != m.DType {
		return fmt.Errorf("dtype %s, the program expects %s", in.DType.Torch(), m.DType.Torch())
	}
	if len(in.Shape) != m.Rank() {
		return fmt.Errorf("shape %v, the program expects rank %d (%s)", in.Shape, m.Rank(), m)
	}
	for i, d := range m.Shape {
		if d.IsStatic() {
			continue
		}
		if d.Expr.Op == sym.OpSymbol {
			s := d.Expr.Name
			if old, seen := bindings[s]; seen && old != in.Shape[i] {
				return fmt.Errorf("dim %d is %d but %s is already %d", i, in.Shape[i], s, old)
			}
			bindings[s] = in.Shape[i]
		}
	}
	return nil
}

// constArg converts a constant argument (constant inputs).
func constArg(a fx.Arg) (aten.Value, error) {
	switch a.Kind {
	case fx.ArgNone, fx.ArgInvalid:
		return aten.None(), nil
	case fx.ArgInt:
		return aten.IntValue(a.Int), nil
	case fx.ArgFloat:
		return aten.FloatValue(a.Float), nil
	case fx.ArgBool:
		return aten.BoolValue(a.Bool), nil
	case fx.ArgString:
		return aten.StrValue(a.Str), nil
	}
	return aten.None(), fmt.Errorf("constant of kind %s is not supported", a.Kind)
}

// node lowers (or runs on the host) node i.
func (r *run) node(i int, n *fx.Node) error {
	e, ok := aten.Lookup(n.Target)
	if !ok {
		return fmt.Errorf("op %s is not supported (no lowering registered)", n.Target)
	}
	var res []aten.Value
	if e.Kind == aten.HostFallback {
		if r.p.Fallback == "error" {
			return fmt.Errorf("%s has a data-dependent output shape and runs on the host, which --fallback=error forbids", e.Name)
		}
		var err error
		if res, err = r.onHost(i, e, n); err != nil {
			return err
		}
	} else {
		args, err := r.bind(e, n, false)
		if err != nil {
			return err
		}
		lc := r.seg.ctx
		// The location names the node (and its index), so that a backend error
		// on one of its ops points back to the graph.
		lc.Loc = stablehlo.Loc{File: n.Name, Line: i + 1, Col: 1}
		res, err = e.Call(lc, args)
		if err != nil && e.Host != nil && errors.Is(err, aten.ErrHostOnly) {
			// A lowered entry with a host kernel hands the calls it cannot
			// lower statically (boolean mask indexing) to the host.
			res, err = r.onHost(i, e, n)
		}
		if err != nil {
			return err
		}
	}
	if err := r.define(n, res); err != nil {
		return err
	}
	// Every lowering keeps the op's contract: each result has the dtype and
	// shape the graph records for it (check.go). A backward in eager
	// PyTorch, or the next graph, reads these values by that record.
	if err := r.checkMeta(n, res); err != nil {
		return err
	}
	// In-place and out= ops: the mutated arguments now hold the results.
	s := e.ParsedSchema()
	at := s.MutationResults()
	mi := 0
	for _, p := range s.Params {
		if !p.Mutable {
			continue
		}
		if a, ok := n.Input(p.Name); ok && a.Kind == fx.ArgTensor && at[mi] < len(res) {
			r.env[a.Name] = res[at[mi]]
			if err := r.writeBack(a.Name, res[at[mi]]); err != nil { // viewwrite.go
				return err
			}
		}
		mi++
	}
	return nil
}

// onHost runs node i on the host through the entry's host kernel, after
// the open segment.
func (r *run) onHost(i int, e *aten.Entry, n *fx.Node) ([]aten.Value, error) {
	if err := r.flush(i); err != nil {
		return nil, err
	}
	args, err := r.bind(e, n, true) // reads the values it needs back from the device

	if err != nil {
		return nil, err
	}
	return r.host(n, e, args) // fallback policy and counters (policy_hooks.go)
}

func valueBytes(v aten.Value) int64 {
	if v.Lit != nil {
		return int64(len(v.Lit.Data))
	}
	var n int64
	for _, e := range v.List {
		n += valueBytes(e)
	}
	return n
}

// define binds the node's outputs to the results.
func (r *run) define(n *fx.Node, res []aten.Value) error {
	for i, o := range n.Outputs {
		if o.Kind == fx.ArgNone || o.Kind == fx.ArgInvalid {
			continue
		}
		if i >= len(res) {
			return fmt.Errorf("op returned %d values, the graph expects %d", len(res), len(n.Outputs))
		}
		v := res[i]
		switch o.Kind {
		case fx.ArgTensor:
			r.env[o.Name] = v
		case fx.ArgTensors, fx.ArgOptionalTensors:
			if v.Kind != aten.KList || len(v.List) != len(o.Names) {
				return fmt.Errorf("output %d: op returned %v, the graph expects %d tensors", i, v, len(o.Names))
			}
			for j, name := range o.Names {
				if name != "" {
					r.env[name] = v.List[j]
				}
			}
		case fx.ArgSymInt, fx.ArgSymBool, fx.ArgSymFloat:
			name := symName(o)
			if name != "" {
				r.env[name] = v
			}
		default:
			return fmt.Errorf("output %d of kind %s is not supported", i, o.Kind)
		}
	}
	return nil
}

func symName(a fx.Arg) string {
	switch {
	case len(a.SymInts) > 0:
		return a.SymInts[0].Name
	case len(a.SymBools) > 0:
		return a.SymBools[0].Name
	case len(a.SymFloats) > 0:
		return a.SymFloats[0].Name
	}
	return a.Name
}

// dtypeOf returns the dtype of a value.
func dtypeOf(v aten.Value) dtype.DType {
	if v.Lit != nil {
		return v.Lit.DType
	}
	if t := v.TensorType(); t != nil {
		return t.DType()
	}
	return dtype.Invalid
}
