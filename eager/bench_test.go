package eager

import (
	"context"
	"testing"
)

// BenchmarkEagerCall is one small op through Call (decode, plan hit,
// output buffer, run) in debug mode: the engine's share of an eager op.
func BenchmarkEagerCall(b *testing.B) {
	for _, c := range []struct {
		name  string
		op    string
		shape []int64
		extra []int64
	}{
		{"add64", "aten::add.Tensor", []int64{64}, []int64{tagInt, 1}},
		{"mm16", "aten::mm.default", []int64{16, 16}, nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			d, err := newDevice(Options{Mode: "debug"})
			if err != nil {
				b.Fatal(err)
			}
			n := int64(4)
			strides := make([]int64, len(c.shape))
			for i := len(c.shape) - 1; i >= 0; i-- {
				strides[i] = n / 4
				n *= c.shape[i]
			}
			h, _ := d.NewBuffer(n)
			e := opIDB(b, d, c.op)
			w := append(tensorWords(h, 0, c.shape, strides), tensorWords(h, 0, c.shape, strides)...)
			w = append(w, c.extra...)
			out := make([]int64, 64)
			ctx := context.Background()
			if st, msg, _, err := d.Call(ctx, e, w, FlagCompile, out); err != nil || st != StatusOK {
				b.Fatal(st, msg, err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, _, _, err := d.Call(ctx, e, w, 0, out)
				if err != nil {
					b.Fatal(err)
				}
				Free(Handle(out[1]))
			}
		})
	}
}

// BenchmarkFusedCall is one small op recorded in fused mode, blocks of
// 1000 ops flushed by a synchronize: the engine's share of a fused op in
// steady state (the block's structure compiled once).
func BenchmarkFusedCall(b *testing.B) {
	d, err := newDevice(Options{Mode: "fused"})
	if err != nil {
		b.Fatal(err)
	}
	shape, strides := []int64{64}, []int64{1}
	h, _ := d.NewBuffer(64 * 4)
	e := opIDB(b, d, "aten::add.Tensor")
	w := append(tensorWords(h, 0, shape, strides), tensorWords(h, 0, shape, strides)...)
	w = append(w, tagInt, 1)
	out := make([]int64, 64)
	ctx := context.Background()
	if st, msg, _, err := d.Call(ctx, e, w, FlagCompile, out); err != nil || st != StatusOK {
		b.Fatal(st, msg, err)
	}
	Free(Handle(out[1]))
	if err := d.Synchronize(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, _, err := d.Call(ctx, e, w, 0, out); err != nil {
			b.Fatal(err)
		}
		Free(Handle(out[1]))
		if i%1000 == 999 {
			if err := d.Synchronize(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
}
