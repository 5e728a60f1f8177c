package native

import "github.com/torchtpu/torchtpu/backend/native/gemm"

// fastGemmMinFlops is the size (m·n·k of one batch) from which float32
// products use the packed SIMD GEMM of package gemm. Below it the exact
// kernel keeps XLA's summation order bit for bit; above it the blocked
// kernel sums the same terms in blocks with fused multiply-adds, which
// differs from that order only in the last bits, as every BLAS does.
const fastGemmMinFlops = 48 * 48 * 48

func init() {
	exact := gemmF32
	gemmF32 = func(batch, m, k, n int, a, bm, c []float32) {
		if m*n*k < fastGemmMinFlops {
			exact(batch, m, k, n, a, bm, c)
			return
		}
		for b := 0; b < batch; b++ {
			gemm.Sgemm(m, n, k,
				gemm.RowMajor(a[b*m*k:(b+1)*m*k], k),
				gemm.RowMajor(bm[b*k*n:(b+1)*k*n], n),
				c[b*m*n:(b+1)*m*n], n, false, 0)
		}
	}
}
