package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkModelShapes times Sgemm on one and two threads on the products of the
// bench models (m×n×k, B [k, n] row-major or transposed as a linear
// layer's [n, k] weight): the small-m products of token-level models, the
// im2col products of CNNs, and GPT-2 training's (compile_bench: 256
// tokens of 128) forward products and weight gradients (A transposed:
// xᵀ·dy, x stored [k, m]).
func BenchmarkModelShapes(b *testing.B) {
	for _, s := range []struct {
		m, n, k int
		bt, at  bool
	}{
		{64, 688, 256, true, false}, {64, 256, 688, true, false}, {64, 256, 256, true, false}, {64, 1000, 256, true, false},
		{128, 768, 768, true, false}, {128, 3072, 768, true, false}, {50, 768, 768, true, false},
		{64, 3136, 576, false, false}, {256, 196, 2304, false, false}, {512, 49, 4608, false, false}, {49, 512, 4608, false, false}, {49, 512, 4608, true, false},
		{256, 512, 128, false, false}, {256, 128, 1024, false, false}, {256, 512, 128, true, false}, {256, 128, 512, true, false}, {256, 1024, 128, true, false}, {512, 128, 256, false, true}, {128, 512, 256, false, true}, {1024, 128, 256, false, true},
	} {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%dx%dx%d/bt=%v/at=%v/t=%d", s.m, s.n, s.k, s.bt, s.at, threads), func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				a, bb, c := make([]float32, s.m*s.k), make([]float32, s.k*s.n), make([]float32, s.m*s.n)
				for i := range a {
					a[i] = r.Float32()
				}
				for i := range bb {
					bb[i] = r.Float32()
				}
				bm := RowMajor(bb, s.n)
				if s.bt {
					bm = RowMajor(bb, s.k).Transposed()
				}
				am := RowMajor(a, s.k)
				if s.at {
					am = RowMajor(a, s.m).Transposed()
				}
				cpu0 := processCPU()
				fastest := time.Duration(1 << 62)
				for i := 0; i < b.N; i++ {
					t0 := time.Now()
					Sgemm(s.m, s.n, s.k, am, bm, c, s.n, false, threads)
					fastest = min(fastest, time.Since(t0))
				}
				// the fastest call: on a loaded machine, the one least disturbed
				b.ReportMetric(2*float64(s.m*s.n*s.k)/fastest.Seconds()/1e9, "bestGFLOP/s")
				reportFlops(b, 2*float64(s.m*s.n*s.k)*float64(b.N), processCPU()-cpu0, threads)
			})
		}
	}
}
