package runtime

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/sym"
)

// dynState is what the runtime remembers between calls about shapes.
type dynState struct {
	mark   time.Time // end of the last traced step (start of lowering)
	calls  int
	seen   map[string]bool // signatures already specialised
	last   [][]int64       // the previous call's input shapes
	bucket *bucketPlan     // nil until analysed
	note   string          // appended to the next recompile reason
	hot    *hotCall        // the last exact call's specialisation
}

// hotCall is the specialisation of the last call that ran a cached plan at
// its exact shapes. A compiled graph with static shapes is called with the
// same dtypes and shapes over and over: such a call needs no check (the
// inputs passed it before), no signature, no lookup and no explanation.
type hotCall struct {
	dtypes []dtype.DType
	shapes [][]int64
	pl     *plan
}

func newHotCall(inputs []*literal.Literal, pl *plan) *hotCall {
	h := &hotCall{dtypes: make([]dtype.DType, len(inputs)), shapes: make([][]int64, len(inputs)), pl: pl}
	for i, in := range inputs {
		if in == nil {
			return nil
		}
		h.dtypes[i], h.shapes[i] = in.DType, slices.Clone(in.Shape)
	}
	return h
}

// matches reports whether inputs have the hot call's dtypes and shapes.
func (h *hotCall) matches(inputs []*literal.Literal) bool {
	if len(inputs) != len(h.dtypes) {
		return false
	}
	for i, in := range inputs {
		if in == nil || in.DType != h.dtypes[i] || !slices.Equal(in.Shape, h.shapes[i]) {
			return false
		}
	}
	return true
}

// Run executes the program on the user inputs (in the order of the user
// input specs) and returns the user outputs. It checks the inputs against
// the export's symbolic dims and ranges, pads them to a bucket when a
// bucketing policy is set and the program allows it, explains every
// specialisation for new shapes, and accounts the run in the metrics.
//
// Weights stay on the program's device between runs (resident.go); the
// run copies its inputs to the device and its outputs back, and
// Stats.Uploaded / Stats.Downloaded count those bytes.
func (p *Program) Run(ctx context.Context, inputs []*literal.Literal) ([]*literal.Literal, *Stats, error) {
	io := newDeviceIO(ctx, p)
	outs, stats, err := p.call(ctx, inputs, io)
	if err == nil {
		for i, o := range outs {
			if err = io.host(o); err != nil {
				err = fmt.Errorf("output %d: %w", i, err)
				break
			}
		}
	}
	return p.endCall(io, outs, stats, err)
}

// call checks the inputs, explains a new specialisation and runs at the
// exact or the bucketed shapes. The outputs may still be on the device.
func (p *Program) call(ctx context.Context, inputs []*literal.Literal, io *deviceIO) ([]*literal.Literal, *Stats, error) {
	st := p.state()
	start := time.Now()
	st.dyn.mark = start
	defer func() {
		st.metrics.ran(time.Since(start))
		st.trace.span("run", "run", start, time.Since(start), nil)
	}()
	if h := st.dyn.hot; h != nil && !p.NoCache && h.matches(inputs) {
		st.dyn.calls++
		st.metrics.hit("plan")
		return p.runPlan(ctx, h.pl, inputs, io)
	}
	st.dyn.hot = nil
	if err := p.CheckInputs(inputs); err != nil {
		return nil, nil, err
	}
	st.dyn.calls++
	if p.buckets(st) != nil {
		if bp := p.bucketPlan(st); bp.ok {
			return p.runBucketed(ctx, st, bp, inputs, io)
		}
	}
	sig := signature(inputs)
	p.explain(st, inputs, sig)
	outs, stats, err := p.runExactSig(ctx, sig, inputs, io)
	if err == nil && !p.NoCache {
		if pl := p.cache.get(sig); pl != nil {
			st.dyn.hot = newHotCall(inputs, pl)
		}
	}
	return outs, stats, err
}

// endCall waits for the call's device work (an execution's error is the
// call's), accounts its transfers and releases its buffers.
func (p *Program) endCall(io *deviceIO, outs []*literal.Literal, stats *Stats, err error) ([]*literal.Literal, *Stats, error) {
	if err == nil {
		err = io.await()
	}
	io.close()
	if stats != nil {
		stats.Uploaded, stats.Downloaded = io.h2d, io.d2h
	}
	p.state().metrics.runMoved(io.h2d, io.d2h)
	if err != nil {
		return nil, stats, err
	}
	return outs, stats, nil
}

// userTensorInputs lists the graph names of the tensor user inputs, in
// the order the caller passes them.
func (p *Program) userTensorInputs() []string {
	var names []string
	g := p.Graph
	for i, spec := range g.Signature.Inputs {
		if spec.Kind != fx.InputUser {
			continue
		}
		arg := spec.Arg
		if i < len(g.Inputs) {
			arg = g.Inputs[i]
		}
		if arg.Kind == fx.ArgTensor {
			names = append(names, arg.Name)
		}
	}
	return names
}

// CheckInputs checks every input against the export: dtype, rank, static
// dims, symbolic dims within their range constraints, and equal symbols
// agreeing. Errors name the input, the dim, the value and the range.
func (p *Program) CheckInputs(inputs []*literal.Literal) error {
	names := p.userTensorInputs()
	if len(inputs) != len(names) {
		return fmt.Errorf("program takes %d user inputs, %d given", len(names), len(inputs))
	}
	type origin struct{ input, dim int }
	bound := map[string]int64{}
	from := map[string]origin{}
	for i, in := range inputs {
		m := p.Graph.Tensor(names[i])
		if m == nil {
			continue
		}
		if in == nil {
			return fmt.Errorf("input %d (%s) is missing", i, names[i])
		}
		if in.DType != m.DType {
			return fmt.Errorf("input %d (%s) has dtype %s, the program expects %s", i, names[i], in.DType.Torch(), m.DType.Torch())
		}
		if len(in.Shape) != m.Rank() {
			return fmt.Errorf("input %d (%s) has shape %v, the program expects rank %d (%s)", i, names[i], in.Shape, m.Rank(), m)
		}
		for d, dim := range m.Shape {
			v := in.Shape[d]
			switch {
			case dim.IsStatic():
				if v != dim.Static {
					return fmt.Errorf("input %d (%s) dim %d is %d, the program expects %d (%s)", i, names[i], d, v, dim.Static, m)
				}
			case dim.Expr.Op == sym.OpSymbol:
				s := dim.Expr.Name
				if old, ok := bound[s]; ok && old != v {
					o := from[s]
					return fmt.Errorf("input %d (%s) dim %d is %d, but it is the symbolic dim %s, which input %d (%s) dim %d gives as %d: they must agree",
						i, names[i], d, v, s, o.input, names[o.input], o.dim, old)
				}
				if rg, ok := p.Graph.Ranges[s]; ok && !rg.Contains(v) {
					return fmt.Errorf("input %d (%s) dim %d is %d, outside the range %s of the symbolic dim %s", i, names[i], d, v, rg, s)
				}
				bound[s], from[s] = v, origin{i, d}
			}
		}
	}
	// Compound dims (2*s0) once every symbol is bound.
	for i, in := range inputs {
		m := p.Graph.Tensor(names[i])
		if m == nil {
			continue
		}
		for d, dim := range m.Shape {
			if dim.IsStatic() || dim.Expr.Op == sym.OpSymbol {
				continue
			}
			want, err := dim.Eval(bound)
			if err != nil {
				continue // a symbol no input binds alone: the lowering checks it
			}
			if in.Shape[d] != want {
				return fmt.Errorf("input %d (%s) dim %d is %d, but the program says %s = %d", i, names[i], d, in.Shape[d], dim, want)
			}
		}
	}
	return nil
}

// explain records (and with Options.Explain prints) a specialisation for
// a signature not seen before, naming the first dim that changed.
func (p *Program) explain(st *rtState, inputs []*literal.Literal, sig string) {
	d := &st.dyn
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	shapes := make([][]int64, len(inputs))
	for i, in := range inputs {
		if in != nil {
			shapes[i] = in.Shape
		}
	}
	defer func() { d.last = shapes }()
	if d.seen[sig] {
		if !p.NoCache && p.cache.get(sig) != nil {
			st.metrics.hit("plan")
		}
		return
	}
	d.seen[sig] = true
	if d.last == nil {
		return // the first specialisation is not a recompile
	}
	names := p.userTensorInputs()
	rc := Recompile{Call: d.calls, Input: -1, Reason: "new input dtypes"}
	for i := range shapes {
		if i >= len(d.last) || len(shapes[i]) != len(d.last[i]) {
			continue
		}
		for k := range shapes[i] {
			if shapes[i][k] != d.last[i][k] {
				rc = Recompile{Call: d.calls, Input: i, Name: names[i], Dim: k, Old: d.last[i][k], New: shapes[i][k]}
				dimName := ""
				if m := p.Graph.Tensor(names[i]); m != nil && k < m.Rank() {
					dimName = " (" + m.Shape[k].String() + ")"
				}
				rc.Reason = fmt.Sprintf("input %d (%s) dim %d%s changed from %d to %d%s", i, names[i], k, dimName, rc.Old, rc.New, d.note)
				break
			}
		}
		if rc.Input >= 0 {
			break
		}
	}
	st.metrics.recompile(rc)
	if st.opts.Explain {
		st.logf("torchtpu: recompile (call %d): %s\n", rc.Call, rc.Reason)
	}
}
