//go:build cgo

package pjrt_test

import (
	"context"
	"os"
	"testing"

	"github.com/torchtpu/torchtpu/backend"
	"github.com/torchtpu/torchtpu/backend/native"
	"github.com/torchtpu/torchtpu/backend/pjrt/pjrttest"
	"github.com/torchtpu/torchtpu/stablehlo"
)

// TestXLACPUJaxExportBuckets runs a jax.export program with a symbolic
// batch (testdata/jax/gen_mlp_poly.py) on xla-cpu at batches 3, 5 and 7:
// pow2 buckets 4, 8, 8 make two compiles, and the results are the native
// backend's (which runs the polymorphic program as it is). With exact
// shapes asked for, three compiles.
func TestXLACPUJaxExportBuckets(t *testing.T) {
	xlaCPU(t)
	b, err := backend.Open("xla-cpu")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("testdata/jax/mlp_poly.mlir")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		name     string
		buckets  func(int64) int64
		compiles int
	}{{"default pow2", nil, 2}, {"exact", func(n int64) int64 { return n }, 3}} {
		mods, err := stablehlo.Parse("mlp_poly.mlir", src)
		if err != nil {
			t.Fatal(err)
		}
		exe, err := b.Compile(ctx, mods[0], backend.Options{Buckets: c.buckets})
		if err != nil {
			t.Fatal(err)
		}
		nat, err := (&native.Backend{}).Compile(ctx, mods[0], backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, batch := range []int64{3, 5, 7} {
			args, err := pjrttest.SampleArgs(mods[0].Func("main").Type.Inputs, batch, batch)
			if err != nil {
				t.Fatal(err)
			}
			got, err := exe.Run(ctx, args)
			if err != nil {
				t.Fatalf("%s, batch %d: %v", c.name, batch, err)
			}
			want, err := nat.Run(ctx, args)
			if err != nil {
				t.Fatalf("native, batch %d: %v", batch, err)
			}
			if err := pjrttest.Compare(got, want, 1e-5, 1e-6); err != nil {
				t.Errorf("%s, batch %d: against the native backend: %v", c.name, batch, err)
			}
		}
		n := exe.(interface{ Specializations() int }).Specializations()
		if n != c.compiles {
			t.Errorf("%s: %d compiles for batches 3, 5, 7, want %d", c.name, n, c.compiles)
		}
	}
}
