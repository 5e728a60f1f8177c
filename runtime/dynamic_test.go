package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/safetensors"
	"github.com/torchtpu/torchtpu/sym"
)

func loadDynSeq(t *testing.T) (*Program, *literal.Literal) {
	t.Helper()
	p, err := pt2.Load(filepath.Join(sharedFixtures(t), "models", "transformer_encoder_dynamic_seq.pt2"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := safetensors.Load("testdata/dynseq/transformer_dynseq.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	return prog, ref.Tensors["x"]
}

func TestInputRangeErrors(t *testing.T) {
	prog, x := loadDynSeq(t)
	big, _ := resize(x, []int64{2, 200, 64})
	_, _, err := prog.Run(context.Background(), []*literal.Literal{big})
	if err == nil || !strings.Contains(err.Error(), "input 0 (src) dim 1 is 200, outside the range [2, 128] of the symbolic dim s98") {
		t.Errorf("length 200: %v", err)
	}
	one, _ := resize(x, []int64{2, 1, 64})
	if _, _, err := prog.Run(context.Background(), []*literal.Literal{one}); err == nil || !strings.Contains(err.Error(), "dim 1 is 1") {
		t.Errorf("length 1: %v", err)
	}
	wrong, _ := resize(x, []int64{3, 5, 64})
	if _, _, err := prog.Run(context.Background(), []*literal.Literal{wrong}); err == nil || !strings.Contains(err.Error(), "dim 0 is 3, the program expects 2") {
		t.Errorf("batch 3: %v", err)
	}
}

func TestExplainRecompiles(t *testing.T) {
	prog, x := loadDynSeq(t)
	var log strings.Builder
	if err := prog.Configure(Options{Explain: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	for _, L := range []int64{3, 5, 3, 5} {
		in, _ := resize(x, []int64{2, L, 64})
		if _, _, err := prog.Run(context.Background(), []*literal.Literal{in}); err != nil {
			t.Fatal(err)
		}
	}
	m := prog.Metrics().Snapshot()
	if len(m.Recompiles) != 1 || m.Compiles != 2 || m.HitsBy["plan"] != 2 {
		t.Fatalf("recompiles %+v, compiles %d, plan hits %d", m.Recompiles, m.Compiles, m.HitsBy["plan"])
	}
	rc := m.Recompiles[0]
	if rc.Input != 0 || rc.Dim != 1 || rc.Old != 3 || rc.New != 5 || !strings.Contains(log.String(), "input 0 (src) dim 1 (s98) changed from 3 to 5") {
		t.Errorf("recompile %+v, log %q", rc, log.String())
	}
}

// twoInputs builds x[s0] + y[s0] (s0 in [2, 10]) by hand.
func twoInputs() *fx.Graph {
	lo, hi := int64(2), int64(10)
	s0 := fx.Dim{Expr: sym.Symbol("s0")}
	meta := func() *fx.TensorMeta { return &fx.TensorMeta{DType: dtype.F32, Shape: []fx.Dim{s0}} }
	x := fx.Arg{Kind: fx.ArgTensor, Name: "x"}
	y := fx.Arg{Kind: fx.ArgTensor, Name: "y"}
	out := fx.Arg{Kind: fx.ArgTensor, Name: "add"}
	return &fx.Graph{
		Inputs: []fx.Arg{x, y},
		Nodes: []*fx.Node{{Name: "add", Target: "aten::add.Tensor",
			Inputs:  []fx.NamedArg{{Name: "self", Arg: x}, {Name: "other", Arg: y}},
			Outputs: []fx.Arg{out}}},
		Outputs: []fx.Arg{out},
		Tensors: map[string]*fx.TensorMeta{"x": meta(), "y": meta(), "add": meta()},
		Signature: &fx.Signature{
			Inputs:  []fx.InputSpec{{Kind: fx.InputUser, Arg: x}, {Kind: fx.InputUser, Arg: y}},
			Outputs: []fx.OutputSpec{{Kind: fx.OutputUser, Arg: out}},
		},
		Ranges: map[string]fx.Range{"s0": {Min: &lo, Max: &hi}},
	}
}

func vec(n int64, scale float64) *literal.Literal {
	l, _ := literal.New(dtype.F32, []int64{n})
	for i := 0; i < int(n); i++ {
		l.SetFloat64(i, scale*float64(i+1))
	}
	return l
}

func TestEqualSymbolsAndPointwiseBucketing(t *testing.T) {
	prog, err := New(twoInputs(), nil, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = prog.Run(context.Background(), []*literal.Literal{vec(3, 1), vec(4, 1)})
	if err == nil || !strings.Contains(err.Error(), "input 1 (y) dim 0 is 4, but it is the symbolic dim s0, which input 0 (x) dim 0 gives as 3") {
		t.Errorf("mismatched s0: %v", err)
	}
	exact, _ := New(twoInputs(), nil, "cpu")
	if err := prog.Configure(Options{Buckets: &BucketPolicy{Pow2: true}}); err != nil {
		t.Fatal(err)
	}
	for n := int64(2); n <= 10; n++ {
		ins := []*literal.Literal{vec(n, 1), vec(n, 0.5)}
		got, _, err := prog.Run(context.Background(), ins)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := exact.Run(context.Background(), ins)
		if err != nil {
			t.Fatal(err)
		}
		if c := Compare(got[0], want[0], Tolerance{}); !c.OK {
			t.Errorf("n=%d: bucketed differs from exact: %s", n, c.Detail)
		}
	}
	// Buckets 2, 4, 8 and 10 (16 clamped to the range's maximum).
	if m := prog.Metrics().Snapshot(); m.Compiles != 4 || !m.Bucketing.Enabled {
		t.Errorf("compiles %d (want 4), bucketing %+v", m.Compiles, m.Bucketing)
	}
}

func TestDebugSyncAndAsync(t *testing.T) {
	p, err := pt2.Load("../examples/mlp.pt2")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load("../examples/mlp.io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := FromPT2(p, "cpu")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	if err := prog.Configure(Options{DebugSync: true, Log: &log}); err != nil {
		t.Fatal(err)
	}
	f := prog.RunAsync(context.Background(), io.Inputs())
	if !f.Ready() {
		t.Error("debug-sync RunAsync returned before the run was done")
	}
	if _, _, err := f.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "debug-sync: segment 1: 1 results ok, 0 NaN") {
		t.Errorf("debug-sync log: %q", log.String())
	}

	async, _ := FromPT2(p, "cpu")
	var futures []*Future
	for i := 0; i < 3; i++ {
		futures = append(futures, async.RunAsync(context.Background(), io.Inputs()))
	}
	for _, f := range futures {
		outs, _, err := f.Wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c := Compare(outs[0], io.Outputs()[0], DefaultTolerance(dtype.F32)); !c.OK {
			t.Errorf("async output differs from PyTorch: %s", c.Detail)
		}
	}
	if n := async.Metrics().Snapshot().Runs; n != 3 {
		t.Errorf("runs = %d, want 3", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := async.RunAsync(ctx, io.Inputs()).Wait(context.Background()); err == nil {
		t.Error("a cancelled context did not fail the run")
	}
}
