package runtime_test

import (
	"context"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/runtime"
)

// Eager ops on device buffers chain on the device and agree with eager
// ops on host literals (which match PyTorch: future_eager_test.go).
func TestEagerBuffers(t *testing.T) {
	requireXLACPU(t)
	ctx := context.Background()
	x, _ := literal.New(dtype.F32, []int64{2, 3})
	for i := 0; i < 6; i++ {
		x.SetFloat64(i, float64(i)-2.5)
	}
	want, err := runtime.Eager(ctx, mustOpen(t, "cpu"), "aten::mul.Tensor", x, 3.0)
	if err != nil {
		t.Fatal(err)
	}
	want, err = runtime.Eager(ctx, mustOpen(t, "cpu"), "aten::add.Tensor", want[0], want[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, dev := range []string{"xla-cpu", "cpu"} {
		b := mustOpen(t, dev)
		in, err := backend.Upload(ctx, b, x)
		if err != nil {
			t.Fatal(err)
		}
		y, err := runtime.EagerBuffers(ctx, b, "aten::mul.Tensor", in, 3.0)
		if err != nil {
			t.Fatal(err)
		}
		z, err := runtime.EagerBuffers(ctx, b, "aten::add.Tensor", y[0], y[0])
		if err != nil {
			t.Fatal(err)
		}
		backend.ReleaseAll(y)
		in.Release()
		got, err := z[0].ToHost(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if c := runtime.Compare(got, want[0], runtime.DefaultTolerance(dtype.F32)); !c.OK || z[0].Device() != dev {
			t.Errorf("%s: %s (on %s)", dev, c.Detail, z[0].Device())
		}
		backend.ReleaseAll(z)
	}
}

func mustOpen(t *testing.T, dev string) backend.Backend {
	t.Helper()
	b, err := backend.Open(dev)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
