package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// segment is the StableHLO function being built: host literals the graph
// reads become its arguments on first use.
type segment struct {
	block  *stablehlo.Block
	ctx    *aten.LowerCtx
	params []*literal.Literal
}

func (r *run) newSegment() *segment {
	b := &stablehlo.Block{}
	c := aten.NewLowerCtx(b)
	// TPUs have no float64: float32 work stays in float32 there.
	c.NoF64 = strings.HasPrefix(r.p.Backend.Name(), "tpu")
	seg := &segment{block: b, ctx: c}
	c.RNG = func() *stablehlo.Value { return seg.param(nextRNGState()) }
	return seg
}

// param returns the segment argument holding lit, adding it on first use.
func (s *segment) param(lit *literal.Literal) *stablehlo.Value {
	for i, p := range s.params {
		if p == lit {
			return s.block.Args[i]
		}
	}
	v := &stablehlo.Value{Type: stablehlo.Tensor(lit.DType, lit.Shape...), Index: len(s.block.Args)}
	s.block.Args = append(s.block.Args, v)
	s.params = append(s.params, lit)
	return v
}

// bind converts a node's fx arguments into aten values for the entry's
// schema. On the host (host=true) tensors are literals; otherwise they are
// values of the open segment.
func (r *run) bind(e *aten.Entry, n *fx.Node, host bool) (*aten.Args, error) {
	kw := map[string]aten.Value{}
	var pos []aten.Value
	// Python-level targets (_operator.mul, torch.sym_max, math.ceil) bind
	// by position: their argument names are not part of any schema.
	python := !strings.Contains(e.Name, "::")
	for _, in := range n.Inputs {
		v, err := r.arg(in.Arg, host)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", in.Name, err)
		}
		if in.Name == "" || python {
			pos = append(pos, v)
		} else {
			kw[in.Name] = v
		}
	}
	return aten.Bind(e.ParsedSchema(), pos, kw)
}

// arg converts one fx argument.
func (r *run) arg(a fx.Arg, host bool) (aten.Value, error) {
	switch a.Kind {
	case fx.ArgNone:
		return aten.None(), nil
	case fx.ArgTensor, fx.ArgOptionalTensor:
		if a.Name == "" {
			return aten.None(), nil
		}
		return r.tensor(a.Name, host)
	case fx.ArgTensors, fx.ArgOptionalTensors:
		items := make([]aten.Value, len(a.Names))
		for i, name := range a.Names {
			if name == "" {
				continue
			}
			v, err := r.tensor(name, host)
			if err != nil {
				return aten.None(), err
			}
			items[i] = v
		}
		return aten.ListValue(items...), nil
	case fx.ArgInt:
		return aten.IntValue(a.Int), nil
	case fx.ArgInts:
		return aten.IntsValue(a.Ints), nil
	case fx.ArgFloat:
		return aten.FloatValue(a.Float), nil
	case fx.ArgFloats:
		return listOf(a.Floats, aten.FloatValue), nil
	case fx.ArgBool:
		return aten.BoolValue(a.Bool), nil
	case fx.ArgBools:
		return listOf(a.Bools, aten.BoolValue), nil
	case fx.ArgString:
		return aten.StrValue(a.Str), nil
	case fx.ArgStrings:
		return listOf(a.Strs, aten.StrValue), nil
	case fx.ArgSymInt:
		return r.symInt(a.SymInts[0])
	case fx.ArgSymInts:
		items := make([]aten.Value, len(a.SymInts))
		for i, s := range a.SymInts {
			v, err := r.symInt(s)
			if err != nil {
				return aten.None(), err
			}
			items[i] = v
		}
		return aten.ListValue(items...), nil
	case fx.ArgSymBool:
		s := a.SymBools[0]
		if s.Name == "" {
			return aten.BoolValue(s.Const), nil
		}
		return r.named(s.Name)
	case fx.ArgSymFloat:
		s := a.SymFloats[0]
		if s.Name == "" {
			return aten.FloatValue(s.Const), nil
		}
		return r.named(s.Name)
	case fx.ArgComplex:
		return aten.ComplexValue(a.Complex), nil
	case fx.ArgScalarType:
		return aten.DTypeValue(a.DType), nil
	case fx.ArgMemoryFormat:
		return aten.StrValue(memoryFormatName(a.MemoryFormat)), nil
	case fx.ArgLayout:
		return aten.StrValue("strided"), nil
	case fx.ArgDevice:
		return aten.StrValue(a.Device.String()), nil
	}
	return aten.None(), fmt.Errorf("arguments of kind %s are not supported", a.Kind)
}

// listOf makes a list value of xs, converting each with value.
func listOf[T any](xs []T, value func(T) aten.Value) aten.Value {
	items := make([]aten.Value, len(xs))
	for i, x := range xs {
		items[i] = value(x)
	}
	return aten.ListValue(items...)
}

func memoryFormatName(m fx.MemoryFormat) string {
	switch m {
	case fx.ChannelsLast:
		return "channels_last"
	case fx.ChannelsLast3d:
		return "channels_last_3d"
	case fx.PreserveFormat:
		return "preserve_format"
	}
	return "contiguous_format"
}

func (r *run) symInt(s fx.SymInt) (aten.Value, error) {
	if s.Name == "" {
		return aten.IntValue(s.Const), nil
	}
	return r.named(s.Name)
}

func (r *run) named(name string) (aten.Value, error) {
	v, ok := r.env[name]
	if !ok {
		return aten.None(), fmt.Errorf("value %s is not defined", name)
	}
	return v, nil
}

// tensor returns a tensor value: in the open segment (a literal becomes a
// segment argument) or, on the host, as a literal.
func (r *run) tensor(name string, host bool) (aten.Value, error) {
	v, err := r.named(name)
	if err != nil {
		return v, err
	}
	if v.Kind != aten.KTensor {
		return v, nil // a Python scalar in a tensor slot
	}
	if host {
		if v.Lit == nil {
			return v, fmt.Errorf("value %s is not on the host", name)
		}
		if err := r.io.host(v.Lit); err != nil {
			return v, fmt.Errorf("value %s: %w", name, err)
		}
		return v, nil
	}
	if v.T != nil {
		return v, nil
	}
	return aten.TensorValue(r.seg.param(v.Lit)), nil
}

// flush compiles and runs the open segment, turning every segment value
// still needed after node i into a host literal, then opens a new one.
func (r *run) flush(next int) error {
	seg := r.seg
	var names []string
	for name, v := range r.env {
		if v.Kind == aten.KTensor && v.T != nil {
			if r.p.lastUse[name] >= next {
				names = append(names, name)
			} else {
				delete(r.env, name)
			}
		}
	}
	r.seg = r.newSegment()
	if len(names) == 0 {
		return nil
	}
	// The results in name order, not map order: the module text, and so
	// its compile cache key, must not change from run to run.
	slices.Sort(names)
	outs := make([]*stablehlo.Value, len(names))
	for i, name := range names {
		outs[i] = r.env[name].T
	}
	lits, err := r.execute(seg, outs)
	if err != nil {
		return err
	}
	for i, name := range names {
		r.env[name] = aten.LiteralValue(lits[i])
	}
	return nil
}

// execute compiles seg returning outs and runs it.
func (r *run) execute(seg *segment, outs []*stablehlo.Value) ([]*literal.Literal, error) {
	if err := seg.ctx.Err(); err != nil {
		return nil, err
	}
	// Outputs that are segment arguments or constants need no compile when
	// the segment does nothing else; the general path handles them too.
	ret := stablehlo.NewOp("func.return", outs, nil, nil)
	seg.block.Ops = append(seg.block.Ops, ret)
	eliminateDeadOps(seg.block) // dce.go
	argTypes := make([]stablehlo.Type, len(seg.block.Args))
	for i, a := range seg.block.Args {
		argTypes[i] = a.Type
	}
	resTypes := make([]stablehlo.Type, len(outs))
	for i, o := range outs {
		resTypes[i] = o.Type
	}
	f := &stablehlo.Func{
		Name:       "main",
		Visibility: "public",
		Type:       &stablehlo.FuncType{Inputs: argTypes, Results: resTypes},
		Body:       &stablehlo.Region{Blocks: []*stablehlo.Block{seg.block}},
	}
	f.ArgAttrs = r.donations(seg, outs)
	m := &stablehlo.Module{Name: "torchtpu", Funcs: []*stablehlo.Func{f}}
	if r.p.Check {
		if err := checkModule(m); err != nil {
			return nil, err
		}
	}
	exe, err := r.compileSegment(m) // through the compile cache (compile_cache.go)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	// The arguments on the device: values of earlier segments are there
	// already, weights are resident, the rest is uploaded.
	args := make([]backend.Buffer, len(seg.params))
	for i, l := range seg.params {
		if args[i], err = r.io.buffer(l); err != nil {
			return nil, fmt.Errorf("argument %d (%s%v): %w", i, l.DType, l.Shape, err)
		}
	}
	// Mutated weights may be donated to their new values only by the last
	// segment: an earlier one's would leave later segments without them.
	var donate []bool
	if r.final && f.ArgAttrs != nil {
		donate = make([]bool, len(seg.params))
		for i, l := range seg.params {
			_, donate[i] = r.io.weightOf[l]
		}
	}
	bufs, err := exe.RunBuffers(r.ctx, args, donate)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if len(bufs) != len(outs) {
		backend.ReleaseAll(bufs)
		return nil, fmt.Errorf("run: %d results, want %d", len(bufs), len(outs))
	}
	lits := make([]*literal.Literal, len(bufs))
	for i, b := range bufs {
		if lits[i], err = r.io.adopt(b); err != nil {
			backend.ReleaseAll(bufs[i:])
			return nil, fmt.Errorf("run: %w", err)
		}
	}
	r.stats.Segments++
	r.lastExe, r.lastParams, r.lastResults = exe, seg.params, lits
	return lits, nil
}

// donations marks the segment arguments that hold a buffer or parameter
// the program mutates with tf.aliasing_output = j, where result j is the
// mutated value (graph signature BUFFER_MUTATION / PARAMETER_MUTATION
// outputs) of the same type: the run replaces the weight with that result
// (finish), so a device may reuse the argument's buffer for it. It
// returns nil when there is none.
func (r *run) donations(seg *segment, outs []*stablehlo.Value) []stablehlo.DictAttr {
	g := r.p.Graph
	// (weight, the name of its new value): mutation outputs, and buffer or
	// parameter inputs that in-place ops (add_ kept in the export) rebound.
	type mutation struct{ target, name string }
	var muts []mutation
	for i, spec := range g.Signature.Outputs {
		if spec.Kind != fx.OutputBufferMutation && spec.Kind != fx.OutputParameterMutation {
			continue
		}
		arg := spec.Arg
		if i < len(g.Outputs) {
			arg = g.Outputs[i]
		}
		if arg.Kind == fx.ArgTensor && arg.Name != "" {
			muts = append(muts, mutation{spec.Target, arg.Name})
		}
	}
	for i, spec := range g.Signature.Inputs {
		if (spec.Kind == fx.InputBuffer || spec.Kind == fx.InputParameter) && i < len(g.Inputs) {
			muts = append(muts, mutation{spec.Target, g.Inputs[i].Name})
		}
	}
	var attrs []stablehlo.DictAttr
	taken := map[int]bool{}
	for _, mu := range muts {
		v, ok := r.env[mu.name]
		w := r.weightsAtStart[mu.target]
		if !ok || v.T == nil || w == nil {
			continue
		}
		res := slices.Index(outs, v.T)
		in := slices.Index(seg.params, w)
		if res < 0 || in < 0 || taken[res] {
			continue
		}
		at, ok1 := seg.block.Args[in].Type.(*stablehlo.TensorType)
		rt, ok2 := outs[res].Type.(*stablehlo.TensorType)
		if !ok1 || !ok2 || !at.Equal(rt) || outs[res] == seg.block.Args[in] {
			continue
		}
		if attrs == nil {
			attrs = make([]stablehlo.DictAttr, len(seg.params))
		}
		if len(attrs[in]) > 0 {
			continue
		}
		taken[res] = true
		attrs[in] = stablehlo.DictAttr{{Name: "tf.aliasing_output", Value: stablehlo.I32(int64(res))}}
	}
	return attrs
}

// finish runs the last segment and collects the outputs: user outputs
// are returned, buffer mutations update the program's weights.
func (r *run) finish() ([]*literal.Literal, error) {
	r.final = true
	if err := r.flush(len(r.p.Graph.Nodes)); err != nil {
		return nil, err
	}
	g := r.p.Graph
	var outs []*literal.Literal
	for i, spec := range g.Signature.Outputs {
		var arg fx.Arg
		if i < len(g.Outputs) {
			arg = g.Outputs[i]
		} else {
			arg = spec.Arg
		}
		lit, err := r.outputLiteral(arg)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", i, err)
		}
		switch spec.Kind {
		case fx.OutputUser, fx.OutputLoss:
			outs = append(outs, lit)
		case fx.OutputBufferMutation, fx.OutputParameterMutation:
			if lit != nil {
				r.writes[spec.Target] = lit
			}
		}
	}
	// In-place ops on buffers and parameters (exports that keep add_ & co.)
	// rebound the input's name: keep the new value.
	for i, spec := range g.Signature.Inputs {
		if (spec.Kind != fx.InputBuffer && spec.Kind != fx.InputParameter) || i >= len(g.Inputs) {
			continue
		}
		if v, ok := r.env[g.Inputs[i].Name]; ok && v.Lit != nil && v.Lit != r.weightsAtStart[spec.Target] {
			r.writes[spec.Target] = v.Lit
		}
	}
	for fqn, l := range r.writes {
		r.p.setWeight(r.io, fqn, l) // on the device when it was computed there (resident.go)
	}
	return outs, nil
}

// outputLiteral returns an output as a literal. Python scalars (a SymInt
// the program returns, a constant) become 0-dim int64 / float64 / bool
// tensors.
func (r *run) outputLiteral(a fx.Arg) (*literal.Literal, error) {
	var v aten.Value
	switch a.Kind {
	case fx.ArgNone:
		return nil, nil
	case fx.ArgTensor, fx.ArgSymInt, fx.ArgSymFloat, fx.ArgSymBool:
		name := a.Name
		if a.Kind != fx.ArgTensor {
			if name = symName(a); name == "" {
				c, err := r.arg(a, true)
				if err != nil {
					return nil, err
				}
				v = c
				break
			}
		}
		var err error
		if v, err = r.named(name); err != nil {
			return nil, err
		}
	case fx.ArgInt, fx.ArgFloat, fx.ArgBool:
		v, _ = r.arg(a, true)
	default:
		return nil, fmt.Errorf("outputs of kind %s are not supported", a.Kind)
	}
	return scalarLiteral(v)
}

func scalarLiteral(v aten.Value) (*literal.Literal, error) {
	if v.Lit != nil {
		return v.Lit, nil
	}
	var l *literal.Literal
	switch v.Kind {
	case aten.KInt:
		l, _ = literal.New(dtype.I64, nil)
		l.SetInt64(0, v.I)
	case aten.KFloat:
		l, _ = literal.New(dtype.F64, nil)
		l.SetFloat64(0, v.F)
	case aten.KBool:
		l, _ = literal.New(dtype.Bool, nil)
		if v.B {
			l.SetInt64(0, 1)
		}
	default:
		return nil, fmt.Errorf("output %v is not a tensor", v)
	}
	return l, nil
}

// checkModule verifies m and its printed text.
func checkModule(m *stablehlo.Module) error {
	if err := stablehlo.Verify(m); err != nil {
		return fmt.Errorf("lowered module does not verify: %w", err)
	}
	text := m.String()
	mods, err := stablehlo.Parse("lowered.mlir", []byte(text))
	if err != nil {
		return fmt.Errorf("printed module does not parse: %w", err)
	}
	for _, pm := range mods {
		if err := stablehlo.Verify(pm); err != nil {
			return fmt.Errorf("printed module does not verify after parsing: %w", err)
		}
	}
	return nil
}
