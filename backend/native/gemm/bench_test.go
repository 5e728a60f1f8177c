package gemm

import (
	"testing"
	"time"
)

// reportFlops reports GFLOP/s over wall time and, on a loaded machine more
// telling, GFLOP/s per thread-second of CPU time times the thread count
// ("cpuGFLOP/s": what the threads reach while they run).
func reportFlops(b *testing.B, flops float64, cpu time.Duration, threads int) {
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	if cpu > 0 {
		b.ReportMetric(flops/(cpu.Seconds()/float64(threads))/1e9, "cpuGFLOP/s")
	}
}

// BenchmarkMicroKernel times each kernel set's micro-kernel alone on
// L1-resident panels (kc = 256): the per-core ceiling of the GEMM.
func BenchmarkMicroKernel(b *testing.B) {
	for _, ks := range kernelSets() {
		b.Run(ks.name, func(b *testing.B) {
			const kb = 256
			a, bp, c := make([]float32, ks.mr*kb), make([]float32, ks.nr*kb), make([]float32, ks.mr*ks.nr)
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				ks.acc(kb, a, bp, c, ks.nr)
			}
			reportFlops(b, 2*float64(ks.mr*ks.nr*kb)*float64(b.N), processCPU()-cpu0, 1)
		})
	}
}

// BenchmarkPeakFMA runs register-only AVX-512 fused multiply-adds (24
// independent chains, no memory operands): the core's fp32 peak, against
// which BenchmarkMicroKernel and BenchmarkSgemm are read.
func BenchmarkPeakFMA(b *testing.B) {
	if !hasPeakFMA() {
		b.Skip("no AVX-512 on this CPU")
	}
	const iters = 1 << 16
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		peakFMA512(iters)
	}
	reportFlops(b, 2*16*24*iters*float64(b.N), processCPU()-cpu0, 1)
}
