package capi

import (
	"context"
	"os"
	"testing"
	"unsafe"

	"github.com/torchtpu/torchtpu/safetensors"
)

// BenchmarkRunInto times the compile path's per-call cost on a small
// graph: $TORCHTPU_BENCH_PT2 (with NAME.io.safetensors beside it), run
// through RunInto as libtorchtpu's tt_program_run_into does.
func BenchmarkRunInto(b *testing.B) {
	path := os.Getenv("TORCHTPU_BENCH_PT2")
	if path == "" {
		b.Skip("TORCHTPU_BENCH_PT2 names a .pt2 dumped from torch.compile (TORCHTPU_DUMP_DIR)")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	h, err := LoadHandle(data, []byte(`{"cache_dir":"-"}`))
	if err != nil {
		b.Fatal(err)
	}
	io, err := safetensors.Load(path[:len(path)-len(".pt2")] + ".io.safetensors")
	if err != nil {
		b.Fatal(err)
	}
	var ins []TensorDesc
	for _, l := range io.Inputs() {
		st, err := l.DType.ScalarType()
		if err != nil {
			b.Fatal(err)
		}
		ins = append(ins, TensorDesc{Data: unsafe.Pointer(&l.Data[0]), Extent: int64(len(l.Data)), DType: st, Shape: l.Shape})
	}
	res, err := Run(context.Background(), h, ins)
	if err != nil {
		b.Fatal(err)
	}
	r, _ := get[*Result](res, "result")
	var outs []TensorDesc
	for _, o := range r.outs {
		buf := make([]byte, len(o.Data))
		st, err := o.DType.ScalarType()
		if err != nil {
			b.Fatal(err)
		}
		outs = append(outs, TensorDesc{Data: unsafe.Pointer(&buf[0]), Extent: int64(len(buf)), DType: st, Shape: o.Shape})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := RunInto(context.Background(), h, ins, outs); err != nil {
			b.Fatal(err)
		}
	}
}
