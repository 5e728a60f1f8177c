package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// asyncBackend runs another backend's executables asynchronously (in a
// goroutine, as a device queue would) and logs compiles, starts and
// waits, so that tests can see where a run synchronises.
type asyncBackend struct {
	backend.Backend
	gate    chan struct{} // when set, each run waits for it before computing
	started chan struct{} // when set, each start is signalled on it

	mu      sync.Mutex
	log     []string
	modules []string
}

func (b *asyncBackend) Name() string { return "async-" + b.Backend.Name() }

func (b *asyncBackend) note(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.log = append(b.log, s)
}

func (b *asyncBackend) events() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.log, " ")
}

func (b *asyncBackend) Compile(ctx context.Context, m *stablehlo.Module, opts backend.Options) (backend.Executable, error) {
	b.note("compile")
	b.mu.Lock()
	b.modules = append(b.modules, m.String())
	b.mu.Unlock()
	exe, err := b.Backend.Compile(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	return &asyncExe{Executable: exe, b: b}, nil
}

type asyncExe struct {
	backend.Executable
	b *asyncBackend
}

func (e *asyncExe) RunAsync(ctx context.Context, args []*literal.Literal) (backend.Pending, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.b.note("start")
	p := &asyncPending{done: make(chan struct{}), b: e.b}
	go func() {
		defer close(p.done)
		if e.b.gate != nil {
			<-e.b.gate
		}
		p.outs, p.err = e.Executable.Run(context.Background(), args)
	}()
	if e.b.started != nil {
		e.b.started <- struct{}{}
	}
	return p, nil
}

type asyncPending struct {
	done chan struct{}
	b    *asyncBackend
	outs []*literal.Literal
	err  error
}

func (p *asyncPending) Done() <-chan struct{} { return p.done }

func (p *asyncPending) Wait(ctx context.Context) ([]*literal.Literal, error) {
	p.b.note("wait")
	select {
	case <-p.done:
		return p.outs, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func asyncProgram(t *testing.T, name string) (*runtime.Program, *asyncBackend, [][]*literal.Literal) {
	t.Helper()
	_, prog, io := loadOracle(t, name)
	ab := &asyncBackend{Backend: prog.Backend}
	prog.Backend = ab
	return prog, ab, [][]*literal.Literal{io.Inputs(), io.Outputs()}
}

// With an asynchronous executable each segment is enqueued and waited for
// only where host values are needed: before the host fallback between
// the two segments and for the outputs. The results are PyTorch's.
func TestAsyncSegments(t *testing.T) {
	prog, ab, io := asyncProgram(t, "nonzero_then_compute")
	outs, stats, err := prog.Run(context.Background(), io[0])
	if err != nil {
		t.Fatal(err)
	}
	if stats.Segments != 2 || stats.HostFallbacks["aten::nonzero.default"] != 1 {
		t.Errorf("stats = %+v", stats)
	}
	if got, want := ab.events(), "compile start wait compile start wait"; got != want {
		t.Errorf("events %q, want %q", got, want)
	}
	for i, w := range io[1] {
		if c := runtime.Compare(outs[i], w, runtime.DefaultTolerance(w.DType)); !c.OK {
			t.Errorf("output %d: %s", i, c.Detail)
		}
	}
	// The same through Program.RunAsync.
	outs, _, err = prog.RunAsync(context.Background(), io[0]).Wait(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range io[1] {
		if c := runtime.Compare(outs[i], w, runtime.DefaultTolerance(w.DType)); !c.OK {
			t.Errorf("RunAsync output %d: %s", i, c.Detail)
		}
	}
}

// A cancelled context ends a run that waits for an enqueued segment.
func TestAsyncSegmentCancel(t *testing.T) {
	prog, ab, io := asyncProgram(t, "nonzero_then_compute")
	ab.gate = make(chan struct{})
	ab.started = make(chan struct{})
	defer close(ab.gate)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, _, err := prog.Run(ctx, io[0])
		errc <- err
	}()
	select {
	case <-ab.started: // the first segment is enqueued and cannot finish
	case err := <-errc:
		t.Fatalf("the run ended before its first segment started: %v", err)
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

// A buffer the program mutates (a BUFFER_MUTATION output) is a segment
// argument marked tf.aliasing_output = the result holding its new value,
// so a device may donate it; the module still verifies after printing and
// parsing (Check), both runs match PyTorch (the second sees the first's
// update), and the native backend accepts the attribute.
func TestBufferMutationDonation(t *testing.T) {
	_, native, io := loadOracle(t, "buffer_mutation")
	prog, ab, _ := asyncProgram(t, "buffer_mutation")
	prog.Check = true
	for _, p := range []*runtime.Program{prog, native} {
		for i, want := range []*literal.Literal{io.Tensors["output.0"], io.Tensors["second.0"]} {
			outs, _, err := p.Run(context.Background(), io.Inputs())
			if err != nil {
				t.Fatal(err)
			}
			if c := runtime.Compare(outs[0], want, runtime.DefaultTolerance(want.DType)); !c.OK {
				t.Errorf("%s run %d: %s", p.Backend.Name(), i+1, c.Detail)
			}
		}
	}
	if len(ab.modules) == 0 {
		t.Fatal("nothing compiled")
	}
	text := ab.modules[0]
	mods, err := stablehlo.Parse("segment.mlir", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	f := mods[0].Func("main")
	var marked []int64
	for i := range f.Type.Inputs {
		if i < len(f.ArgAttrs) {
			if a, ok := f.ArgAttrs[i].Get("tf.aliasing_output").(*stablehlo.IntAttr); ok {
				marked = append(marked, int64(i), a.Value)
			}
		}
	}
	if len(marked) != 2 {
		t.Fatalf("want one argument marked tf.aliasing_output, got (arg, result) %v in\n%s", marked, text)
	}
	arg, res := marked[0], marked[1]
	if f.Type.Inputs[arg].String() != f.Type.Results[res].String() {
		t.Errorf("argument %d (%s) aliases result %d (%s)", arg, f.Type.Inputs[arg], res, f.Type.Results[res])
	}
	t.Logf("%s", text)
}
