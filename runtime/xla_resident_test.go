package runtime_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/pt2"
	"github.com/torchtpu/torchtpu/runtime"
	"github.com/torchtpu/torchtpu/safetensors"
)

// resnet18 on xla-cpu: the first run uploads the weights, every later run
// moves only its input and its output, and the outputs match PyTorch's.
// On cpu nothing moves at all. RunBuffers takes the input already on the
// device and leaves the output there: nothing moves.
func TestResidentWeightsResnet18(t *testing.T) {
	requireXLACPU(t)
	base := filepath.Join(fixtureRoot(t), "models", "resnet18")
	p, err := pt2.Load(base + ".pt2")
	if err != nil {
		t.Fatal(err)
	}
	io, err := safetensors.Load(base + ".io.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ins, want := io.Inputs(), io.Outputs()
	var inBytes, outBytes, weightBytes int64
	for _, l := range ins {
		inBytes += int64(len(l.Data))
	}
	for _, l := range want {
		outBytes += int64(len(l.Data))
	}
	for _, dev := range []string{"xla-cpu", "cpu"} {
		prog, err := runtime.FromPT2(p, dev)
		if err != nil {
			t.Fatal(err)
		}
		weightBytes = 0
		for _, w := range prog.Weights {
			weightBytes += int64(len(w.Data))
		}
		for run := 1; run <= 3; run++ {
			outs, stats, err := prog.Run(ctx, ins)
			if err != nil {
				t.Fatalf("%s run %d: %v", dev, run, err)
			}
			for i := range want {
				if c := runtime.Compare(outs[i], want[i], runtime.DefaultTolerance(want[i].DType)); !c.OK {
					t.Errorf("%s run %d output %d: %s", dev, run, i, c.Detail)
				}
			}
			wantUp, wantDown := inBytes, outBytes
			switch {
			case dev == "cpu":
				wantUp, wantDown = 0, 0
			case run == 1:
				wantUp += prog.ResidentBytes() // the weights it reads (not num_batches_tracked)
				if prog.ResidentBytes() > weightBytes || prog.ResidentBytes() < weightBytes*99/100 {
					t.Errorf("%s: %d B of weights resident, of %d", dev, prog.ResidentBytes(), weightBytes)
				}
			}
			if stats.Uploaded != wantUp || stats.Downloaded != wantDown {
				t.Errorf("%s run %d moved %d B up, %d B down; want %d and %d", dev, run, stats.Uploaded, stats.Downloaded, wantUp, wantDown)
			}
		}
		m := prog.Metrics().Snapshot()
		if m.LastH2DBytes != map[bool]int64{true: 0, false: inBytes}[dev == "cpu"] {
			t.Errorf("%s: metrics say the last run uploaded %d B", dev, m.LastH2DBytes)
		}
		// On buffers: the input uploaded once by the caller, the output left on the device.
		in, err := backend.Upload(ctx, prog.Backend, ins[0])
		if err != nil {
			t.Fatal(err)
		}
		bufs, stats, err := prog.RunBuffers(ctx, []backend.Buffer{in})
		if err != nil {
			t.Fatalf("%s RunBuffers: %v", dev, err)
		}
		if stats.Uploaded != 0 || stats.Downloaded != 0 {
			t.Errorf("%s RunBuffers moved %d B up, %d B down; want nothing", dev, stats.Uploaded, stats.Downloaded)
		}
		got, err := bufs[0].ToHost(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c := runtime.Compare(got, want[0], runtime.DefaultTolerance(want[0].DType)); !c.OK {
			t.Errorf("%s RunBuffers output: %s", dev, c.Detail)
		}
		if bufs[0].Device() != dev {
			t.Errorf("output buffer on %s, want %s", bufs[0].Device(), dev)
		}
		backend.ReleaseAll(bufs)
		in.Release()
		if _, err := bufs[0].ToHost(ctx); err == nil {
			t.Errorf("%s: a released buffer was read", dev)
		}
		t.Logf("%s: weights %d B, input %d B, output %d B; resident on the device: %d B", dev, weightBytes, inBytes, outBytes, prog.ResidentBytes())
	}
}

// A mutated buffer stays on the device between runs and is read back by
// SyncWeights; both devices agree with PyTorch over two runs.
func TestResidentBufferMutation(t *testing.T) {
	requireXLACPU(t)
	pp, native, io := loadOracle(t, "buffer_mutation")
	prog, err := runtime.FromPT2(pp, "xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*runtime.Program{prog, native} {
		for i, want := range []*literal.Literal{io.Tensors["output.0"], io.Tensors["second.0"]} {
			outs, stats, err := p.Run(context.Background(), io.Inputs())
			if err != nil {
				t.Fatal(err)
			}
			if c := runtime.Compare(outs[0], want, runtime.DefaultTolerance(want.DType)); !c.OK {
				t.Errorf("%s run %d: %s", p.Backend.Name(), i+1, c.Detail)
			}
			if p == prog && i == 1 && stats.Downloaded != int64(len(outs[0].Data)) {
				t.Errorf("xla-cpu run 2 read back %d B: the mutated buffer should stay on the device", stats.Downloaded)
			}
		}
	}
	if err := prog.SyncWeights(context.Background()); err != nil {
		t.Fatal(err)
	}
	for fqn, w := range native.Weights {
		if c := runtime.Compare(prog.Weights[fqn], w, runtime.DefaultTolerance(w.DType)); !c.OK {
			t.Errorf("weight %s after SyncWeights: %s", fqn, c.Detail)
		}
	}
}
