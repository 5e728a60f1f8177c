package runtime

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
)

// A program without host fallbacks lowers to one segment whose StableHLO
// depends only on the input shapes and dtypes. Its compiled executable is
// kept per input signature: a later run with the same signature skips
// lowering and compiling and only gathers the arguments.

// source says where a segment argument or a program output comes from.
type source struct {
	input  int    // user input index, or -1
	weight string // weight FQN when input < 0
	result int    // executable result index when >= 0 (outputs only)
	none   bool   // a None output (a backward's gradient of an input that needs none)
}

// plan is a cached single-segment program.
type plan struct {
	exe     *accountedExe // nil when the program computes nothing
	params  []source
	outputs []source          // user outputs, in order
	writes  map[string]source // weights replaced after the run
}

type planCache struct {
	mu    sync.Mutex
	plans map[string]*plan
}

// signature keys the cache: the user inputs' dtypes and shapes, as
// "f32[2 10 64];" per input. Every run computes it, so it is built without
// fmt.
func signature(inputs []*literal.Literal) string {
	buf := make([]byte, 0, 32*len(inputs))
	for _, in := range inputs {
		if in == nil {
			buf = append(buf, "none;"...)
			continue
		}
		buf = append(buf, in.DType.String()...)
		buf = append(buf, '[')
		for i, d := range in.Shape {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = strconv.AppendInt(buf, d, 10)
		}
		buf = append(buf, "];"...)
	}
	return string(buf)
}

func (c *planCache) get(key string) *plan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.plans[key]
}

func (c *planCache) put(key string, p *plan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.plans == nil {
		c.plans = map[string]*plan{}
	}
	c.plans[key] = p
}

// runPlan executes a cached plan: user inputs are uploaded (or are on
// the device already, in io), weights are resident, and the results stay
// on the device until the caller reads the outputs.
func (p *Program) runPlan(ctx context.Context, pl *plan, inputs []*literal.Literal, io *deviceIO) ([]*literal.Literal, *Stats, error) {
	var results []*literal.Literal
	fetch := func(s source) (*literal.Literal, error) {
		switch {
		case s.none:
			return nil, nil
		case s.result >= 0:
			return results[s.result], nil
		case s.input >= 0:
			return inputs[s.input], nil
		}
		return p.weightHost(io, s.weight)
	}
	stats := &Stats{} // a plan runs no host fallback
	// Outputs that are weights are read before the run can donate them.
	var pre map[string]*literal.Literal
	for _, s := range pl.outputs {
		if s.result < 0 && s.input < 0 && !s.none {
			w, err := fetch(s)
			if err != nil {
				return nil, nil, err
			}
			if pre == nil {
				pre = map[string]*literal.Literal{}
			}
			pre[s.weight] = w
		}
	}
	if pl.exe != nil && pl.exe.onHost() {
		// Host memory: the executable runs on the literals themselves,
		// with no buffers to wrap, register and release.
		args := make([]*literal.Literal, len(pl.params))
		for i, s := range pl.params {
			var err error
			if args[i], err = fetch(s); err != nil {
				return nil, nil, err
			}
		}
		var err error
		if results, err = pl.exe.runHost(pl.resultBuffers(ctx), args); err != nil {
			return nil, nil, fmt.Errorf("run: %w", err)
		}
		stats.Segments = 1
	} else if pl.exe != nil {
		args := make([]backend.Buffer, len(pl.params))
		donate := make([]bool, len(pl.params))
		for i, s := range pl.params {
			var err error
			if s.input >= 0 {
				args[i], err = io.buffer(inputs[s.input])
			} else {
				args[i], err = p.weightBuffer(io, s.weight)
				donate[i] = true // the executable donates only what the program marks
			}
			if err != nil {
				return nil, nil, err
			}
		}
		bufs, err := pl.exe.RunBuffers(ctx, args, donate)
		if err != nil {
			return nil, nil, fmt.Errorf("run: %w", err)
		}
		results = make([]*literal.Literal, len(bufs))
		for i, b := range bufs {
			if results[i], err = io.adopt(b); err != nil {
				backend.ReleaseAll(bufs[i:])
				return nil, nil, fmt.Errorf("run: %w", err)
			}
		}
		stats.Segments = 1
	}
	outs := make([]*literal.Literal, len(pl.outputs))
	for i, s := range pl.outputs {
		if w, ok := pre[s.weight]; ok && s.result < 0 && s.input < 0 {
			outs[i] = w
			continue
		}
		o, err := fetch(s)
		if err != nil {
			return nil, nil, err
		}
		outs[i] = o
	}
	for fqn, s := range pl.writes {
		w, err := fetch(s)
		if err != nil {
			return nil, nil, err
		}
		p.setWeight(io, fqn, w)
	}
	return outs, stats, nil
}

type outputBuffersKey struct{}

// WithOutputBuffers returns ctx carrying dst: dst[i], when not nil, is
// memory output i of a run may be computed into (dense, row-major,
// exactly the output's size), valid for the call only. A cached plan on
// host memory hands it to the executable (backend.WithResultBuffers) for
// the results that are outputs and not weights the run replaces; an
// output whose literal does not view dst[i] must be copied there by the
// caller, as without it.
func WithOutputBuffers(ctx context.Context, dst [][]byte) context.Context {
	return context.WithValue(ctx, outputBuffersKey{}, dst)
}

// resultBuffers translates the output buffers in ctx, if any, to the
// executable's results: the first output a result is given to, and none
// for a result that becomes a weight (kept after the call).
func (pl *plan) resultBuffers(ctx context.Context) context.Context {
	dst, _ := ctx.Value(outputBuffersKey{}).([][]byte)
	if dst == nil {
		return ctx
	}
	n := 0
	for _, s := range pl.outputs {
		n = max(n, s.result+1)
	}
	res := make([][]byte, n)
	for i, s := range pl.outputs {
		if s.result >= 0 && i < len(dst) && res[s.result] == nil {
			res[s.result] = dst[i]
		}
	}
	for _, s := range pl.writes {
		if s.result >= 0 && s.result < n {
			res[s.result] = nil
		}
	}
	return backend.WithResultBuffers(ctx, res)
}

// record builds a plan from a finished single-segment run: every literal
// it touched is traced back to an input, a weight or an executable result.
func (r *run) record(outs []*literal.Literal, writes map[string]*literal.Literal) *plan {
	if len(r.stats.HostFallbacks) > 0 || r.stats.Segments > 1 {
		return nil
	}
	// A parameter comes from an input or a weight; a result may be one of
	// them too (an executable may hand an argument back as a result: a
	// forward saving its input for the backward), so parameters are traced
	// to inputs and weights only, and outputs to results first.
	trace := func(l *literal.Literal, results bool) (source, bool) {
		for i, res := range r.lastResults {
			if results && res == l {
				return source{input: -1, result: i}, true
			}
		}
		for i, in := range r.inputs {
			if in == l {
				return source{input: i, result: -1}, true
			}
		}
		for fqn, w := range r.weightsAtStart {
			if w == l {
				return source{input: -1, weight: fqn, result: -1}, true
			}
		}
		return source{}, false
	}
	pl := &plan{exe: r.lastExe, writes: map[string]source{}}
	for _, l := range r.lastParams {
		s, ok := trace(l, false)
		if !ok {
			return nil
		}
		pl.params = append(pl.params, s)
	}
	for _, o := range outs {
		if o == nil {
			pl.outputs = append(pl.outputs, source{input: -1, result: -1, none: true})
			continue
		}
		s, ok := trace(o, true)
		if !ok {
			return nil
		}
		pl.outputs = append(pl.outputs, s)
	}
	for fqn, l := range writes {
		s, ok := trace(l, true)
		if !ok {
			return nil
		}
		pl.writes[fqn] = s
	}
	return pl
}
