package gemm

import "testing"

func BenchmarkMicroKernel(b *testing.B) {
	kb := 384
	a, bb, c := make([]float32, mr*kb), make([]float32, nr*kb), make([]float32, mr*nr)
	for i := 0; i < b.N; i++ {
		microKernel(kb, a, bb, c, nr)
	}
	b.ReportMetric(2*float64(mr*nr*kb)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
