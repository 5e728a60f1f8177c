package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

func loadOracle(t *testing.T, name string) (*pt2.Program, *runtime.Program, *safetensors.File) {
	t.Helper()
	p, err := pt2.Load("testdata/oracle/" + name + ".pt2")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := runtime.FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load("testdata/oracle/" + name + ".io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	return p, prog, io
}

func TestRunRejectsBadInputs(t *testing.T) {
	_, prog, io := loadOracle(t, "dyn_view")
	ctx := context.Background()
	in := io.Inputs()[0]
	for _, c := range []struct {
		name string
		ins  []*literal.Literal
		want string
	}{
		{"no inputs", nil, "user inputs"},
		{"two inputs", []*literal.Literal{in, in}, "user inputs"},
		{"wrong dtype", []*literal.Literal{mustLit(t, dtype.F64, 4, 6)}, "dtype float64"},
		{"wrong static dim", []*literal.Literal{mustLit(t, dtype.F32, 4, 5)}, "expects"},
		{"outside the range", []*literal.Literal{mustLit(t, dtype.F32, 65, 6)}, "range"},
	} {
		if _, _, err := prog.Run(ctx, c.ins); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", c.name, err, c.want)
		}
	}
	// Another size in the range runs.
	outs, _, err := prog.Run(ctx, []*literal.Literal{mustLit(t, dtype.F32, 3, 6)})
	if err != nil || len(outs) != 1 || outs[0].Shape[0] != 6 {
		t.Errorf("batch 3: %v %v", outs, err)
	}
}

func mustLit(t *testing.T, d dtype.DType, shape ...int64) *literal.Literal {
	l, err := literal.New(d, shape)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// An op without a lowering fails with the node, the op and the Python
// source line of the export.
func TestUnsupportedOpNamesNodeAndSource(t *testing.T) {
	p, _, io := loadOracle(t, "frac")
	p.Graph.Nodes[0].Target = "aten::no_such_op.default"
	prog, err := runtime.FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = prog.Run(context.Background(), io.Inputs())
	if err == nil {
		t.Fatal("ran an unknown op")
	}
	for _, want := range []string{p.Graph.Nodes[0].Name, "aten::no_such_op.default", "gen_cases.py", "not supported"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// A data-dependent op cuts the program: the segment before it runs, the op
// runs on the host, and a second segment continues with the known size.
func TestHostFallbackSegments(t *testing.T) {
	_, prog, io := loadOracle(t, "nonzero_then_compute")
	outs, stats, err := prog.Run(context.Background(), io.Inputs())
	if err != nil {
		t.Fatal(err)
	}
	if stats.HostFallbacks["aten::nonzero.default"] != 1 || stats.Segments != 2 || stats.HostBytes == 0 {
		t.Errorf("stats = %+v, want one nonzero fallback between two segments", stats)
	}
	for i, w := range io.Outputs() {
		if c := runtime.Compare(outs[i], w, runtime.DefaultTolerance(w.DType)); !c.OK {
			t.Errorf("output %d: %s", i, c.Detail)
		}
	}
	// A program without data-dependent ops is one segment and no fallback.
	_, prog, io = loadOracle(t, "frac")
	if _, stats, err = prog.Run(context.Background(), io.Inputs()); err != nil || stats.Segments != 1 || len(stats.HostFallbacks) != 0 {
		t.Errorf("frac: stats %+v, err %v", stats, err)
	}
}

func TestCompareTolerances(t *testing.T) {
	want := mustLit(t, dtype.F32, 3)
	got := mustLit(t, dtype.F32, 3)
	for i, v := range []float64{1, -0.0, 100} {
		want.SetFloat64(i, v)
		got.SetFloat64(i, v)
	}
	got.SetFloat64(2, 100.001)
	c := runtime.Compare(got, want, runtime.DefaultTolerance(dtype.F32))
	if c.OK || c.Mismatches != 1 || !strings.Contains(c.Detail, "element 2") {
		t.Errorf("compare = %+v, want a mismatch at element 2", c)
	}
	if c := runtime.Compare(got, want, runtime.Tolerance{RTol: 1e-4}); !c.OK {
		t.Errorf("a looser rtol still fails: %+v", c)
	}
	if c := runtime.Compare(mustLit(t, dtype.I64, 3), want, runtime.Tolerance{}); c.OK || !strings.Contains(c.Detail, "dtype") {
		t.Errorf("dtype mismatch not reported: %+v", c)
	}
	// Complex values compare part by part: a difference in the imaginary
	// part alone is a mismatch.
	cw, cg := mustLit(t, dtype.C64, 2), mustLit(t, dtype.C64, 2)
	cw.SetComplex128(1, complex(1, 2))
	cg.SetComplex128(1, complex(1, 2.5))
	if c := runtime.Compare(cg, cw, runtime.DefaultTolerance(dtype.C64)); c.OK || c.Mismatches != 1 || !strings.Contains(c.Detail, "got 2.5, want 2") {
		t.Errorf("complex compare = %+v, want one mismatch in the imaginary part of element 1", c)
	}
	if c := runtime.Compare(cw, cw, runtime.DefaultTolerance(dtype.C64)); !c.OK {
		t.Errorf("complex compare with itself = %+v", c)
	}
}

// A buffer the program mutates keeps its new value for the next run, as the
// module's state does in PyTorch (second.0 is the output of a second call).
func TestBufferMutationPersists(t *testing.T) {
	_, prog, io := loadOracle(t, "buffer_mutation")
	for i, want := range []*literal.Literal{io.Tensors["output.0"], io.Tensors["second.0"]} {
		outs, _, err := prog.Run(context.Background(), io.Inputs())
		if err != nil {
			t.Fatal(err)
		}
		if c := runtime.Compare(outs[0], want, runtime.DefaultTolerance(want.DType)); !c.OK {
			t.Errorf("run %d: %s", i+1, c.Detail)
		}
	}
}

// A second run with the same input signature comes from the plan cache and
// gives the same outputs; another signature lowers again.
func TestPlanCacheReuse(t *testing.T) {
	_, prog, io := loadOracle(t, "dyn_view")
	ctx := context.Background()
	first, _, err := prog.Run(ctx, io.Inputs())
	if err != nil {
		t.Fatal(err)
	}
	again, stats, err := prog.Run(ctx, io.Inputs())
	if err != nil || stats.Segments != 1 {
		t.Fatalf("cached run: %+v %v", stats, err)
	}
	if c := runtime.Compare(again[0], first[0], runtime.Tolerance{}); !c.OK {
		t.Errorf("cached run differs: %s", c.Detail)
	}
	other, _, err := prog.Run(ctx, []*literal.Literal{mustLit(t, dtype.F32, 5, 6)})
	if err != nil || other[0].Shape[0] != 10 {
		t.Errorf("another batch size: %v %v", other, err)
	}
}
