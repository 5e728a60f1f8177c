package runtime

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/torchtpu/torchtpu/aten"
	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// The hooks the lowering loop calls (segment.go, run.go): compiling a
// segment through the cache, running it with accounting, and running an op
// on the host under the fallback policy.

// compileSegment compiles the module of the run's next segment through
// the compile cache and returns an executable that accounts its runs.
func (r *run) compileSegment(m *stablehlo.Module) (*accountedExe, error) {
	st := r.p.state()
	idx := r.stats.Segments
	label := fmt.Sprintf("segment %d", idx+1)
	st.trace.span("lower "+label, "lower", st.dyn.mark, time.Since(st.dyn.mark), nil)
	exe, key, err := compileCached(r.ctx, st, r.p.Backend, m, label)
	if err != nil {
		return nil, err
	}
	var results []stablehlo.Type
	if f := m.Func("main"); f != nil && f.Type != nil {
		results = f.Type.Results
	}
	return &accountedExe{exe: exe, p: r.p, index: idx, key: key, label: label, results: results}, nil
}

// accountedExe runs an executable and records its time, trace event and,
// in debug-sync mode, checks its results.
type accountedExe struct {
	exe     backend.Executable
	p       *Program // its current state gets the accounting (Configure replaces it)
	index   int
	key     string
	label   string
	results []stablehlo.Type
}

func (a *accountedExe) Run(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	st := a.p.state()
	start := time.Now()
	outs, err := a.exe.Run(ctx, args)
	d := time.Since(start)
	st.trace.span("execute "+a.label, "execute", start, d, map[string]any{"key": short(a.key)})
	st.dyn.mark = time.Now()
	if err != nil {
		return nil, err
	}
	st.metrics.executed(a.index, a.key, d)
	if st.opts.DebugSync {
		if err := a.check(st, outs); err != nil {
			return nil, fmt.Errorf("debug-sync: %s: %w", a.label, err)
		}
	}
	return outs, nil
}

// onHost reports whether the executable runs synchronously on host
// literals (the native backend), so that a cached plan can hand it the
// literals themselves (runHost) instead of buffers.
func (a *accountedExe) onHost() bool {
	if _, ok := a.p.Backend.(backend.BufferBackend); ok {
		return false
	}
	if _, ok := a.exe.(backend.BufferExecutable); ok {
		return false
	}
	if _, ok := a.exe.(backend.AsyncExecutable); ok {
		return false
	}
	return !a.p.state().opts.DebugSync
}

// runHost runs an executable for which onHost holds on host literals,
// accounted as RunBuffers accounts a synchronous run.
func (a *accountedExe) runHost(ctx context.Context, args []*literal.Literal) ([]*literal.Literal, error) {
	st := a.p.state()
	start := time.Now()
	outs, err := a.exe.Run(ctx, args)
	st.dyn.mark = time.Now()
	if err != nil {
		return nil, err
	}
	a.executed(st, start)
	return outs, nil
}

// executed accounts an execution that started at start and is done: its
// trace span (named only when tracing is on) and its metrics.
func (a *accountedExe) executed(st *rtState, start time.Time) {
	d := time.Since(start)
	if st.trace != nil && st.trace.on {
		st.trace.span("execute "+a.label, "execute", start, d, map[string]any{"key": short(a.key)})
	}
	st.metrics.executed(a.index, a.key, d)
}

// RunBuffers runs the executable on device buffers: through the
// backend's own buffers (PJRT), through RunAsync with results that are
// ready when the run is done (other asynchronous executables, unless
// DebugSync), or else synchronously on host buffers. The time until the
// results are ready is accounted as the execution's.
func (a *accountedExe) RunBuffers(ctx context.Context, args []backend.Buffer, donate []bool) ([]backend.Buffer, error) {
	st := a.p.state()
	start := time.Now()
	var outs []backend.Buffer
	var err error
	ae, async := a.exe.(backend.AsyncExecutable)
	if _, bufs := a.exe.(backend.BufferExecutable); !bufs && async && !st.opts.DebugSync {
		outs, err = runFuture(ctx, a.p.Backend.Name(), ae, args, a.results)
	} else {
		outs, err = backend.RunBuffers(ctx, a.p.Backend, a.exe, args, donate)
	}
	st.dyn.mark = time.Now()
	if err != nil {
		return nil, err
	}
	if st.opts.DebugSync {
		lits := make([]*literal.Literal, len(outs))
		for i, o := range outs {
			if lits[i], err = o.ToHost(ctx); err != nil {
				backend.ReleaseAll(outs)
				return nil, fmt.Errorf("debug-sync: %s: result %d: %w", a.label, i, err)
			}
		}
		if err := a.check(st, lits); err != nil {
			backend.ReleaseAll(outs)
			return nil, fmt.Errorf("debug-sync: %s: %w", a.label, err)
		}
	}
	if allReady(outs) {
		a.executed(st, start)
		return outs, nil
	}
	st.metrics.executed(a.index, a.key, 0)
	go func() {
		for _, o := range outs {
			<-o.Ready()
		}
		d := time.Since(start)
		st.trace.span("execute "+a.label, "execute", start, d, map[string]any{"key": short(a.key), "async": true})
		st.metrics.execTime(a.index, d)
	}()
	return outs, nil
}

func allReady(bufs []backend.Buffer) bool {
	for _, b := range bufs {
		select {
		case <-b.Ready():
		default:
			return false
		}
	}
	return true
}

// check compares results with the module's result types and counts NaNs.
func (a *accountedExe) check(st *rtState, outs []*literal.Literal) error {
	if len(outs) != len(a.results) {
		return fmt.Errorf("%d results, the module declares %d", len(outs), len(a.results))
	}
	nans := 0
	for i, o := range outs {
		t := stablehlo.AsTensor(a.results[i])
		if o == nil || t == nil {
			return fmt.Errorf("result %d is missing or not a tensor", i)
		}
		if o.DType != t.DType() || !slices.Equal(o.Shape, t.Shape) {
			return fmt.Errorf("result %d is %v, the module declares %v", i, o, t)
		}
		if o.DType.IsFloat() {
			for j := 0; j < o.Len(); j++ {
				if math.IsNaN(o.Float64(j)) {
					nans++
				}
			}
		}
	}
	line := fmt.Sprintf("%s: %d results ok, %d NaN", a.label, len(outs), nans)
	st.metrics.debug(line)
	st.logf("torchtpu: debug-sync: %s\n", line)
	return nil
}

// host runs node n's op on the host under the fallback policy, counting
// it with the bytes it moved in the run's stats and the metrics.
func (r *run) host(n *fx.Node, e *aten.Entry, args *aten.Args) ([]aten.Value, error) {
	st := r.p.state()
	if r.p.Fallback == "error" || st.opts.Fallback == "error" {
		return nil, fmt.Errorf("op %s (node %s) has no device lowering here and needs a host fallback, which --fallback=error forbids", e.Name, n.Name)
	}
	start := time.Now()
	res, err := e.Host(&aten.HostCtx{Context: r.ctx}, args)
	if err != nil {
		return nil, err
	}
	var bytes int64
	for _, v := range args.Values {
		bytes += valueBytes(v)
	}
	for _, v := range res {
		bytes += valueBytes(v)
	}
	st.metrics.fallback(e.Name, bytes)
	r.stats.HostFallbacks[e.Name]++
	r.stats.HostBytes += bytes
	st.trace.span("host "+e.Name, "host", start, time.Since(start), map[string]any{"node": n.Name, "bytes": bytes})
	st.dyn.mark = time.Now()
	return res, nil
}
