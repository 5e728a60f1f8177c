package native

// Batched matrix products: the inner kernels of dot_general and
// convolution. They are package variables so that a faster (SIMD, tiled,
// threaded) implementation can replace them without touching the op
// kernels. Every one computes, for each batch b,
//
//	c[b][i][j] = sum over p of a[b][i][p] * bm[b][p][j]
//
// with a of shape [batch, m, k], bm of shape [batch, k, n] and c of shape
// [batch, m, n], all row-major and contiguous; c is overwritten. Each sum
// is accumulated in ascending p in the element type (float32 sums round
// after every multiply and add, as XLA's CPU kernels do), so a replacement
// must keep that order to give the same bits.

var (
	gemmF64  = gemmGeneric[float64]
	gemmF32  = gemmFloat32
	gemmI64  = gemmGeneric[int64]
	gemmC128 = gemmGeneric[complex128]
	gemmC64  = gemmComplex64
)

type gemmElem interface {
	~float64 | ~float32 | ~int64 | ~complex128 | ~complex64
}

// gemmGeneric is the reference batched product: for each output row it
// accumulates rank-1 updates over p, so the innermost loop runs over
// contiguous rows of bm and c.
func gemmGeneric[T gemmElem](batch, m, k, n int, a, bm, c []T) {
	for b := 0; b < batch; b++ {
		ab := a[b*m*k : (b+1)*m*k]
		bb := bm[b*k*n : (b+1)*k*n]
		cb := c[b*m*n : (b+1)*m*n]
		for i := 0; i < m; i++ {
			crow := cb[i*n : (i+1)*n]
			clear(crow)
			arow := ab[i*k : (i+1)*k]
			for p, av := range arow {
				brow := bb[p*n : (p+1)*n]
				for j, bv := range brow {
					crow[j] += av * bv
				}
			}
		}
	}
}

// gemmFloat32 accumulates in float32, rounding the product before the add
// (the explicit conversion keeps the compiler from fusing them).
func gemmFloat32(batch, m, k, n int, a, bm, c []float32) {
	for b := 0; b < batch; b++ {
		ab := a[b*m*k : (b+1)*m*k]
		bb := bm[b*k*n : (b+1)*k*n]
		cb := c[b*m*n : (b+1)*m*n]
		for i := 0; i < m; i++ {
			crow := cb[i*n : (i+1)*n]
			clear(crow)
			arow := ab[i*k : (i+1)*k]
			for p, av := range arow {
				brow := bb[p*n : (p+1)*n]
				for j, bv := range brow {
					crow[j] += float32(av * bv)
				}
			}
		}
	}
}

// gemmComplex64 accumulates in complex64 with float32 parts:
// re += ar*br - ai*bi, im += ar*bi + ai*br, each operation rounded.
func gemmComplex64(batch, m, k, n int, a, bm, c []complex64) {
	for b := 0; b < batch; b++ {
		ab := a[b*m*k : (b+1)*m*k]
		bb := bm[b*k*n : (b+1)*k*n]
		cb := c[b*m*n : (b+1)*m*n]
		for i := 0; i < m; i++ {
			crow := cb[i*n : (i+1)*n]
			clear(crow)
			arow := ab[i*k : (i+1)*k]
			for p, av := range arow {
				ar, ai := real(av), imag(av)
				brow := bb[p*n : (p+1)*n]
				for j, bv := range brow {
					br, bi := real(bv), imag(bv)
					re := float32(ar*br) - float32(ai*bi)
					im := float32(ar*bi) + float32(ai*br)
					crow[j] = complex(real(crow[j])+re, imag(crow[j])+im)
				}
			}
		}
	}
}
