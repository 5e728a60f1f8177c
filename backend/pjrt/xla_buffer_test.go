//go:build cgo

package pjrt_test

import (
	"context"
	"errors"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/dtype"
	"github.com/torchtpu/torchtpu/literal"
	"github.com/torchtpu/torchtpu/stablehlo"
)

const doubleModule = `func.func @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}`

// Buffers on the real XLA CPU plugin: upload, run, read back, release
// (early release waits for the run), donation consumes the argument, and
// misuse is an error, never a crash.
func TestXLACPUBuffers(t *testing.T) {
	xlaCPU(t)
	ctx := context.Background()
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	m, err := stablehlo.ParseModule("double.mlir", []byte(doubleModule))
	if err != nil {
		t.Fatal(err)
	}
	exe, err := b.Compile(ctx, m, backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x, _ := literal.New(dtype.F32, []int64{4})
	for i := 0; i < 4; i++ {
		x.SetFloat64(i, float64(i)+0.5)
	}
	in, err := backend.Upload(ctx, b, x)
	if err != nil {
		t.Fatal(err)
	}
	if backend.IsHost(in) || in.Device() != "xla-cpu" || in.DType() != dtype.F32 || len(in.Shape()) != 1 {
		t.Fatalf("upload: %T on %s %v%v", in, in.Device(), in.DType(), in.Shape())
	}
	outs, err := backend.RunBuffers(ctx, b, exe, []backend.Buffer{in}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in2, _ := backend.Upload(ctx, b, x)
	in2Outs, err := backend.RunBuffers(ctx, b, exe, []backend.Buffer{in2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	in2.Release() // while the run may still read it: the release waits
	for _, o := range append(outs, in2Outs...) {
		got, err := o.ToHost(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 4; i++ {
			if got.Float64(i) != 2*x.Float64(i) {
				t.Errorf("element %d = %v, want %v", i, got.Float64(i), 2*x.Float64(i))
			}
		}
	}
	// Not donated: the input is still readable.
	if _, err := in.ToHost(ctx); err != nil {
		t.Errorf("undonated input: %v", err)
	}
	// Donated: the input is consumed, the output is right.
	d, err := backend.RunBuffers(ctx, b, exe, []backend.Buffer{in}, []bool{true})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := d[0].ToHost(ctx); err != nil || got.Float64(3) != 7 {
		t.Errorf("donated run: %v %v", got, err)
	}
	if _, err := in.ToHost(ctx); !errors.Is(err, backend.ErrReleased) {
		t.Errorf("reading a donated buffer: %v, want ErrReleased", err)
	}
	if _, err := backend.RunBuffers(ctx, b, exe, []backend.Buffer{in}, nil); !errors.Is(err, backend.ErrReleased) {
		t.Errorf("running on a donated buffer: %v", err)
	}
	if _, err := backend.RunBuffers(ctx, b, exe, []backend.Buffer{backend.NewHostBuffer("cpu", x)}, nil); err == nil {
		t.Error("a host buffer was accepted by an xla-cpu executable")
	}
	backend.ReleaseAll(d)
	backend.ReleaseAll(outs)
	backend.ReleaseAll(outs) // twice is fine
	if _, err := outs[0].ToHost(ctx); !errors.Is(err, backend.ErrReleased) {
		t.Errorf("reading a released buffer: %v", err)
	}
}
