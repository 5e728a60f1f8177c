package gemm

import (
	"fmt"
	"math/rand/v2"
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

// BenchmarkPeakFMA runs register-only fused multiply-adds of the widest
// vectors the CPU has (independent chains, no memory operands): the
// core's fp32 peak, against which BenchmarkMicroKernel and BenchmarkSgemm
// are read.
func BenchmarkPeakFMA(b *testing.B) {
	loop, flop := peakLoop()
	if loop == nil {
		b.Skip("no vector FMA loop on this CPU")
	}
	const iters = 1 << 16
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		loop(iters)
	}
	reportFlops(b, flop*iters*float64(b.N), processCPU()-cpu0, 1)
}

// BenchmarkMicroKernelDirect times the direct kernel (A read in place,
// rows lda floats apart) against the packed one on the same 14×256 block
// of A, for row strides of ResNet's convolutions (c·kh·kw).
func BenchmarkMicroKernelDirect(b *testing.B) {
	ks := active
	if ks.direct == nil {
		b.Skip("no direct kernels")
	}
	const kb = 256
	for _, lda := range []int{256, 576, 1152, 2304, 4608} {
		b.Run(fmt.Sprintf("%s/lda=%d", ks.name, lda), func(b *testing.B) {
			a, bp, c := make([]float32, (ks.mr-1)*lda+kb), make([]float32, ks.nr*kb), make([]float32, ks.mr*ks.nr)
			cpu0 := processCPU()
			for i := 0; i < b.N; i++ {
				ks.direct[ks.mr][0](kb, a, lda, bp, c, ks.nr)
			}
			reportFlops(b, 2*float64(ks.mr*ks.nr*kb)*float64(b.N), processCPU()-cpu0, 1)
		})
	}
}

// BenchmarkBandA runs one thread's MulBlock calls over a band A of convolution
// shapes (m out channels, k = c·kh·kw, n columns at batch 1), A read in
// place by the direct kernels or packed band by band, with A cycled over
// copies that do not fit in L2 (as a model's weights come from L3).
func BenchmarkBandA(b *testing.B) {
	if active.direct == nil {
		b.Skip("no direct kernels")
	}
	for _, s := range [][3]int{{512, 4608, 49}, {256, 2304, 196}, {128, 1152, 784}, {64, 576, 3136}} {
		m, k, n := s[0], s[1], s[2]
		for _, direct := range []bool{true, false} {
			b.Run(fmt.Sprintf("%dx%dx%d/direct=%v", m, k, n, direct), func(b *testing.B) {
				defer func(old bool) { directA = old }(directA)
				directA = direct
				r := rand.New(rand.NewPCG(1, 2))
				copies := max(1, (32<<20)/(4*m*k))
				as := make([]*PackedA, copies)
				for i := range as {
					as[i] = NewBandA(m, k, RowMajor(randMat(r, m*k), k))
				}
				nb := min(n, 256)
				blocks := make([][]float32, as[0].KBlocks())
				bm := RowMajor(randMat(r, k*nb), nb)
				for kb := range blocks {
					blocks[kb] = make([]float32, as[0].BlockLen(nb))
					as[0].PackBlock(blocks[kb], MatrixPacker(bm), kb, 0, nb)
				}
				out := Out{Data: make([]float32, m*nb), Ldc: nb}
				b.ResetTimer()
				cpu0 := processCPU()
				for i := 0; i < b.N; i++ {
					for kb, bp := range blocks {
						as[i%copies].MulBlock(0, m, bp, kb, 0, nb, out, false)
					}
				}
				reportFlops(b, 2*float64(m*nb*k)*float64(b.N), processCPU()-cpu0, 1)
			})
		}
	}
}
