package runtime

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/fx"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// scaleBuffer is a program that multiplies its buffer b and its input x by
// one: the new b is a BUFFER_MUTATION output, x*1 the user output. The
// segment's results equal its arguments in order (b, x), so the fake
// PJRT plugin, which echoes, computes it exactly.
func scaleBuffer() *fx.Graph {
	meta := func() *fx.TensorMeta { return &fx.TensorMeta{DType: dtype.F32, Shape: []fx.Dim{fx.StaticDim(3)}} }
	b := fx.Arg{Kind: fx.ArgTensor, Name: "b"}
	x := fx.Arg{Kind: fx.ArgTensor, Name: "x"}
	c := fx.Arg{Kind: fx.ArgTensor, Name: "c"}
	d := fx.Arg{Kind: fx.ArgTensor, Name: "d"}
	one := fx.Arg{Kind: fx.ArgFloat, Float: 1}
	mul := func(out, in fx.Arg) *fx.Node {
		return &fx.Node{Name: out.Name, Target: "aten::mul.Tensor",
			Inputs:  []fx.NamedArg{{Name: "self", Arg: in}, {Name: "other", Arg: one}},
			Outputs: []fx.Arg{out}}
	}
	return &fx.Graph{
		Inputs:  []fx.Arg{b, x},
		Nodes:   []*fx.Node{mul(c, b), mul(d, x)},
		Outputs: []fx.Arg{c, d},
		Tensors: map[string]*fx.TensorMeta{"b": meta(), "x": meta(), "c": meta(), "d": meta()},
		Signature: &fx.Signature{
			Inputs: []fx.InputSpec{{Kind: fx.InputBuffer, Arg: b, Target: "b"}, {Kind: fx.InputUser, Arg: x}},
			Outputs: []fx.OutputSpec{{Kind: fx.OutputBufferMutation, Arg: c, Target: "b"},
				{Kind: fx.OutputUser, Arg: d}},
		},
	}
}

// On a PJRT device the segment runs on device buffers and the mutated
// buffer's argument is donated to its new value; the outputs and the
// updated buffer are right.
func TestPJRTAsyncSegmentDonatesMutatedBuffer(t *testing.T) {
	count := fakePJRT(t)
	for _, dev := range []string{"cpu", "xla-cpu"} {
		buf := vec(3, 2)
		prog, err := New(scaleBuffer(), map[string]*literal.Literal{"b": buf}, dev)
		if err != nil {
			t.Fatal(err)
		}
		prog.Check = true
		outs, stats, err := prog.Run(context.Background(), []*literal.Literal{vec(3, 1)})
		if err != nil {
			t.Fatalf("%s: %v", dev, err)
		}
		if stats.Segments != 1 || len(outs) != 1 || outs[0].Float64(2) != 3 {
			t.Errorf("%s: outputs %v, stats %+v", dev, outs, stats)
		}
		// On the device the new value stays there until read back.
		if err := prog.SyncWeights(context.Background()); err != nil {
			t.Fatal(err)
		}
		if w := prog.Weights["b"]; w == buf || w.Float64(2) != 6 {
			t.Errorf("%s: the buffer is %v, want a new literal holding 2 4 6", dev, w)
		}
		if buf.Float64(2) != 6 {
			t.Errorf("%s: the old buffer literal changed: %v", dev, buf)
		}
	}
	if n := count("donate 0"); n != 1 {
		t.Errorf("the plugin saw the buffer donated %d times, want 1", n)
	}
	if n := count("donate 1"); n != 0 {
		t.Errorf("the user input was donated %d times", n)
	}
}

// Segments run on the device's own buffers on PJRT executables, and on
// host buffers on the native backend.
func TestSegmentsRunOnBuffers(t *testing.T) {
	fakePJRT(t)
	for _, c := range []struct {
		dev  string
		want bool
	}{{"xla-cpu", true}, {"cpu", false}} {
		prog, err := New(scaleBuffer(), map[string]*literal.Literal{"b": vec(3, 2)}, c.dev)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		r, err := newRun(ctx, prog, []*literal.Literal{vec(3, 1)}, newDeviceIO(ctx, prog))
		if err != nil {
			t.Fatal(err)
		}
		m, err := stablehlo.ParseModule("echo.mlir", []byte(`func.func @main(%arg0: tensor<3xf32>) -> tensor<3xf32> {
  return %arg0 : tensor<3xf32>
}`))
		if err != nil {
			t.Fatal(err)
		}
		exe, err := r.compileSegment(m)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := exe.exe.(backend.BufferExecutable); got != c.want {
			t.Errorf("%s: device buffers %v, want %v", c.dev, got, c.want)
		}
	}
}
